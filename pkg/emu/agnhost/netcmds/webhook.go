package netcmds

// The admission and conversion webhooks run upstream's own handlers
// (k8s.io/kubernetes/test/images/agnhost/webhook and
// crd-conversion-webhook/converter of v1.36.3) behind a TLS listener of
// the pod network. Upstream's main functions cannot be called: they
// register on http.DefaultServeMux, listen on the host and Fatal on
// errors. So this file does what they do around the handlers (flags,
// key pair, paths) and serves the handlers themselves.

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"sync"
	_ "unsafe" // for go:linkname

	"github.com/spf13/pflag"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"

	"k8s.io/kubernetes/test/images/agnhost/crd-conversion-webhook/converter"
	"k8s.io/kubernetes/test/images/agnhost/webhook"
)

// upstream's webhook handlers are unexported (main registers them). A
// pull-style go:linkname names them; the import of the package above
// (for CmdWebhook) links it in. The signatures are those of webhook/
// main.go of v1.36.3: a changed upstream fails to link, not silently.

//go:linkname serveAlwaysAllowDelayFiveSeconds k8s.io/kubernetes/test/images/agnhost/webhook.serveAlwaysAllowDelayFiveSeconds
func serveAlwaysAllowDelayFiveSeconds(http.ResponseWriter, *http.Request)

//go:linkname serveAlwaysDeny k8s.io/kubernetes/test/images/agnhost/webhook.serveAlwaysDeny
func serveAlwaysDeny(http.ResponseWriter, *http.Request)

//go:linkname serveAddLabel k8s.io/kubernetes/test/images/agnhost/webhook.serveAddLabel
func serveAddLabel(http.ResponseWriter, *http.Request)

//go:linkname servePods k8s.io/kubernetes/test/images/agnhost/webhook.servePods
func servePods(http.ResponseWriter, *http.Request)

//go:linkname serveAttachingPods k8s.io/kubernetes/test/images/agnhost/webhook.serveAttachingPods
func serveAttachingPods(http.ResponseWriter, *http.Request)

//go:linkname serveMutatePods k8s.io/kubernetes/test/images/agnhost/webhook.serveMutatePods
func serveMutatePods(http.ResponseWriter, *http.Request)

//go:linkname serveMutatePodsSidecar k8s.io/kubernetes/test/images/agnhost/webhook.serveMutatePodsSidecar
func serveMutatePodsSidecar(http.ResponseWriter, *http.Request)

//go:linkname serveConfigmaps k8s.io/kubernetes/test/images/agnhost/webhook.serveConfigmaps
func serveConfigmaps(http.ResponseWriter, *http.Request)

//go:linkname serveMutateConfigmaps k8s.io/kubernetes/test/images/agnhost/webhook.serveMutateConfigmaps
func serveMutateConfigmaps(http.ResponseWriter, *http.Request)

//go:linkname serveCustomResource k8s.io/kubernetes/test/images/agnhost/webhook.serveCustomResource
func serveCustomResource(http.ResponseWriter, *http.Request)

//go:linkname serveMutateCustomResource k8s.io/kubernetes/test/images/agnhost/webhook.serveMutateCustomResource
func serveMutateCustomResource(http.ResponseWriter, *http.Request)

//go:linkname serveCRD k8s.io/kubernetes/test/images/agnhost/webhook.serveCRD
func serveCRD(http.ResponseWriter, *http.Request)

// sidecarMu guards upstream's sidecarImage, a package variable of the
// whole winkube process that its flag sets: each webhook server sets
// its own --sidecar-image and calls the handler under this lock, so
// servers of different pods do not see each other's image.
var sidecarMu sync.Mutex

// WebhookSetup declares the flags of its subcommand and returns its body.
func WebhookSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var cert, key, sidecar string
	var port int
	fs.StringVar(&cert, "tls-cert-file", "", "File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert).")
	fs.StringVar(&key, "tls-private-key-file", "", "File containing the default x509 private key matching --tls-cert-file.")
	fs.IntVar(&port, "port", 443, "Secure port that the webhook listens on")
	fs.StringVar(&sidecar, "sidecar-image", "", "Image to be used as the injected sidecar")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		pair, ok := keyPair(a, cert, key, "config.go:34")
		if !ok {
			return 255
		}
		withSidecar := func(w http.ResponseWriter, r *http.Request) {
			sidecarMu.Lock()
			defer sidecarMu.Unlock()
			_ = webhook.CmdWebhook.Flags().Set("sidecar-image", sidecar)
			serveMutatePodsSidecar(w, r)
		}
		mux := http.NewServeMux()
		for path, h := range map[string]http.HandlerFunc{
			"/always-allow-delay-5s":    serveAlwaysAllowDelayFiveSeconds,
			"/always-deny":              serveAlwaysDeny,
			"/add-label":                serveAddLabel,
			"/pods":                     servePods,
			"/pods/attach":              serveAttachingPods,
			"/mutating-pods":            serveMutatePods,
			"/mutating-pods-sidecar":    withSidecar,
			"/configmaps":               serveConfigmaps,
			"/mutating-configmaps":      serveMutateConfigmaps,
			"/custom-resource":          serveCustomResource,
			"/mutating-custom-resource": serveMutateCustomResource,
			"/crd":                      serveCRD,
		} {
			mux.Handle(path, detached(a, h))
		}
		mux.HandleFunc("/readyz", readyz)
		return serveTLS(a, ctx, port, pair, mux)
	}
}

// CRDConversionWebhookSetup is crd-conversion-webhook: upstream's
// example converter on /crdconvert.
func CRDConversionWebhookSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var cert, key string
	var port int
	fs.StringVar(&cert, "tls-cert-file", "", "File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert.")
	fs.StringVar(&key, "tls-private-key-file", "", "File containing the default x509 private key matching --tls-cert-file.")
	fs.IntVar(&port, "port", 443, "Secure port that the webhook listens on")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		// main builds an in-cluster clientset before the TLS config
		// (for a client CA it never uses): outside a pod's service
		// account it dies there.
		if err := inClusterConfig(a); err != nil {
			a.Log.Line('F', "config.go:31", err.Error())
			return 255
		}
		pair, ok := keyPair(a, cert, key, "config.go:43")
		if !ok {
			return 255
		}
		mux := http.NewServeMux()
		mux.Handle("/crdconvert", detached(a, converter.ServeExampleConvert))
		mux.HandleFunc("/readyz", readyz)
		return serveTLS(a, ctx, port, pair, mux)
	}
}

func readyz(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }

// keyPair is tls.LoadX509KeyPair on the container's files; a failure
// is klog.Fatal's line from site and exit 255.
func keyPair(a *kit.App, cert, key, site string) (tls.Certificate, bool) {
	var pem [2][]byte
	for i, name := range []string{cert, key} {
		b, err := kit.ReadNamed(a.P, name)
		if err != nil {
			a.Log.Line('F', site, kit.GoError(a.P, err))
			return tls.Certificate{}, false
		}
		pem[i] = b
	}
	pair, err := tls.X509KeyPair(pem[0], pem[1])
	if err != nil {
		a.Log.Line('F', site, err.Error())
		return tls.Certificate{}, false
	}
	return pair, true
}

// inClusterConfig checks what rest.InClusterConfig needs: the Service
// address in the environment and a readable token.
func inClusterConfig(a *kit.App) error {
	if a.P.Getenv("KUBERNETES_SERVICE_HOST") == "" || a.P.Getenv("KUBERNETES_SERVICE_PORT") == "" {
		return fmt.Errorf("unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined")
	}
	if _, err := kit.ReadFile(a.P, ServiceAccountDir+"token"); err != nil {
		return fmt.Errorf("%s", kit.GoError(a.P, err))
	}
	return nil
}

// serveTLS is http.Server's ListenAndServeTLS on the pod network, until
// the container stops. Upstream panics when it cannot listen. HTTP/2
// is not offered; the API server's webhook client speaks HTTP/1.1 too.
func serveTLS(a *kit.App, ctx context.Context, port int, pair tls.Certificate, h http.Handler) int {
	if a.P.Sys.Net == nil {
		return wait(ctx)
	}
	l, err := kit.Listen(ctx, a.P, "tcp", port)
	if err != nil {
		fmt.Fprintf(a.P.Stderr, "panic: listen tcp :%d: %v\n", port, err)
		return 2
	}
	l = tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{pair}})
	kit.ServeHTTP(ctx, l, h, a.Log, nil)
	return 0
}

// detached runs an upstream handler on its own goroutine, answering
// from what it wrote once it returns. Some never do (/pods blocks
// forever on a pod labelled wait-forever, as the timeout tests want):
// the request then ends when its client leaves or the server stops,
// and only that goroutine stays blocked, where in the real image the
// process would exit with it. A panic (a nil response from an upstream
// admit function) is net/http's: logged, and the connection dropped.
func detached(a *kit.App, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		done := make(chan any, 1)
		go func() {
			defer func() {
				if v := recover(); v != nil {
					a.Log.Printf("http: panic serving %v: %v\n%s", r.RemoteAddr, v, debug.Stack())
					done <- v
				}
				close(done)
			}()
			h(rec, r)
		}()
		select {
		case v := <-done:
			if v != nil {
				panic(http.ErrAbortHandler)
			}
		case <-r.Context().Done():
			panic(http.ErrAbortHandler)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}
