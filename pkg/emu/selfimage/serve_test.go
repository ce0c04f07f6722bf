package selfimage

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/emu/vnet"
	"github.com/winkube/winkube/pkg/webhook/install"
)

var (
	podHost    = vnet.Host{IP: netip.MustParseAddr("10.244.1.5"), Scope: "uid-webhook", Source: "pod/winkube-system/winkube-webhook-1"}
	apiHost    = vnet.Host{IP: netip.MustParseAddr("10.96.0.1"), Scope: "kube-apiserver", Source: "node/linux-1"}
	clientHost = vnet.Host{IP: netip.MustParseAddr("10.244.2.7"), Scope: "uid-client", Source: "pod/default/client"}
)

// router routes every address as is: the test binds what it dials.
type router struct{}

func (router) Route(_ vnet.Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	return dst, nil
}

func (router) Lookup(_ context.Context, _ vnet.Host, name string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

type env struct {
	p              *program.Proc
	fabric         *vnet.Fabric
	fs             *vfs.FS
	stdout, stderr *syncbuf.Buffer
}

// newEnv is a pod of winkube's image on a pod network of its own, with
// the kubelet's service account files and KUBERNETES_SERVICE_* pointing at
// 10.96.0.1:443. files are written into its filesystem first.
func newEnv(t *testing.T, files map[string][]byte) *env {
	t.Helper()
	e := &env{fabric: vnet.New(router{}), fs: vfs.New(vfs.Options{}), stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}}
	for name, data := range files {
		writeFile(t, e.fs, name, data)
	}
	e.p = &program.Proc{
		Env: []string{"KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443"},
		Dir: "/", Stdin: strings.NewReader(""), Stdout: e.stdout, Stderr: e.stderr,
		Sys: &program.Sys{FS: e.fs, Clock: clock.RealClock{}, Hostname: "winkube-webhook-1", Programs: Table(), Net: e.fabric.Net(&podHost)},
	}
	return e
}

func writeFile(t *testing.T, fsys *vfs.FS, name string, data []byte) {
	t.Helper()
	if err := fsys.MkdirAll(path.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

// fakeAPIServer answers on 10.96.0.1:443 of the fabric what the handler
// asks: the version, and no nodes or RuntimeClasses, in lists or in
// watches that stay open. It records the bearer tokens it sees.
type fakeAPIServer struct {
	mu     sync.Mutex
	tokens map[string]bool
}

func (a *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.tokens[r.Header.Get("Authorization")] = true
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Query().Get("watch") == "true":
		// The informers list by watching (WatchList): nothing, then the
		// bookmark that ends the initial events.
		kind, apiVersion := "Node", "v1"
		if strings.HasPrefix(r.URL.Path, "/apis/node.k8s.io/") {
			kind, apiVersion = "RuntimeClass", "node.k8s.io/v1"
		}
		fmt.Fprintf(w, `{"type":"BOOKMARK","object":{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":"1","annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n", kind, apiVersion)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case r.URL.Path == "/version":
		io.WriteString(w, `{"major":"1","minor":"36","gitVersion":"v1.36.3"}`)
	case r.URL.Path == "/api/v1/nodes":
		io.WriteString(w, `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`)
	case r.URL.Path == "/apis/node.k8s.io/v1/runtimeclasses":
		io.WriteString(w, `{"kind":"RuntimeClassList","apiVersion":"node.k8s.io/v1","metadata":{"resourceVersion":"1"},"items":[]}`)
	default:
		http.NotFound(w, r)
	}
}

func (a *fakeAPIServer) sawToken(token string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tokens["Bearer "+token]
}

// startAPIServer serves the fake kube-apiserver on the fabric; its CA
// goes into the pod's service account directory.
func startAPIServer(t *testing.T, e *env) *fakeAPIServer {
	t.Helper()
	certs, err := install.NewCerts([]string{"10.96.0.1", "kubernetes.default.svc"})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := certs.TLS()
	if err != nil {
		t.Fatal(err)
	}
	l, err := e.fabric.Listen(apiHost, "tcp", 443)
	if err != nil {
		t.Fatal(err)
	}
	api := &fakeAPIServer{tokens: map[string]bool{}}
	srv := &http.Server{Handler: api, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}
	go srv.ServeTLS(l, "", "")
	t.Cleanup(func() { srv.Close() })
	writeFile(t, e.fs, serviceAccountDir+"/ca.crt", certs.CA)
	writeFile(t, e.fs, serviceAccountDir+"/token", []byte("pod-token"))
	return api
}

// webhookCerts are the serving certificate `webhook install` would put in
// its Secret, mounted where its Deployment mounts it.
func webhookCerts(t *testing.T, e *env) *x509.CertPool {
	t.Helper()
	certs, err := install.NewCerts(install.ServiceHosts(install.DefaultNamespace))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, e.fs, "/etc/winkube/webhook/tls.crt", certs.Cert)
	writeFile(t, e.fs, "/etc/winkube/webhook/tls.key", certs.Key)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certs.CA)
	return pool
}

// client is another pod's HTTPS client for the webhook's Service name.
func client(e *env, ca *x509.CertPool) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return e.fabric.Dial(ctx, clientHost, network, addr)
		},
		TLSClientConfig: &tls.Config{RootCAs: ca, ServerName: install.ServiceHosts(install.DefaultNamespace)[0]},
	}}
}

// The image's program serves the same webhook as `winkube webhook serve`
// on the pod's port, reaching the cluster with the pod's service account
// over the pod network; it stops with exit 0 when the pod stops.
func TestServesTheWebhookOnThePodNetwork(t *testing.T) {
	e := newEnv(t, nil)
	api := startAPIServer(t, e)
	ca := webhookCerts(t, e)
	e.p.Args = []string{"/winkube", "webhook", "serve", "--listen=:8443",
		"--tls-cert-file=/etc/winkube/webhook/tls.crt", "--tls-private-key-file=/etc/winkube/webhook/tls.key", "--resolve-images=registry"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- Main(ctx, e.p) }()
	waitListening(t, e, done)

	want := "Serving the winkube webhook on https://:8443 (cluster https://10.96.0.1:443, images from catalog, mode enforce)\n"
	if got := e.stdout.String(); got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if !strings.Contains(e.stderr.String(), "--resolve-images registry: the emulated pod reaches no registry") {
		t.Errorf("stderr %q: want the note that registries are out of reach", e.stderr.String())
	}
	c := client(e, ca)
	waitReady(t, c)
	if !api.sawToken("pod-token") {
		t.Error("the API server never saw the pod's service account token")
	}
	checkMutatesWindowsPod(t, c)

	cancel()
	select {
	case code := <-done:
		if code != 0 || !strings.HasSuffix(e.stdout.String(), "Stopped.\n") {
			t.Errorf("exit %d, stdout %q; want 0 and Stopped.", code, e.stdout.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the program did not stop with its pod")
	}
}

func waitListening(t *testing.T, e *env, done chan int) {
	t.Helper()
	addr := netip.AddrPortFrom(podHost.IP, 8443)
	for deadline := time.Now().Add(10 * time.Second); !e.fabric.Listening(addr); {
		select {
		case code := <-done:
			t.Fatalf("exit %d before listening; stderr %q", code, e.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s; stderr %q", addr, e.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitReady waits for /readyz, which answers once the handler has read
// nodes and RuntimeClasses through the API server.
func waitReady(t *testing.T, c *http.Client) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; {
		resp, err := c.Get("https://10.244.1.5:8443/readyz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			err = fmt.Errorf("%s: %s", resp.Status, body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkMutatesWindowsPod sends the review kube-apiserver sends for a
// Windows pod without an OS selector and expects the placement patch.
func checkMutatesWindowsPod(t *testing.T, c *http.Client) {
	t.Helper()
	pod := corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "iis", Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "iis", Image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}}},
	}
	raw, _ := json.Marshal(pod)
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "1", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			Namespace: "default", Name: "iis", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw},
		},
	}
	body, _ := json.Marshal(review)
	resp, err := c.Post("https://10.244.1.5:8443/mutate", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.Response == nil {
		t.Fatalf("response: %v", err)
	}
	if !got.Response.Allowed || !strings.Contains(string(got.Response.Patch), `"kubernetes.io/os":"windows"`) {
		t.Errorf("allowed %v, patch %s; want the Windows nodeSelector (IMG-2)", got.Response.Allowed, got.Response.Patch)
	}
}

// A port already bound in the pod fails as the real server fails to
// listen, naming --listen.
func TestPortInUse(t *testing.T) {
	e := newEnv(t, nil)
	startAPIServer(t, e)
	webhookCerts(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := e.p.Sys.Net.Listen(ctx, "tcp", 8443); err != nil {
		t.Fatal(err)
	}
	e.p.Args = []string{"/winkube", "webhook", "serve", "--tls-cert-file=/etc/winkube/webhook/tls.crt", "--tls-private-key-file=/etc/winkube/webhook/tls.key"}
	code := Main(ctx, e.p)
	if got := e.stderr.String(); code != 1 || !strings.Contains(got, "winkube: serving on --listen :8443: webhook listen on :8443: ") || !strings.Contains(got, syscall.EADDRINUSE.Error()) {
		t.Errorf("exit %d, stderr %q; want 1 and address already in use", code, got)
	}
}
