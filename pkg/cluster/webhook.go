package cluster

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/webhook"
	"github.com/winkube/winkube/pkg/webhook/install"
)

// webhookInstance names the webhook configurations `up --webhook`
// registers, apart from a `winkube webhook install` in the same cluster.
const webhookInstance = "winkube-up"

// webhookDir holds the in-process webhook's CA and serving certificate.
const webhookDir = "webhook"

// startWebhook serves the admission webhook on 127.0.0.1 and registers it
// with kube-apiserver by URL; the service's close unregisters it before
// the server stops. The configurations fail open (Ignore), so a cluster
// killed without its close (SIGKILL) still admits pods on the next start,
// which replaces or removes them (removeStaleWebhook).
func (c *Cluster) startWebhook(ctx context.Context, client kubernetes.Interface, images imageinfo.Resolver) error {
	step := time.Now()
	dir := filepath.Join(c.DataDir, webhookDir)
	certs, _, err := install.EnsureCerts(dir, []string{"127.0.0.1"})
	if err != nil {
		return fmt.Errorf("webhook certificates in %s: %w", dir, err)
	}
	ic, err := install.NewClient(c.cp.RESTConfig(), nil)
	if err != nil {
		return err
	}
	calls, addr, stopServer, err := serveWebhook(client, certs, images)
	if err != nil {
		return fmt.Errorf("starting the admission webhook: %w", err)
	}
	stop := func() {
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = ic.RemoveConfigurations(rctx, webhookInstance)
		stopServer()
	}
	awaitReady(ctx, calls.handler)
	if _, err := ic.Install(ctx, install.Options{Instance: webhookInstance, URL: "https://" + addr}, dir); err != nil {
		stop()
		return fmt.Errorf("registering the admission webhook: %w", err)
	}
	c.services = append(c.services, service{"admission webhook", stop})
	c.webhookURL = "https://" + addr
	if !awaitFirstCall(ctx, client, calls) {
		c.say("  warning: kube-apiserver has not called the webhook yet; pods created now may be admitted without it")
	}
	c.done("admission webhook registered", time.Since(step))
	return nil
}

// serveWebhook serves the webhook on a free port of 127.0.0.1 until stop.
func serveWebhook(client kubernetes.Interface, certs *install.Certs, images imageinfo.Resolver) (calls *countingHandler, addr string, stop func(), err error) {
	cert, err := certs.TLS()
	if err != nil {
		return nil, "", nil, err
	}
	h, err := webhook.NewHandler(webhook.Options{Client: client, Resolver: images})
	if err != nil {
		return nil, "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.Close()
		return nil, "", nil, err
	}
	calls = &countingHandler{handler: h}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = webhook.ServeListener(ctx, ln, cert, calls)
	}()
	stop = func() {
		cancel()
		<-served
		h.Close()
	}
	return calls, ln.Addr().String(), stop, nil
}

// removeStaleWebhook deletes the configurations of an earlier `up
// --webhook` that could not remove them (killed), when this run has none.
func (c *Cluster) removeStaleWebhook(ctx context.Context) {
	ic, err := install.NewClient(c.cp.RESTConfig(), nil)
	if err == nil {
		_ = ic.RemoveConfigurations(ctx, webhookInstance)
	}
}

// awaitReady gives the webhook a moment to list the nodes and
// RuntimeClasses, so its first decisions know the cluster; it decides from
// the pod alone until then.
func awaitReady(ctx context.Context, h *webhook.Handler) {
	deadline := time.Now().Add(30 * time.Second)
	for !h.Ready() && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
}

// countingHandler counts the mutating calls, to see kube-apiserver use a
// new registration.
type countingHandler struct {
	handler *webhook.Handler
	mutates atomic.Int64
}

func (h *countingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == webhook.MutatePath {
		h.mutates.Add(1)
	}
	h.handler.ServeHTTP(w, r)
}

// awaitFirstCall creates dry-run pods until kube-apiserver, which loads
// webhook configurations asynchronously, calls the webhook for one, so
// that pods applied after `up` reports ready are placed. Dry-run creates
// nothing.
func awaitFirstCall(ctx context.Context, client kubernetes.Interface, calls *countingHandler) bool {
	no := false
	probe := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "winkube-webhook-probe-", Namespace: metav1.NamespaceDefault},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: &no,
			Containers:                   []corev1.Container{{Name: "probe", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	deadline := time.Now().Add(30 * time.Second)
	for calls.mutates.Load() == 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		_, _ = client.CoreV1().Pods(probe.Namespace).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
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
