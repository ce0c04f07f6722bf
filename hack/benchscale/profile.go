package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// profilePiece is the length of one CPU profile. A phase is profiled in
// consecutive pieces (go tool pprof merges them), so a profile never
// outlasts its phase by more than this, and stopping loses at most one.
const profilePiece = 10 * time.Second

// profiler fetches Go profiles of the winkube run's processes: winkube
// itself (the node agent and the embedded etcd, through --pprof-addr),
// kube-apiserver and kube-scheduler (their /debug/pprof, with the admin
// credentials of the kubeconfig).
type profiler struct {
	dir     string
	targets []profileTarget
}

type profileTarget struct {
	name   string
	base   string // URL up to and including /debug/pprof
	client *http.Client
}

// freeLoopbackAddr picks a free port on 127.0.0.1 for winkube's --pprof-addr.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// profilerFor profiles up's processes into the PROFILE dir (sub below
// it), or returns nil when PROFILE is not set.
func profilerFor(o *options, sub string, up *winkubeUp) (*profiler, error) {
	if o.profile == "" {
		return nil, nil
	}
	p, err := newProfiler(filepath.Join(o.profile, sub), up)
	if err != nil {
		return nil, fmt.Errorf("profiling: %w", err)
	}
	return p, nil
}

// newProfiler finds the three processes' profile endpoints.
func newProfiler(dir string, up *winkubeUp) (*profiler, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", up.kubeconfig())
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", up.kubeconfig(), err)
	}
	admin, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	p := &profiler{dir: dir, targets: []profileTarget{
		{name: "winkube", base: "http://" + up.pprofAddr + "/debug/pprof", client: http.DefaultClient},
		{name: "kube-apiserver", base: strings.TrimSuffix(cfg.Host, "/") + "/debug/pprof", client: admin},
	}}
	port, err := securePort(up, "kube-scheduler")
	if err != nil {
		return nil, err
	}
	p.targets = append(p.targets, profileTarget{name: "kube-scheduler", base: "https://127.0.0.1:" + port + "/debug/pprof", client: admin})
	return p, nil
}

// securePort is the --secure-port on the named component's command line.
func securePort(up *winkubeUp, name string) (string, error) {
	for _, p := range up.procs {
		if p.name != name {
			continue
		}
		args, err := cmdline(p.pid)
		if err != nil {
			return "", err
		}
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--secure-port="); ok {
				return v, nil
			}
		}
	}
	return "", fmt.Errorf("no --secure-port on %s's command line", name)
}

// A nil profiler (no -profile) profiles nothing.

// cpu profiles every target in pieces until the returned func is called;
// the func waits for the fetches to end and reports the first error.
func (p *profiler) cpu(ctx context.Context, phase string) func() error {
	if p == nil {
		return func() error { return nil }
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	errs := make([]error, len(p.targets))
	for i, t := range p.targets {
		wg.Go(func() {
			for n := 1; ctx.Err() == nil; n++ {
				path := filepath.Join(p.dir, fmt.Sprintf("%s-%s-cpu-%02d.pb.gz", phase, t.name, n))
				err := t.fetch(ctx, fmt.Sprintf("/profile?seconds=%d", int(profilePiece.Seconds())), path)
				if err != nil && ctx.Err() == nil {
					errs[i] = err
					return
				}
			}
		})
	}
	return func() error {
		cancel()
		wg.Wait()
		return errors.Join(errs...)
	}
}

// heap writes winkube's heap profile (what the node agent and etcd hold).
func (p *profiler) heap(ctx context.Context, phase string) error {
	if p == nil {
		return nil
	}
	t := p.targets[0]
	return t.fetch(ctx, "/heap?gc=1", filepath.Join(p.dir, phase+"-"+t.name+"-heap.pb.gz"))
}

// fetch saves one profile to path. A piece cut short by the phase's end
// is removed: its profile was never written.
func (t profileTarget) fetch(ctx context.Context, query, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.base+query, nil)
	if err != nil {
		return err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return fmt.Errorf("profile of %s: %w", t.name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("profile of %s: %s: %s", t.name, resp.Status, strings.TrimSpace(string(msg)))
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("profile of %s: %w", t.name, err)
	}
	return nil
}
