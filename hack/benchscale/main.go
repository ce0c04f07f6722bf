// Command benchscale measures winkube at scale and kwok beside it.
//
// It runs `winkube up` with N emulated nodes (half Windows Server 2019, a
// quarter each 2022 and Linux), creates M pods in plain Deployments placed
// like the README's examples, and measures how long the nodes take to be
// Ready, the pods to be Running and to be deleted, the CPU each process
// uses while idle and while working, and their memory. Then it runs
// `winkube up` again without nodes, with the same control-plane flags, and
// repeats everything with kwok managing N fake nodes of the same OS, build
// and taints. It prints both side by side on stdout; progress goes to
// stderr. hack/bench-scale.sh builds winkube, installs kwok and runs it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

type options struct {
	winkube, kwok, kwokStages, work, jsonOut string
	profile                                  string
	kwokArgs                                 []string
	nodes, pods                              int
	pool, image                              string   // all pods on this pool; this image instead of images'
	command                                  []string // the container's command, if set
	skipKwok                                 bool
	idle, settle, timeout                    time.Duration
}

func main() {
	o := &options{}
	flag.StringVar(&o.winkube, "winkube", "", "winkube binary")
	flag.StringVar(&o.kwok, "kwok", "", "kwok binary")
	flag.StringVar(&o.kwokStages, "kwok-stages", "", "kwok's kustomize/stage directory (in its module)")
	flag.StringVar(&o.work, "work", "", "scratch directory for data dirs and logs")
	flag.StringVar(&o.jsonOut, "json", "", "also write the results as JSON to this file")
	flag.Func("kwok-args", "extra kwok flags, space-separated (such as --v=WARN)", func(s string) error {
		o.kwokArgs = append(o.kwokArgs, strings.Fields(s)...)
		return nil
	})
	flag.StringVar(&o.profile, "profile", "", "write CPU profiles of winkube, kube-apiserver and kube-scheduler while idle with the nodes, while the pods start and while they are deleted, and winkube's heap with the pods Running, to this directory (winkube run only)")
	flag.StringVar(&o.pool, "pool", "", "put all pods on this pool ("+strings.Join(poolNames(), ", ")+") in one Deployment, instead of spreading them over every pool")
	flag.StringVar(&o.image, "image", "", "the workload's image, instead of each pool's web server")
	flag.Func("command", "the container's command: a JSON array, or words split at spaces (default: the image's entrypoint)", func(s string) error {
		cmd, err := parseCommand(s)
		o.command = cmd
		return err
	})
	flag.BoolVar(&o.skipKwok, "skip-kwok", false, "measure winkube only (the kwok column stays empty)")
	flag.IntVar(&o.nodes, "nodes", 1000, "emulated nodes (at least 4)")
	flag.IntVar(&o.pods, "pods", 10000, "pods of the workload (at least 4)")
	flag.DurationVar(&o.idle, "idle", 30*time.Second, "length of each idle CPU measurement")
	flag.DurationVar(&o.settle, "settle", 15*time.Second, "pause before each idle measurement, after the add-ons are Ready (startup and pod churn die down)")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Minute, "limit of each wait (cluster up, nodes, pods)")
	flag.Parse()
	// client-go's throttling notes would interleave with the progress lines.
	klog.LogToStderr(false)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintf(os.Stderr, "benchscale: %v\n", err)
		os.Exit(1)
	}
}

func (o *options) validate() error {
	var errs []error
	if o.winkube == "" || o.work == "" || !o.skipKwok && (o.kwok == "" || o.kwokStages == "") {
		errs = append(errs, errors.New("-winkube, -work, and unless -skip-kwok -kwok and -kwok-stages, are required (run hack/bench-scale.sh)"))
	}
	if o.nodes < 4 {
		errs = append(errs, fmt.Errorf("NODES (-nodes) %d: at least 4, one for each pool", o.nodes))
	}
	if o.pods < 4 {
		errs = append(errs, fmt.Errorf("PODS (-pods) %d: at least 4, one for each pool", o.pods))
	}
	if o.pool != "" && !slices.Contains(poolNames(), o.pool) {
		errs = append(errs, fmt.Errorf("POOL (-pool) %q: not one of %s", o.pool, strings.Join(poolNames(), ", ")))
	}
	if _, err := network(o.nodes); err != nil {
		errs = append(errs, err)
	}
	if o.idle <= 0 || o.timeout <= 0 || o.settle < 0 {
		errs = append(errs, errors.New("-idle and -timeout must be positive, -settle not negative"))
	}
	return errors.Join(errs...)
}

func run(ctx context.Context, o *options) error {
	if err := o.validate(); err != nil {
		return err
	}
	ps := pools(o.nodes, o.pods, o.pool)
	progress("benchscale: %d nodes (%d × Windows Server 2019, %d × 2022, %d × Linux), %d pods (%s), %d CPUs",
		o.nodes, ps[0].count, ps[1].count, ps[2].count, o.pods, describePods(ps), runtime.NumCPU())
	wk, cp, err := benchWinkube(ctx, o, ps)
	if err != nil {
		return fmt.Errorf("winkube: %w", err)
	}
	var kw result
	if !o.skipKwok {
		if kw, err = benchKwok(ctx, o, ps, cp); err != nil {
			return fmt.Errorf("kwok: %w", err)
		}
	}
	if err := writeTable(os.Stdout, rows(o.nodes, o.pods, wk, kw)); err != nil {
		return err
	}
	writeNotes(os.Stdout, o, cp)
	if o.jsonOut != "" {
		return writeJSON(o, wk, kw, cp)
	}
	return nil
}

// benchWinkube measures `winkube up` with the pools' nodes and returns how
// winkube sized the control plane for them.
func benchWinkube(ctx context.Context, o *options, ps []pool) (result, sizing, error) {
	progress("== winkube: winkube up with %d nodes", o.nodes)
	cfg, err := clusterConfig("bench-winkube", o.nodes, ps, nil)
	if err != nil {
		return result{}, sizing{}, err
	}
	up, err := startUp(ctx, o, filepath.Join(o.work, "winkube"), cfg, nil)
	if err != nil {
		return result{}, sizing{}, err
	}
	defer stopping("winkube up", up.stop)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go cancelOnExit(cancel, up.exited, "winkube up exited; see "+up.logPath)

	r := result{ClusterReady: up.times.clusterReady.Seconds(), NodesReady: up.times.nodesReady.Seconds()}
	progress("   cluster ready in %s, %d nodes Ready in %s", up.times.clusterReady, o.nodes, up.times.nodesReady)
	cp, err := up.sizing()
	if err != nil {
		return result{}, sizing{}, err
	}
	client, w, err := connect(ctx, up.kubeconfig())
	if err != nil {
		return result{}, sizing{}, err
	}
	if c := w.counts(); c.ready != o.nodes {
		return result{}, sizing{}, fmt.Errorf("winkube up reported the cluster ready with %s, want %d nodes", c, o.nodes)
	}
	prof, err := profilerFor(o, "", up)
	if err != nil {
		return result{}, sizing{}, err
	}
	err = measureWorkload(ctx, o, client, w, up.procs, ps, prof, &r)
	if prof != nil && err == nil {
		progress("   profiles in %s (such as: go tool pprof -top %s)", o.profile, filepath.Join(o.profile, "running-kube-scheduler-cpu-*.pb.gz"))
	}
	return r, cp, err
}

// benchKwok measures kwok's fake nodes on a winkube control plane without
// emulated nodes, sized as the winkube setup's was.
func benchKwok(ctx context.Context, o *options, ps []pool, cp sizing) (result, error) {
	progress("== kwok: winkube up without nodes, then kwok with %d nodes", o.nodes)
	cfg, err := clusterConfig("bench-kwok", o.nodes, nil, cp.flags)
	if err != nil {
		return result{}, err
	}
	dir := filepath.Join(o.work, "kwok")
	up, err := startUp(ctx, o, dir, cfg, cp.env())
	if err != nil {
		return result{}, err
	}
	defer stopping("winkube up", up.stop)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go cancelOnExit(cancel, up.exited, "winkube up exited; see "+up.logPath)

	r := result{ClusterReady: up.times.clusterReady.Seconds()}
	progress("   control plane ready in %s", up.times.clusterReady)
	client, w, err := connect(ctx, up.kubeconfig())
	if err != nil {
		return result{}, err
	}
	host := w.counts().ready // 0: the control plane runs no nodes of its own
	start := time.Now()
	k, err := startKwok(o, dir, up.kubeconfig())
	if err != nil {
		return result{}, err
	}
	defer stopping("kwok", k.stop)
	go cancelOnExit(cancel, k.exited, "kwok exited; see "+filepath.Join(dir, "kwok.log"))
	if err := createNodes(ctx, client, kwokNodes(ps)); err != nil {
		return result{}, err
	}
	ready, err := w.waitFor(ctx, os.Stderr, o.timeout, fmt.Sprintf("%d kwok nodes Ready", o.nodes),
		func(c counts) bool { return c.ready >= host+o.nodes })
	if err != nil {
		return result{}, err
	}
	r.NodesReady = ready.Sub(start).Seconds()
	progress("   %d nodes Ready in %s", o.nodes, ready.Sub(start).Round(time.Millisecond))
	procs := append(append([]proc(nil), up.procs...), proc{name: "kwok", pid: k.cmd.Process.Pid})
	// The same processes of the kwok setup, beside the winkube setup's:
	// the control plane's work per pod compared.
	prof, err := profilerFor(o, "kwok", up)
	if err != nil {
		return result{}, err
	}
	err = measureWorkload(ctx, o, client, w, procs, ps, prof, &r)
	return r, err
}

// measureWorkload is the part both setups share once their nodes are
// Ready: idle CPU, the pods created until Running, idle CPU and memory
// with the pods, and the pods deleted until gone.
func measureWorkload(ctx context.Context, o *options, client kubernetes.Interface, w *watcher, procs []proc, ps []pool, prof *profiler, r *result) error {
	if err := waitAddons(ctx, client, os.Stderr, o.timeout); err != nil {
		return err
	}
	idle, err := idleCPU(ctx, o, procs, prof, "idle")
	if err != nil {
		return err
	}
	r.IdleNodesCPU = cpuPercent(idle[0], idle[1])
	progress("   idle with %d nodes: %.1f %% of a core in all", o.nodes, sum(r.IdleNodesCPU))

	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", namespace, err)
	}
	before, err := takeSample(procs)
	if err != nil {
		return err
	}
	written, err := apiWrites(ctx, client)
	if err != nil {
		return err
	}
	stopProfile := prof.cpu(ctx, "running")
	deps := deployments(ps, o.image, o.command)
	for _, d := range deps {
		if _, err := client.AppsV1().Deployments(namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating Deployment %s: %w", d.Name, err)
		}
	}
	running, err := w.waitFor(ctx, os.Stderr, o.timeout, fmt.Sprintf("%d pods Running", o.pods),
		func(c counts) bool { return c.running >= o.pods })
	if err != nil {
		return err
	}
	after, err := takeSample(procs)
	if err != nil {
		return err
	}
	if err := errors.Join(stopProfile(), prof.heap(ctx, "running")); err != nil {
		return err
	}
	r.PodsRunning = running.Sub(before.at).Seconds()
	r.CreateCPU = cpuSeconds(before, after)
	if r.CreateWrites, err = writesSince(ctx, client, written, o.pods); err != nil {
		return err
	}
	progress("   %d pods Running in %s", o.pods, running.Sub(before.at).Round(time.Millisecond))

	idle, err = idleCPU(ctx, o, procs, nil, "")
	if err != nil {
		return err
	}
	r.IdlePodsCPU = cpuPercent(idle[0], idle[1])
	r.RSS = mebibytes(idle[1], false)
	progress("   idle with %d pods: %.1f %% of a core in all", o.pods, sum(r.IdlePodsCPU))

	before, err = takeSample(procs)
	if err != nil {
		return err
	}
	if written, err = apiWrites(ctx, client); err != nil {
		return err
	}
	stopProfile = prof.cpu(ctx, "deleting")
	for _, d := range deps {
		err := client.AppsV1().Deployments(namespace).Delete(ctx, d.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
		if err != nil {
			return fmt.Errorf("deleting Deployment %s: %w", d.Name, err)
		}
	}
	gone, err := w.waitFor(ctx, os.Stderr, o.timeout, fmt.Sprintf("%d pods deleted", o.pods),
		func(c counts) bool { return c.pods == 0 })
	if err != nil {
		return err
	}
	after, err = takeSample(procs)
	if err != nil {
		return err
	}
	if err := stopProfile(); err != nil {
		return err
	}
	r.PodsDeleted = gone.Sub(before.at).Seconds()
	r.DeleteCPU = cpuSeconds(before, after)
	if r.DeleteWrites, err = writesSince(ctx, client, written, o.pods); err != nil {
		return err
	}
	r.PeakRSS = mebibytes(after, true)
	progress("   %d pods deleted in %s", o.pods, gone.Sub(before.at).Round(time.Millisecond))
	return nil
}

// idleCPU waits o.settle, then samples the processes o.idle apart, with
// prof profiling them meanwhile as phase.
func idleCPU(ctx context.Context, o *options, procs []proc, prof *profiler, phase string) ([2]sample, error) {
	if err := sleep(ctx, o.settle); err != nil {
		return [2]sample{}, err
	}
	from, err := takeSample(procs)
	if err != nil {
		return [2]sample{}, err
	}
	stopProfile := prof.cpu(ctx, phase)
	if err := sleep(ctx, o.idle); err != nil {
		return [2]sample{}, errors.Join(err, stopProfile())
	}
	to, err := takeSample(procs)
	return [2]sample{from, to}, errors.Join(err, stopProfile())
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-time.After(d):
		return nil
	}
}

// connect opens a client with the node agent's rate limits and starts
// watching nodes and the workload's pods.
func connect(ctx context.Context, kubeconfig string) (kubernetes.Interface, *watcher, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	w, err := startWatcher(ctx, client)
	return client, w, err
}

func cancelOnExit(cancel context.CancelCauseFunc, exited <-chan struct{}, why string) {
	<-exited
	cancel(errors.New(why))
}

func stopping(what string, stop func()) {
	progress("   stopping %s", what)
	stop()
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// parseCommand reads COMMAND: a JSON array of strings, or words split at
// spaces.
func parseCommand(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") {
		return strings.Fields(s), nil
	}
	var cmd []string
	if err := json.Unmarshal([]byte(s), &cmd); err != nil {
		return nil, fmt.Errorf("COMMAND (-command) %q: not a JSON array of strings: %w", s, err)
	}
	return cmd, nil
}
