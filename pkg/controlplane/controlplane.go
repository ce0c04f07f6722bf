// Package controlplane runs a real Kubernetes control plane on one Linux
// machine: etcd embedded in this process, and kube-apiserver, kube-scheduler
// and kube-controller-manager from the upstream Go modules, each in a child
// process of this same binary (see RunComponent). Everything listens on
// 127.0.0.1 only, and all state lives in Options.DataDir, so starting again
// on the same directory resumes the same cluster.
package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

const (
	// readyTimeout bounds Start's wait for the apiserver, and then the wait for
	// kube-scheduler, kube-controller-manager and the default service account.
	readyTimeout = 5 * time.Minute
	// stopTimeout bounds Close, SIGKILLs included.
	stopTimeout = 10 * time.Second
)

// ControlPlane is a running control plane. Close it to stop every part.
type ControlPlane struct {
	l        *layout
	lock     *os.File
	creds    *credentials
	restCfg  *rest.Config
	health   *http.Client
	etcd     *embed.Etcd
	egress   *egressProxy // nil without Options.NodeDialer
	children []*child     // in start order, parallel to components; a restart replaces one under mu
	mu       sync.Mutex   // guards children once the supervisors run
	restarts restartPolicy
	disk     diskPolicy

	ready    chan struct{}
	errc     chan error // buffered: holds the first fatal error
	closing  chan struct{}
	cancel   context.CancelFunc // ends background waits
	wg       sync.WaitGroup     // background goroutines Close waits for
	failOnce sync.Once

	closeOnce sync.Once
	closeErr  error
}

// Start starts etcd and every component and returns once all processes are
// started (the apiserver is ready by then; the others follow). Ready closes
// when the cluster accepts pods; Err delivers the first fatal error. Cancelling
// ctx, before or after Start returns, stops the control plane as Close does.
func Start(ctx context.Context, o Options) (*ControlPlane, error) {
	o.Default()
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("invalid control plane options: %w", err)
	}
	if err := checkFlags(o.Executable, o.Flags); err != nil {
		return nil, fmt.Errorf("invalid control plane flags: %w", err)
	}
	bg, cancel := context.WithCancel(context.Background())
	c := &ControlPlane{
		l:        &layout{opts: o, ports: map[string]int{}},
		ready:    make(chan struct{}),
		errc:     make(chan error, 1),
		closing:  make(chan struct{}),
		cancel:   cancel,
		restarts: restarts,
		disk:     disk,
	}
	if err := c.start(ctx, bg); err != nil {
		c.Close()
		return nil, err
	}
	go func() {
		select {
		case <-ctx.Done():
			c.Close()
		case <-c.closing:
		}
	}()
	return c, nil
}

func (c *ControlPlane) start(ctx, bg context.Context) error {
	if err := c.prepareDataDir(); err != nil {
		return err
	}
	// A nearly full disk is refused before etcd writes, and watched after.
	if err := checkDiskSpace(c.l.opts.DataDir, c.disk.minFree, false); err != nil {
		return err
	}
	c.wg.Add(1)
	go c.watchDiskSpace()
	if err := assignPorts(c.l); err != nil {
		return err
	}
	if err := c.step("certificates", c.writeCertificates); err != nil {
		return err
	}
	if err := c.step("etcd", func() error { return c.startEtcd(ctx) }); err != nil {
		return err
	}
	if c.l.opts.NodeDialer != nil {
		egress, err := startEgressProxy(c.l)
		if err != nil {
			return err
		}
		c.egress = egress
	}
	// The others need a ready apiserver (see components), so wait for it here.
	api := components[0]
	if err := c.step(api.name, func() error { return c.startAndWait(ctx, api) }); err != nil {
		return err
	}
	started := time.Now()
	if err := createControllerAccounts(ctx, c.restCfg); err != nil {
		return fmt.Errorf("controllers' service accounts: %w", err)
	}
	for _, comp := range components[1:] {
		if _, err := c.startComponent(comp); err != nil {
			return err
		}
	}
	c.wg.Add(1)
	go c.awaitReady(bg, started)
	return nil
}

// prepareDataDir creates the data dir, locks it, then creates the rest: the
// lock comes first so a second instance touches nothing.
func (c *ControlPlane) prepareDataDir() error {
	dir := c.l.opts.DataDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("data dir %s is not writable: %w", dir, err)
	}
	lock, err := lockDataDir(c.l.lockFile())
	if err != nil {
		return err
	}
	c.lock = lock
	for _, sub := range []string{"pki", "kubeconfigs", "logs"} {
		if err := os.MkdirAll(c.l.path(sub), 0o700); err != nil {
			return fmt.Errorf("data dir %s is not writable: %w", dir, err)
		}
	}
	return nil
}

// step runs one start-up step and reports it to Options.Progress.
func (c *ControlPlane) step(name string, run func() error) error {
	began := time.Now()
	if err := run(); err != nil {
		return err
	}
	c.progress(name, began)
	return nil
}

func (c *ControlPlane) progress(name string, began time.Time) {
	if c.l.opts.Progress != nil {
		c.l.opts.Progress(name, time.Since(began))
	}
}

func (c *ControlPlane) writeCertificates() error {
	creds, err := writeCertificates(c.l)
	if err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	c.creds = creds
	c.restCfg = &rest.Config{
		Host: c.URL(),
		TLSClientConfig: rest.TLSClientConfig{
			CAData: creds.caPEM, CertData: creds.admin.CertPEM, KeyData: creds.admin.KeyPEM,
		},
	}
	c.health, err = healthClient(creds)
	return err
}

func (c *ControlPlane) startEtcd(ctx context.Context) error {
	e, err := startEtcd(ctx, c.l)
	if err != nil {
		return err
	}
	c.etcd = e
	c.wg.Add(1)
	go c.watchEtcd()
	return nil
}

func (c *ControlPlane) startComponent(comp component) (*child, error) {
	ch, err := startChild(c.l.opts.Executable, comp.name, componentArgs(c.l, comp), componentEnv(c.l.opts.Nodes), c.l.logFile(comp.name), comp.grace, false)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.children = append(c.children, ch)
	i := len(c.children) - 1
	c.mu.Unlock()
	c.wg.Add(1)
	go c.superviseChild(i, comp, ch)
	return ch, nil
}

// childAt is the i-th component's current process.
func (c *ControlPlane) childAt(i int) *child {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.children[i]
}

func (c *ControlPlane) startAndWait(ctx context.Context, comp component) error {
	ch, err := c.startComponent(comp)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	return c.waitHealthy(ctx, comp, ch)
}

// waitHealthy polls the component's health endpoint until it answers 200,
// failing fast, with the end of its log, if the child exits meanwhile.
func (c *ControlPlane) waitHealthy(ctx context.Context, comp component, ch *child) error {
	err := poll(ctx, ch.exited, httpOK(c.health, c.l.httpsURL(comp.name)+comp.health))
	if errors.Is(err, errAborted) {
		return ch.exitError()
	}
	if err != nil {
		return fmt.Errorf("wait for %s %s: %w", comp.name, comp.health, err)
	}
	return nil
}

// awaitReady waits, after Start returned, for the remaining components and
// for the "default" service account, then closes Ready. The ServiceAccount
// admission plugin rejects pods in a namespace until kube-controller-manager
// has created that namespace's default service account, so "ready" means
// "pods can be created in namespace default".
func (c *ControlPlane) awaitReady(bg context.Context, started time.Time) {
	defer c.wg.Done()
	ctx, cancel := context.WithTimeout(bg, readyTimeout)
	defer cancel()
	for i, comp := range components[1:] {
		if err := c.waitHealthy(ctx, comp, c.childAt(i+1)); err != nil {
			c.failUnlessClosing(err)
			return
		}
		c.progress(comp.name, started)
	}
	client, err := kubernetes.NewForConfig(c.restCfg)
	if err == nil {
		err = poll(ctx, c.closing, func(ctx context.Context) error {
			_, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
			return err
		})
	}
	if err != nil {
		c.failUnlessClosing(fmt.Errorf("wait for service account default/default: %w", err))
		return
	}
	close(c.ready)
}

func (c *ControlPlane) watchEtcd() {
	defer c.wg.Done()
	select {
	case err := <-c.etcd.Err():
		c.failUnlessClosing(fmt.Errorf("etcd failed: %v (see %s)", err, c.l.logFile("etcd")))
	case <-c.etcd.Server.StopNotify():
		c.failUnlessClosing(fmt.Errorf("etcd stopped (see %s)", c.l.logFile("etcd")))
	case <-c.closing:
	}
}

// failUnlessClosing records err as the first fatal error, unless Close has
// begun: then exits and cancelled waits are expected.
func (c *ControlPlane) failUnlessClosing(err error) {
	select {
	case <-c.closing:
		return
	default:
	}
	c.failOnce.Do(func() { c.errc <- err })
}

// Close stops kube-controller-manager, kube-scheduler and kube-apiserver in
// that order (SIGTERM, then SIGKILL after a grace period), then etcd, and
// releases the data dir, all within stopTimeout. It is safe to call more than
// once and from several goroutines.
func (c *ControlPlane) Close() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		c.cancel()
		deadline := time.Now().Add(stopTimeout)
		// closing is closed: no supervisor starts a child after this.
		c.mu.Lock()
		children := append([]*child(nil), c.children...)
		c.mu.Unlock()
		for i := len(children) - 1; i >= 0; i-- {
			children[i].stop(deadline)
		}
		if c.egress != nil {
			c.egress.close()
		}
		if c.etcd != nil {
			c.closeErr = closeEtcd(c.etcd, time.Until(deadline))
		}
		c.wg.Wait()
		if c.health != nil {
			c.health.CloseIdleConnections()
		}
		if c.lock != nil {
			c.lock.Close() // releases the flock
		}
	})
	return c.closeErr
}

// closeEtcd gives etcd until the deadline; past it, the process is exiting
// anyway or the caller has a bigger problem than a slow etcd.
func closeEtcd(e *embed.Etcd, within time.Duration) error {
	done := make(chan struct{})
	go func() {
		e.Close()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-time.After(max(within, time.Second)):
		return fmt.Errorf("etcd did not stop within %s", max(within, time.Second))
	}
}

// Ready is closed once every component is healthy and pods can be created.
func (c *ControlPlane) Ready() <-chan struct{} { return c.ready }

// Err delivers the first fatal error after Start: a component exited, etcd
// failed, or readiness timed out. It is never closed.
func (c *ControlPlane) Err() <-chan error { return c.errc }

// KubeconfigPath is the admin kubeconfig, <data-dir>/kubeconfig.
func (c *ControlPlane) KubeconfigPath() string { return c.l.adminKubeconfig() }

// RESTConfig returns a fresh copy of the admin client configuration.
func (c *ControlPlane) RESTConfig() *rest.Config { return rest.CopyConfig(c.restCfg) }

// URL is the apiserver's address, https://127.0.0.1:<port>.
func (c *ControlPlane) URL() string { return c.l.httpsURL(apiserverName) }

// PIDs maps each component child process to its PID. etcd runs in this
// process and is not listed.
func (c *ControlPlane) PIDs() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	pids := make(map[string]int, len(c.children))
	for _, ch := range c.children {
		pids[ch.name] = ch.pid()
	}
	return pids
}
