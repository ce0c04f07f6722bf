package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// procMem is one process's memory in KiB. anon is the part of RSS that
// is the process's own (heap, stacks); the rest is pages of files, most
// of them the binary, which every component maps.
type procMem struct {
	name           string
	rss, pss, anon int
}

// memoryOf reads winkube's memory and that of its children (the
// components).
func memoryOf(pid int) []procMem {
	pids := []int{pid}
	// Each thread lists the children it forked.
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		data, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(data)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
	}
	var mem []procMem
	for _, p := range pids {
		m := procMem{name: argv0(p)}
		if p == pid {
			m.name = "winkube (etcd inside)"
		}
		m.rss, m.pss, m.anon = rollup(p, "Rss:"), rollup(p, "Pss:"), rollup(p, "Anonymous:")
		mem = append(mem, m)
	}
	return mem
}

// argv0 is the name a component runs under (its argv[0]).
func argv0(pid int) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	name, _, _ := strings.Cut(string(data), "\x00")
	return name
}

// rollup reads one field of /proc/PID/smaps_rollup, in KiB.
func rollup(pid int, field string) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) >= 2 && fs[0] == field {
			n, _ := strconv.Atoi(fs[1])
			return n
		}
	}
	return 0
}

func printMemory(mem []procMem, settle time.Duration) {
	fmt.Printf("memory %s after ready (last run), MiB:\n  %-36s %7s %7s %7s\n", settle, "process", "RSS", "PSS", "anon")
	var rss, pss, anon int
	for _, m := range mem {
		fmt.Printf("  %-36s %7d %7d %7d\n", m.name, m.rss/1024, m.pss/1024, m.anon/1024)
		rss, pss, anon = rss+m.rss, pss+m.pss, anon+m.anon
	}
	fmt.Printf("  %-36s %7d %7d %7d\n", "total", rss/1024, pss/1024, anon/1024)
}
