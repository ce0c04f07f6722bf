package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// memory is the server's footprint at one moment.
type memory struct {
	rssKiB     int64   // VmRSS, from /proc
	heapMiB    float64 // go_memstats_heap_inuse_bytes, from /metrics
	goroutines int     // go_goroutines, from /metrics
}

func (m memory) String() string {
	return fmt.Sprintf("RSS %.1f MiB, heap in use %.1f MiB, %d goroutines", float64(m.rssKiB)/1024, m.heapMiB, m.goroutines)
}

// grewFrom allows what a warmed-up Go server wanders by (the heap's
// target moves between collections; idle connections' goroutines come and
// go) and calls more a growth. Both are sampled with one connection open.
func (m memory) grewFrom(before memory) bool {
	return float64(m.rssKiB) > 1.25*float64(before.rssKiB)+8*1024 || m.goroutines > before.goroutines+16
}

func (s *server) sample(client *http.Client, base string) (memory, error) {
	var m memory
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return m, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			m.rssKiB, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	resp, err := client.Get(base + "/metrics")
	if err != nil {
		return m, fmt.Errorf("reading the server's metrics: %w", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, _ := strconv.ParseFloat(value, 64)
		switch name {
		case "go_goroutines":
			m.goroutines = int(v)
		case "go_memstats_heap_inuse_bytes":
			m.heapMiB = v / (1 << 20)
		}
	}
	return m, sc.Err()
}
