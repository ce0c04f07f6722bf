package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// pool is one group of identical nodes, the same for both setups.
type pool struct {
	name    string
	os      string // linux or windows
	release string // Windows Server release
	build   string // node.kubernetes.io/windows-build
	count   int
	pods    int // pods of the workload placed on this pool
}

// pools splits n nodes and m pods as the measurement did: half on
// Windows Server 2019, a quarter each on 2022 and Linux. With only set to
// a pool's name, all m pods go to that pool (a dense pool, as in an
// independent bench that put 20 pods on each 2019 node).
func pools(nodes, pods int, only string) []pool {
	ps := []pool{
		{name: "win2019", os: "windows", release: "2019", build: "10.0.17763", count: nodes / 2, pods: pods / 2},
		{name: "win2022", os: "windows", release: "2022", build: "10.0.20348", count: nodes / 4, pods: pods / 4},
		{name: "linux", os: "linux", count: nodes - nodes/2 - nodes/4, pods: pods - pods/2 - pods/4},
	}
	if only == "" {
		return ps
	}
	for i := range ps {
		ps[i].pods = 0
		if ps[i].name == only {
			ps[i].pods = pods
		}
	}
	return ps
}

// poolNames are the names POOL accepts.
func poolNames() []string {
	var names []string
	for _, p := range pools(4, 4, "") {
		names = append(names, p.name)
	}
	return names
}

// Network layout of both setups. The default 10.244.0.0/16 holds only 256
// node subnets of /24 and the default management /24 about 245 node
// addresses, so the bench sizes its own: the cluster network grows from
// 10.0.0.0 up to a /10 (below the default service network 10.96.0.0/12),
// and past that the node subnets shrink as far as maxPods allows; the
// management /16 holds every node. The same network is used with kwok so
// the controller-manager allocates the same pod CIDRs.
const (
	clusterBase    = "10.0.0.0"
	widestCluster  = 10 // 10.0.0.0/10 ends at 10.63.255.255
	managementCIDR = "10.128.0.0/16"
)

// network is the cluster's network section for nodes nodes of
// v1alpha1.DefaultMaxPods pods: the narrowest cluster network that holds a
// node subnet for each node, with the widest node subnet that fits.
func network(nodes int) (map[string]any, error) {
	subnetBits := bits.Len(uint(max(nodes, 1) - 1)) // node subnets needed, as a power of two
	for mask := v1alpha1.DefaultNodeCIDRMaskSize; v1alpha1.PodAddressesPerNode(mask) >= v1alpha1.DefaultMaxPods; mask++ {
		cluster := min(mask-subnetBits, 16)
		if cluster < widestCluster {
			continue
		}
		return map[string]any{
			"clusterCIDR":      fmt.Sprintf("%s/%d", clusterBase, cluster),
			"nodeCIDRMaskSize": mask,
			"managementCIDR":   managementCIDR,
		}, nil
	}
	return nil, fmt.Errorf("NODES (-nodes) %d: more nodes than %s/%d holds node subnets of %d pods for", nodes, clusterBase, widestCluster, v1alpha1.DefaultMaxPods)
}

// noNodes is the pool list of the kwok setup: one pool of count 0, so
// `winkube up` runs the control plane (and its services and add-ons)
// without emulated nodes and kwok's are the only ones.
var noNodes = []map[string]any{{"name": "none", "os": "linux", "count": 0}}

// clusterConfig is a winkube Cluster config with the given pools (none: no
// emulated nodes, for the control plane kwok runs against) and
// controlPlane flags.
func clusterConfig(name string, nodes int, ps []pool, cpFlags map[string]map[string]string) ([]byte, error) {
	net, err := network(nodes)
	if err != nil {
		return nil, err
	}
	var nodePools []map[string]any
	for _, p := range ps {
		np := map[string]any{"name": p.name, "os": p.os, "count": p.count}
		if p.release != "" {
			np["release"] = p.release
		}
		nodePools = append(nodePools, np)
	}
	if len(nodePools) == 0 {
		nodePools = noNodes
	}
	cfg := map[string]any{
		"apiVersion": "winkube.io/v1alpha1",
		"kind":       "Cluster",
		"name":       name,
		"network":    net,
		"nodePools":  nodePools,
	}
	if len(cpFlags) > 0 {
		cfg["controlPlane"] = cpFlags
	}
	return yaml.Marshal(cfg)
}

// sizedFlag matches the flags winkube sizes from the node count (README,
// "Tuning for large clusters"); they are copied to the kwok setup, whose
// winkube has no nodes of its own, so both run the same control plane.
var sizedFlag = regexp.MustCompile(`^--(kube-api-qps|kube-api-burst|max-requests-inflight|max-mutating-requests-inflight|concurrent-[a-z-]+-syncs)=(.*)$`)

// sizedFlags picks the sized flags out of a component's command line.
func sizedFlags(args []string) map[string]string {
	out := map[string]string{}
	for _, a := range args {
		if m := sizedFlag.FindStringSubmatch(a); m != nil {
			out[m[1]] = m[2]
		}
	}
	return out
}

// upLine matches the progress lines of `winkube up` benchscale reads.
var (
	nodesReadyLine   = regexp.MustCompile(`✓ (\d+) nodes Ready\s+(\S+)$`)
	clusterReadyLine = regexp.MustCompile(`^Cluster ready in (\S+)\.$`)
)

const runningLine = "The cluster is running."

// upTimes are the durations `winkube up` reports.
type upTimes struct {
	nodesReady   time.Duration
	clusterReady time.Duration
}

// parseUpLine records a duration from one line of `winkube up`'s output.
func (t *upTimes) parseUpLine(line string) error {
	line = strings.TrimSpace(line)
	if m := nodesReadyLine.FindStringSubmatch(line); m != nil {
		d, err := time.ParseDuration(m[2])
		if err != nil {
			return fmt.Errorf("winkube up's line %q: %w", line, err)
		}
		t.nodesReady = d
	}
	if m := clusterReadyLine.FindStringSubmatch(line); m != nil {
		d, err := time.ParseDuration(m[1])
		if err != nil {
			return fmt.Errorf("winkube up's line %q: %w", line, err)
		}
		t.clusterReady = d
	}
	return nil
}

// winkubeUp is a running `winkube up`.
type winkubeUp struct {
	cmd     *exec.Cmd
	dataDir string
	logPath string
	times   upTimes
	exited  chan struct{}
	procs   []proc // winkube and its control-plane children
	// pprofAddr is winkube's --pprof-addr, set with -profile.
	pprofAddr string
}

// startUp runs `winkube up` with cfg in dir, env added to benchscale's
// environment, and waits until it says the cluster is running.
func startUp(ctx context.Context, o *options, dir string, cfg []byte, env []string) (*winkubeUp, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		return nil, err
	}
	u := &winkubeUp{dataDir: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "up.log"), exited: make(chan struct{})}
	logFile, err := os.Create(u.logPath)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	args := []string{"up", "--config", cfgPath, "--data-dir", u.dataDir, "--port", "0", "--wait", o.timeout.String()}
	if o.profile != "" {
		if u.pprofAddr, err = freeLoopbackAddr(); err != nil {
			logFile.Close()
			return nil, err
		}
		args = append(args, "--pprof-addr", u.pprofAddr)
	}
	u.cmd = exec.Command(o.winkube, args...)
	u.cmd.Env = append(os.Environ(), env...)
	u.cmd.Stdout, u.cmd.Stderr = pw, pw
	if err := startOwned(u.cmd); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s up: %w", o.winkube, err)
	}
	writePID(o.work, u.cmd.Process.Pid)
	go func() {
		_ = u.cmd.Wait()
		pw.Close()
		close(u.exited)
	}()
	running := make(chan struct{})
	var parseErr error
	var once sync.Once
	go func() {
		defer logFile.Close()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if err := u.times.parseUpLine(line); err != nil && parseErr == nil {
				parseErr = err
			}
			if strings.HasPrefix(strings.TrimSpace(line), runningLine) {
				once.Do(func() { close(running) })
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case <-running:
	case <-u.exited:
		return nil, fmt.Errorf("winkube up exited before the cluster ran; %s ends:\n%s", u.logPath, tail(u.logPath, 15))
	case <-time.After(o.timeout + 30*time.Second):
		u.stop()
		return nil, fmt.Errorf("winkube up did not report a running cluster within %s (raise TIMEOUT); see %s", o.timeout, u.logPath)
	case <-ctx.Done():
		u.stop()
		return nil, ctx.Err()
	}
	if parseErr != nil {
		u.stop()
		return nil, parseErr
	}
	children, err := componentChildren(u.cmd.Process.Pid)
	if err != nil || len(children) != len(components) {
		u.stop()
		return nil, fmt.Errorf("finding the control plane's processes under PID %d: found %v (%v)", u.cmd.Process.Pid, children, err)
	}
	u.procs = append([]proc{{name: "winkube", pid: u.cmd.Process.Pid}}, children...)
	return u, nil
}

func (u *winkubeUp) kubeconfig() string { return filepath.Join(u.dataDir, "kubeconfig") }

// sizing is how winkube sized its control plane for the nodes: the flags
// it set on each component and the components' GOGC. The kwok setup's
// winkube has no nodes of its own, so it would size nothing; both are
// copied to it so that both setups run the same control plane.
type sizing struct {
	flags map[string]map[string]string // component → flag → value
	gogc  string                       // the components' GOGC; "" if unset
}

// sizing reads the sized flags from each component's command line and
// its GOGC from its environment.
func (u *winkubeUp) sizing() (sizing, error) {
	cp := sizing{flags: map[string]map[string]string{}}
	for i, p := range u.procs[1:] {
		args, err := cmdline(p.pid)
		if err != nil {
			return sizing{}, fmt.Errorf("reading %s's command line: %w", p.name, err)
		}
		if f := sizedFlags(args); len(f) > 0 {
			cp.flags[p.name] = f
		}
		env, err := environ(p.pid)
		if err != nil {
			return sizing{}, fmt.Errorf("reading %s's environment: %w", p.name, err)
		}
		gogc := env["GOGC"]
		if i > 0 && gogc != cp.gogc {
			return sizing{}, fmt.Errorf("the components run with different GOGC (%q, %s's %q)", cp.gogc, p.name, gogc)
		}
		cp.gogc = gogc
	}
	return cp, nil
}

// env is the environment the kwok setup's `winkube up` gets, which its
// components inherit (winkube does not set a GOGC of its own when one is
// set). winkube itself, which runs etcd, gets it too: the same value as
// the winkube setup's winkube, Go's default, from 200 nodes up.
func (cp sizing) env() []string {
	if cp.gogc == "" {
		return nil
	}
	return []string{"GOGC=" + cp.gogc}
}

// describe lists the sized settings, or says there are none.
func (cp sizing) describe() string {
	s := describeFlags(cp.flags)
	if cp.gogc != "" {
		s = "GOGC=" + cp.gogc + "; " + s
	}
	return s
}

// stop asks winkube to stop (it stops its components in order) and kills
// it if it has not within a minute; the components die with it.
func (u *winkubeUp) stop() {
	stopProcess(u.cmd, u.exited, time.Minute)
}

// startOwned starts cmd in its own process group, so a Ctrl-C reaches only
// benchscale, which then stops everything in order; and it dies with
// benchscale even if benchscale is killed.
func startOwned(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	// Pdeathsig fires when the forking thread exits; keep the fork on a
	// thread the runtime will not retire.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Start()
}

// stopProcess sends SIGTERM, then SIGKILL after grace.
func stopProcess(cmd *exec.Cmd, exited <-chan struct{}, grace time.Duration) {
	select {
	case <-exited:
		return
	default:
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// writePID records a started process in <work>/pids, so the script's exit
// trap can stop whatever benchscale could not.
func writePID(work string, pid int) {
	f, err := os.OpenFile(filepath.Join(work, "pids"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, pid)
}

// tail is the last n lines of a log, indented.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "  (" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
