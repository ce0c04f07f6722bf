// Command bench-up measures a cold `winkube up` of the default cluster:
// each run starts a new cluster in a new data dir, reads the time of every
// step from up's progress lines, and stops and deletes it; it then prints
// each step's min/median/max. The last run also waits -settle and reads
// the memory of winkube and of each component from /proc: RSS, and PSS,
// which shares the pages of the one binary they all map among them.
//
//	go run ./hack/bench-up                  # 5 runs
//	go run ./hack/bench-up -runs 3 -winkube /tmp/winkube
//
// The clusters run in a network namespace of their own holding only the
// loopback interface (unshare -rn, else unshare -n as root), so nothing
// they start can reach another address; every process is stopped by its
// PID before the next run.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	runs := flag.Int("runs", 5, "cold starts to measure")
	settle := flag.Duration("settle", 30*time.Second, "how long after ready the last run's memory is read")
	winkube := flag.String("winkube", "", "winkube binary to measure (default: build ./cmd/winkube)")
	inner := flag.Bool("in-netns", false, "internal: already in the loopback-only network namespace")
	flag.Parse()
	if err := run(*runs, *settle, *winkube, *inner); err != nil {
		fmt.Fprintln(os.Stderr, "bench-up:", err)
		os.Exit(1)
	}
}

func run(runs int, settle time.Duration, bin string, inNetns bool) error {
	if runs < 1 {
		return fmt.Errorf("-runs %d: want at least 1", runs)
	}
	work, err := os.MkdirTemp("", "bench-up-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if bin == "" {
		bin = filepath.Join(work, "winkube")
		fmt.Fprintln(os.Stderr, "building winkube...")
		build := exec.Command("go", "build", "-o", bin, "./cmd/winkube")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build: %w", err)
		}
	}
	if !inNetns {
		return reexecInNetns(runs, settle, bin)
	}
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link set lo up: %v: %s", err, out)
	}
	steps := map[string][]time.Duration{}
	var order []string
	var lastMem []procMem
	for i := range runs {
		got, mem, err := coldUp(bin, filepath.Join(work, fmt.Sprintf("run%d", i)), i == runs-1, settle)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		for _, s := range got {
			if _, ok := steps[s.name]; !ok {
				order = append(order, s.name)
			}
			steps[s.name] = append(steps[s.name], s.took)
		}
		fmt.Fprintf(os.Stderr, "run %d/%d: ready in %s\n", i+1, runs, got[len(got)-1].took)
		if mem != nil {
			lastMem = mem
		}
	}
	fmt.Printf("cold `winkube up`, default cluster, %d runs (min / median / max):\n", runs)
	for _, name := range order {
		d := steps[name]
		slices.Sort(d)
		fmt.Printf("  %-36s %7s %7s %7s\n", name, secs(d[0]), secs(d[len(d)/2]), secs(d[len(d)-1]))
	}
	printMemory(lastMem, settle)
	return nil
}

// reexecInNetns runs this program again in a new network namespace that
// has only the loopback interface: unshare -rn as any user, else -n.
func reexecInNetns(runs int, settle time.Duration, bin string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	flags := "-rn"
	if exec.Command("unshare", flags, "true").Run() != nil {
		flags = "-n"
	}
	cmd := exec.Command("unshare", flags, self, "-in-netns", "-runs", fmt.Sprint(runs), "-settle", settle.String(), "-winkube", bin)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("unshare %s (a loopback-only network namespace): %w", flags, err)
	}
	return nil
}

type step struct {
	name string
	took time.Duration
}

// stepLine is a progress line of up: " ✓ etcd      163ms", and the last
// one, "Cluster ready in 9.6s.".
var (
	stepLine  = regexp.MustCompile(`^ ✓ (.+?)\s+([0-9.]+(?:ms|s|m[0-9.]*s))$`)
	readyLine = regexp.MustCompile(`^Cluster ready in ([0-9.]+(?:ms|s|m[0-9.]*s))\.$`)
)

// coldUp starts a cluster in dir, waits until it is ready, reads the
// steps, and stops it; with measure it first waits settle and reads the
// processes' memory.
func coldUp(bin, dir string, measure bool, settle time.Duration) ([]step, []procMem, error) {
	up := exec.Command(bin, "up", "--data-dir", dir, "--kubeconfig-merge=false", "--port", "0")
	out, w := io.Pipe()
	up.Stdout, up.Stderr = w, w
	if err := up.Start(); err != nil {
		return nil, nil, err
	}
	go func() {
		_ = up.Wait()
		w.Close()
	}()
	defer func() {
		_ = up.Process.Signal(syscall.SIGTERM)
		drain(out)
		_ = exec.Command(bin, "down", "--data-dir", dir).Run()
	}()
	var steps []step
	var log []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		log = append(log, line)
		if m := stepLine.FindStringSubmatch(line); m != nil {
			d, _ := time.ParseDuration(m[2])
			steps = append(steps, step{m[1], d})
		}
		if m := readyLine.FindStringSubmatch(line); m != nil {
			d, _ := time.ParseDuration(m[1])
			steps = append(steps, step{"ready (whole up)", d})
			go drain(out)
			if !measure {
				return steps, nil, nil
			}
			time.Sleep(settle)
			return steps, memoryOf(up.Process.Pid), nil
		}
	}
	return nil, nil, fmt.Errorf("winkube up ended before the cluster was ready:\n%s", strings.Join(log, "\n"))
}

// drain reads up's output until it exits, which closes the pipe.
func drain(r io.Reader) { _, _ = io.Copy(io.Discard, r) }

func secs(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }
