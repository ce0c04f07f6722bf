package gmsa

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/webhook"
	"github.com/winkube/winkube/pkg/webhook/install"
)

// InProcess is a webhook served by this process on loopback and
// registered with the API server by URL.
type InProcess struct {
	URL  string
	stop func()
}

// Stop unregisters the webhook, so that kube-apiserver stops calling it,
// then stops the server.
func (p *InProcess) Stop() { p.stop() }

// StartInProcess installs the CRD, serves the webhook on a free port of
// 127.0.0.1 with a certificate kept in certDir, and registers it as name
// (ownNamespace left out of admission). It returns once kube-apiserver
// has called the webhook, or after a timeout with a warning for logf.
// The configurations fail closed (Fail, as upstream's), so a process
// killed without Stop leaves pods refused until RemoveStale or the next
// StartInProcess replaces them.
func StartInProcess(ctx context.Context, cfg *rest.Config, certDir, name, ownNamespace string, logf func(string, ...any)) (*InProcess, error) {
	c, err := NewClient(cfg, nil)
	if err != nil {
		return nil, err
	}
	if err := c.InstallCRD(ctx); err != nil {
		return nil, err
	}
	certs, _, err := install.EnsureCerts(certDir, []string{"127.0.0.1"})
	if err != nil {
		return nil, fmt.Errorf("GMSA webhook certificates in %s: %w", certDir, err)
	}
	cert, err := certs.TLS()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("GMSA webhook: %w", err)
	}
	wh := New(c.CredSpecs())
	wh.Logf = logf
	calls := &counting{h: wh}
	sctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = webhook.ServeListener(sctx, ln, cert, calls)
	}()
	url := "https://" + ln.Addr().String()
	stop := func() {
		rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer rcancel()
		_ = c.Unregister(rctx, name)
		cancel()
		<-served
	}
	if err := c.Register(ctx, name, ownNamespace, url, certs.CA); err != nil {
		stop()
		return nil, fmt.Errorf("registering the GMSA webhook: %w", err)
	}
	if !awaitFirstCall(ctx, c, calls) && logf != nil {
		logf("kube-apiserver has not called the GMSA webhook yet; pods created now may be admitted without it")
	}
	return &InProcess{URL: url, stop: stop}, nil
}

// RemoveStale deletes the configurations called name that an earlier
// process could not remove (killed): they fail closed, so every pod
// create would be refused while nothing serves them.
func RemoveStale(ctx context.Context, cfg *rest.Config, name string) error {
	c, err := NewClient(cfg, nil)
	if err != nil {
		return err
	}
	return c.Unregister(ctx, name)
}

type counting struct {
	h       http.Handler
	mutates atomic.Int64
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == MutatePath {
		c.mutates.Add(1)
	}
	c.h.ServeHTTP(w, r)
}

// awaitFirstCall creates dry-run pods (nothing is created) until
// kube-apiserver, which loads webhook configurations asynchronously,
// calls the mutating webhook.
func awaitFirstCall(ctx context.Context, c *Client, calls *counting) bool {
	no := false
	probe := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "winkube-gmsa-probe-", Namespace: metav1.NamespaceDefault},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: &no,
			Containers:                   []corev1.Container{{Name: "probe", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	deadline := time.Now().Add(30 * time.Second)
	for calls.mutates.Load() == 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		_, _ = c.Core.CoreV1().Pods(probe.Namespace).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if calls.mutates.Load() > 0 {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	return calls.mutates.Load() > 0
}
