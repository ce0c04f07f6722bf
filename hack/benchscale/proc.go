package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat. The kernel
// exports them in USER_HZ, which is 100 on every Linux architecture
// whatever the kernel's own tick rate (CONFIG_HZ) is.
const userHZ = 100

// proc is one measured process, named as the table names it.
type proc struct {
	name string
	pid  int
}

// procStat is what benchscale reads from /proc/<pid>/stat.
type procStat struct {
	ppid  int
	ticks uint64 // utime + stime, in USER_HZ
}

// parseStat reads a /proc/<pid>/stat line. The command name (field 2) is
// in parentheses and may itself hold spaces and parentheses, so the fields
// are counted from the last ')'.
func parseStat(line string) (procStat, error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return procStat{}, fmt.Errorf("stat line without a command name: %q", line)
	}
	// After the name: state(3) ppid(4) ... utime(14) stime(15).
	f := strings.Fields(line[end+1:])
	if len(f) < 13 {
		return procStat{}, fmt.Errorf("stat line with %d fields after the command name, want at least 13", len(f))
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return procStat{}, fmt.Errorf("stat ppid %q: %w", f[1], err)
	}
	utime, err := strconv.ParseUint(f[11], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("stat utime %q: %w", f[11], err)
	}
	stime, err := strconv.ParseUint(f[12], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("stat stime %q: %w", f[12], err)
	}
	return procStat{ppid: ppid, ticks: utime + stime}, nil
}

// memory is a process's resident set now and at its peak, in KiB.
type memory struct {
	rssKiB, peakKiB uint64
}

// parseStatus reads VmRSS and VmHWM from /proc/<pid>/status.
func parseStatus(text string) (memory, error) {
	var m memory
	var seen int
	for _, line := range strings.Split(text, "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return memory{}, fmt.Errorf("status %s: unexpected value %q", key, value)
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("status %s: %w", key, err)
		}
		if key == "VmRSS" {
			m.rssKiB = n
		} else {
			m.peakKiB = n
		}
		seen++
	}
	if seen != 2 {
		return memory{}, fmt.Errorf("status without VmRSS and VmHWM (a kernel thread or an exited process?)")
	}
	return m, nil
}

func readStat(pid int) (procStat, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(string(data))
}

// components are the control-plane processes winkube runs.
var components = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// componentChildren finds the control-plane components winkube runs as its
// children ("<exe> component <name> <flags>"), named by component.
func componentChildren(parent int) ([]proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.ppid != parent {
			continue
		}
		args, err := cmdline(pid)
		if err != nil || len(args) < 3 || args[1] != "component" || !slices.Contains(components, args[2]) {
			continue // not a component, or a short-lived flag check
		}
		out = append(out, proc{name: args[2], pid: pid})
	}
	return out, nil
}

// cmdline is a process's argv.
func cmdline(pid int) ([]string, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return nil, err
	}
	data = bytes.TrimRight(data, "\x00")
	return strings.Split(string(data), "\x00"), nil
}

// environ is a process's environment.
func environ(pid int) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for kv := range strings.SplitSeq(string(data), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env, nil
}

// sample is the CPU time and memory of every measured process at one moment.
type sample struct {
	at    time.Time
	ticks map[string]uint64
	mem   map[string]memory
}

func takeSample(procs []proc) (sample, error) {
	s := sample{at: time.Now(), ticks: map[string]uint64{}, mem: map[string]memory{}}
	for _, p := range procs {
		st, err := readStat(p.pid)
		if err != nil {
			return sample{}, fmt.Errorf("%s (PID %d) is gone: %w", p.name, p.pid, err)
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid))
		if err != nil {
			return sample{}, fmt.Errorf("%s (PID %d) is gone: %w", p.name, p.pid, err)
		}
		m, err := parseStatus(string(status))
		if err != nil {
			return sample{}, fmt.Errorf("%s (PID %d): %w", p.name, p.pid, err)
		}
		s.ticks[p.name] = st.ticks
		s.mem[p.name] = m
	}
	return s, nil
}

// cpuSeconds is the CPU time each process used between two samples.
func cpuSeconds(from, to sample) map[string]float64 {
	out := map[string]float64{}
	for name, t := range to.ticks {
		out[name] = float64(t-from.ticks[name]) / userHZ
	}
	return out
}

// cpuPercent is each process's CPU use between two samples in percent of
// one core, as top shows it.
func cpuPercent(from, to sample) map[string]float64 {
	wall := to.at.Sub(from.at).Seconds()
	out := cpuSeconds(from, to)
	for name, s := range out {
		out[name] = 100 * s / wall
	}
	return out
}

// mebibytes converts a sample's resident sets (peak ones with peak) to MiB.
func mebibytes(s sample, peak bool) map[string]float64 {
	out := map[string]float64{}
	for name, m := range s.mem {
		kib := m.rssKiB
		if peak {
			kib = m.peakKiB
		}
		out[name] = float64(kib) / 1024
	}
	return out
}
