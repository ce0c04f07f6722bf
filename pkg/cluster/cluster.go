// Package cluster runs a whole winkube cluster on this machine: the embedded
// control plane and the emulated node agent, started and stopped in order.
// It is what `winkube up` does, kept out of the command so tests can use it.
package cluster

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/metrics"
	"github.com/winkube/winkube/pkg/node"
)

// Options say which cluster to run and where.
type Options struct {
	ConfigFile string        // cluster config; empty: the data dir's saved config, else the default cluster
	Name       string        // cluster name recorded in the data dir; empty: none recorded
	DataDir    string        // empty: ~/.winkube/default
	Port       int           // kube-apiserver port; 0 picks a free one
	Timeout    time.Duration // how long to wait for readiness
	Out        io.Writer     // progress lines
	// Webhook runs the admission webhook in-process and registers it.
	Webhook bool
	// GMSA installs the GMSACredentialSpec CRD and runs the windows-gmsa
	// webhook in-process, registered with the API server.
	GMSA bool
	// Images answers image platforms for the nodes and the webhook; nil is
	// the built-in catalog.
	Images imageinfo.Resolver
	// UnknownImages is what the nodes' pulls do with an image nobody can
	// answer for (node.Options.UnknownImages).
	UnknownImages string
	// Apply are manifest paths for ApplyAndReport; Up reads and checks
	// them before it starts anything.
	Apply []string
}

// Cluster is a running cluster.
type Cluster struct {
	Config  *v1alpha1.Cluster
	DataDir string
	cp      *controlplane.ControlPlane
	agent   *node.Agent
	// kubelets is the agent once it runs, for the apiserver's calls to the
	// nodes (kubectl logs); the egress proxy reads it from its own goroutines.
	kubelets atomic.Pointer[node.Agent]
	// metricsAPI answers the apiserver's calls to metrics.k8s.io, which
	// also arrive through the egress proxy.
	metricsAPI atomic.Pointer[metrics.Server]
	services   []service
	dnsAddr    string
	webhookURL string // empty without Options.Webhook
	gmsaURL    string // empty without Options.GMSA
	manifests  *Manifests
	pools      *poolPlan
	out        io.Writer
	// When the control plane and the nodes began to start, for their
	// progress lines, which come after other steps.
	cpStarted, nodesStarted time.Time
	// nodesReady: waitNodes has seen every node Ready (a large cluster
	// waits for them before its add-ons, see parallelAddons).
	nodesReady bool
}

// savedConfig is the config of the last `up` in a data dir, so that a later
// `up` without --config resumes the same pools.
const savedConfig = datadir.ConfigFile

// layersDir, in the data dir, keeps the files running containers wrote
// across a stop (node.Options.LayerDir).
const layersDir = "layers"

// Up checks its inputs (data dir, config, Options.Apply), then starts the
// control plane, waits for it, starts the nodes and waits for them to be
// Ready. On error everything started is stopped, and a data dir that this
// first start created is removed again.
func Up(ctx context.Context, o Options) (*Cluster, error) {
	start := time.Now()
	in, err := prepare(o)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Config: in.cfg, DataDir: in.dir, out: syncWriter(o.Out), manifests: in.manifests, pools: in.pools}
	name := in.cfg.Name
	if o.Name != "" {
		name = o.Name
	}
	c.say("Starting cluster %q in %s: %s%s", name, in.dir, describe(in.cfg), resumedNote(in.resumed))
	if in.cfg.KubernetesVersion != v1alpha1.DefaultKubernetesVersion {
		c.say("Note: kubernetesVersion %s is used by `winkube plan`; the emulated cluster runs %s", in.cfg.KubernetesVersion, v1alpha1.DefaultKubernetesVersion)
	}
	if err := c.start(ctx, o); err != nil {
		return nil, c.abort(ctx, err, in)
	}
	c.say("Cluster ready in %s.", round(time.Since(start)))
	c.say("Kubeconfig: %s\n  export KUBECONFIG=%s", c.Kubeconfig(), c.Kubeconfig())
	c.say("Cluster DNS: %s (for example: dig @%s -p %s kubernetes.default.svc.cluster.local)", c.dnsAddr, dnsHost(c.dnsAddr), dnsPort(c.dnsAddr))
	if c.webhookURL != "" {
		c.say("Admission webhook: %s (places pods by their images' OS and Windows build; unregistered on stop)", c.webhookURL)
	}
	if c.gmsaURL != "" {
		c.say("GMSA webhook: %s (resolves gmsaCredentialSpecName, checks the service account may `use` the spec; unregistered on stop)", c.gmsaURL)
	}
	return c, nil
}

// start starts every part in order; the caller stops them on error. Once
// kube-apiserver is ready, the services, the nodes and the add-ons start
// while kube-scheduler and kube-controller-manager come up: none of them
// needs those two to start, and a node waits for its pod CIDR from the
// controller-manager anyway.
func (c *Cluster) start(ctx context.Context, o Options) error {
	if err := c.startControlPlane(ctx, o); err != nil {
		return err
	}
	// The data dir is ours now (the control plane holds its lock): a
	// marker left by a `winkube down` that failed is not for this run.
	_ = os.Remove(filepath.Join(c.DataDir, downMarker))
	if err := saveConfig(c.Config, c.DataDir); err != nil {
		return err
	}
	if err := storeImages(c.Config, c.DataDir); err != nil {
		return err
	}
	if o.Name != "" {
		if err := datadir.WriteName(c.DataDir, o.Name); err != nil {
			return err
		}
	}
	logToFile(filepath.Join(c.DataDir, "logs", "winkube.log"))
	client, err := kubernetes.NewForConfig(c.cp.RESTConfig())
	if err != nil {
		return fmt.Errorf("API client: %w", err)
	}
	if err := c.startServices(ctx, client); err != nil {
		return err
	}
	// A killed `up --gmsa` left configurations that fail closed: remove
	// them before anything creates pods.
	c.removeStaleGMSA(ctx)
	if err := c.removeStaleNodes(ctx, client, c.pools); err != nil {
		return err
	}
	if err := c.startNodes(ctx, o); err != nil {
		return err
	}
	if c.Config.NodeCount() > parallelAddons {
		if err := c.waitNodes(ctx, o); err != nil {
			return err
		}
	}
	if err := c.installAddons(ctx); err != nil {
		return err
	}
	if err := c.waitControlPlane(ctx, o); err != nil {
		return err
	}
	if err := c.waitNodes(ctx, o); err != nil {
		return err
	}
	if o.GMSA {
		// After the add-ons: the default service account exists by now,
		// so the dry-run probe that waits for the first call is admitted.
		if err := c.startGMSA(ctx); err != nil {
			return err
		}
	}
	if o.Webhook {
		return c.startWebhook(ctx, client, o.Images)
	}
	c.removeStaleWebhook(ctx)
	return nil
}

// parallelAddons is the largest cluster whose add-ons are installed while
// its nodes come up. The add-ons' DaemonSets put a pod on every node, so in
// a larger cluster they would start a thousand pods while the nodes
// register and wait for their pod CIDRs, all through one kube-apiserver:
// 500 nodes measured Ready in 18.4 s that way and 8.2 s with the add-ons
// installed once they were Ready.
const parallelAddons = 100

func (c *Cluster) startControlPlane(ctx context.Context, o Options) error {
	step := time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{
		DataDir:          c.DataDir,
		ServiceCIDR:      c.Config.Network.ServiceCIDR,
		ClusterCIDR:      c.Config.Network.ClusterCIDR,
		NodeCIDRMaskSize: c.Config.Network.NodeCIDRMaskSize,
		APIServerPort:    o.Port,
		Progress:         func(name string, took time.Duration) { c.done(name, took) },
		Notice:           func(line string) { c.say("! %s", line) },
		NodeDialer:       c.dialNode,
		Nodes:            c.Config.NodeCount(),
		Flags:            c.Config.ControlPlaneFlags(),
	})
	var inUse *controlplane.PortInUseError
	if errors.As(err, &inUse) {
		inUse.Option = "--port"
	}
	if err != nil {
		return err
	}
	c.cp = cp
	c.cpStarted = step
	return nil
}

// waitControlPlane waits until pods can be created: every component
// healthy and the default service account there.
func (c *Cluster) waitControlPlane(ctx context.Context, o Options) error {
	if err := waitReady(ctx, c.cp.Ready(), c.cp.Err(), o.Timeout, "the control plane"); err != nil {
		return err
	}
	c.done("control plane ready", time.Since(c.cpStarted))
	return nil
}

func (c *Cluster) startNodes(ctx context.Context, o Options) error {
	if c.Config.NodeCount() == 0 {
		// A control plane alone is useful for `winkube nodes` from another
		// process and for other node emulators (kwok, in hack/bench-scale.sh).
		c.say("No emulated nodes: every node pool has count 0, so the control plane runs alone.")
		return nil
	}
	c.nodesStarted = time.Now()
	agent, err := node.Start(ctx, node.Options{Config: AgentConfig(c.cp.RESTConfig()), Cluster: c.Config, Progress: indent{c.out}, Images: o.Images, UnknownImages: o.UnknownImages,
		LayerDir: filepath.Join(c.DataDir, layersDir)})
	if err != nil {
		return fmt.Errorf("starting the emulated nodes: %w", err)
	}
	c.agent = agent
	c.kubelets.Store(agent)
	return nil
}

// waitNodes waits until every node started by startNodes is Ready.
func (c *Cluster) waitNodes(ctx context.Context, o Options) error {
	if c.agent == nil || c.nodesReady {
		return nil
	}
	if err := waitReady(ctx, c.agent.Ready(), c.cp.Err(), o.Timeout, "the nodes"); err != nil {
		if notReady := c.agent.NotReady(); len(notReady) > 0 {
			err = fmt.Errorf("%w:\n  %s", err, strings.Join(notReady, "\n  "))
		}
		return err
	}
	c.done(fmt.Sprintf("%d nodes Ready", c.Config.NodeCount()), time.Since(c.nodesStarted))
	c.nodesReady = true
	return nil
}

// dialNode connects kube-apiserver to the metrics API, an emulated node's
// kubelet endpoint, or a pod or Service address of the emulated pod
// network. What none of them answers is refused by the control plane's
// egress proxy unless it is a loopback address: nothing the cluster does
// dials the host's network.
func (c *Cluster) dialNode(ctx context.Context, addr string) (net.Conn, bool, error) {
	if m := c.metricsAPI.Load(); m != nil {
		if conn, ok, err := m.Dial(ctx, addr); ok {
			return conn, ok, err
		}
	}
	agent := c.kubelets.Load()
	if agent == nil {
		return nil, false, nil
	}
	if conn, ok, err := agent.DialKubelet(addr); ok {
		return conn, ok, err
	}
	return agent.DialCluster(ctx, addr)
}

// AgentConfig is the node agent's client config. It clears the rate limits
// so that node.Start sizes them for the nodes it runs (about 1.3 requests/s
// per node for leases and pod transitions, at least 200/400; see
// clientLimits in pkg/node/queue.go): the agent speaks for many kubelets at
// once, and the fixed 200/400 it had held back 1,000 nodes while
// client-go's default 5/s would delay heartbeats and pod status.
func AgentConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 0, 0
	return cfg
}

// Kubeconfig is the admin kubeconfig of the cluster.
func (c *Cluster) Kubeconfig() string { return datadir.Kubeconfig(c.DataDir) }

// ControlPlane gives access to the running control plane (for tests).
func (c *Cluster) ControlPlane() *controlplane.ControlPlane { return c.cp }

// Wait blocks until ctx is cancelled (Ctrl-C) or a part fails, then stops
// everything. A cancelled ctx is a normal stop and returns nil.
func (c *Cluster) Wait(ctx context.Context) error {
	var err error
	select {
	case <-ctx.Done():
	case err = <-c.cp.Err():
		err = fmt.Errorf("control plane failed: %w", err)
	}
	c.Stop()
	return err
}

// Stop stops the nodes, then the control plane. Safe to call twice.
func (c *Cluster) Stop() {
	start := time.Now()
	if c.agent == nil && c.cp == nil && c.services == nil {
		return
	}
	c.say("Stopping...")
	c.stopParts()
	if _, err := os.Stat(filepath.Join(c.DataDir, downMarker)); err == nil {
		c.say("Stopped in %s; winkube down deletes %s.", round(time.Since(start)), c.DataDir)
		return
	}
	c.say("Stopped in %s. State kept in %s.", round(time.Since(start)), c.DataDir)
}

// stopParts stops whatever runs, saying only what goes wrong.
func (c *Cluster) stopParts() {
	if c.agent != nil {
		c.kubelets.Store(nil)
		_ = c.agent.Close()
		c.agent = nil
	}
	c.stopServices()
	if c.cp != nil {
		if err := c.cp.Close(); err != nil {
			c.say("  stopping the control plane: %v", err)
		}
		c.cp = nil
	}
}

func waitReady(ctx context.Context, ready <-chan struct{}, failed <-chan error, timeout time.Duration, what string) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-ready:
		return nil
	case err := <-failed:
		return err
	case <-ctx.Done():
		return fmt.Errorf("interrupted while waiting for %s", what)
	case <-t.C:
		return fmt.Errorf("%s did not become ready within %s (raise --wait)", what, timeout)
	}
}

func loadConfig(file, dir string) (*v1alpha1.Cluster, bool, error) {
	if file != "" {
		cfg, err := v1alpha1.Load(file)
		return cfg, false, err
	}
	saved := filepath.Join(dir, savedConfig)
	if _, err := os.Stat(saved); err == nil {
		cfg, err := v1alpha1.Load(saved)
		return cfg, true, err
	}
	return v1alpha1.DefaultCluster(), false, nil
}

func saveConfig(cfg *v1alpha1.Cluster, dir string) error {
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("saving cluster config: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, savedConfig), data, 0o644); err != nil {
		return fmt.Errorf("saving cluster config: %w", err)
	}
	return nil
}

func describe(cfg *v1alpha1.Cluster) string {
	var parts []string
	for _, p := range cfg.NodePools {
		what := p.OS
		if b, err := p.WindowsBuild(); err == nil && p.IsWindows() {
			what = fmt.Sprintf("windows %s", b.Label())
		}
		parts = append(parts, fmt.Sprintf("%d × %s (%s)", p.Replicas(), p.Name, what))
	}
	return strings.Join(parts, ", ")
}

func resumedNote(resumed bool) string {
	if resumed {
		return " [resuming the saved config]"
	}
	return ""
}

func (c *Cluster) say(format string, args ...any) {
	if c.out != nil {
		fmt.Fprintf(c.out, format+"\n", args...)
	}
}

func (c *Cluster) done(step string, took time.Duration) {
	c.say(" ✓ %-34s %s", step, round(took))
}

func round(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// logToFile sends client-go's klog lines (throttling, watch restarts) to a
// file beside the component logs instead of the user's terminal. Errors
// too: klog copies them to stderr by default, and the requests the node
// agent cancels when it stops would print "Unexpected error when reading
// response body" on every Ctrl-C. Failures users must see reach them as
// progress lines.
func logToFile(path string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	klog.LogToStderr(false)
	klog.SetOutput(f)
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("stderrthreshold", "FATAL")
}

// lockedWriter serialises the progress lines, which the control plane's
// and the node agent's goroutines print while the cluster starts.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func syncWriter(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	return &lockedWriter{w: w}
}

// indent prefixes the node agent's progress lines.
type indent struct{ w io.Writer }

func (i indent) Write(p []byte) (int, error) {
	if i.w == nil {
		return len(p), nil
	}
	lines := strings.SplitAfter(string(p), "\n")
	for _, l := range lines {
		if l == "" {
			continue
		}
		if _, err := io.WriteString(i.w, "   "+l); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
