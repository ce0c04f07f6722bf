package agnhost

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/agnhost/netcmds"
	certutil "k8s.io/client-go/util/cert"
)

// tlsFS is a container filesystem with a serving certificate for
// "webhook.test" at /certs/tls.crt and /certs/tls.key; roots trusts it.
func tlsFS(t *testing.T) (*memFS, *x509.CertPool) {
	t.Helper()
	cert, key, err := certutil.GenerateSelfSignedCertKey("webhook.test", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(cert)
	return newMemFS().add("/certs/tls.crt", string(cert), 0o644).add("/certs/tls.key", string(key), 0o600), roots
}

// httpsClient is a client through the pipe network that trusts roots
// for the name webhook.test.
func httpsClient(pn *pipeNet, roots *x509.CertPool, timeout time.Duration) (*http.Client, func()) {
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "webhook.test"},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := pn.Dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return c.(net.Conn), nil
		},
	}
	return &http.Client{Transport: tr, Timeout: timeout}, tr.CloseIdleConnections
}

func post(t *testing.T, c *http.Client, url, body string) (int, string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// review is an AdmissionReview v1 of obj as resource.
func review(resource, obj string) string {
	return `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",` +
		`"kind":{"group":"","version":"v1","kind":"X"},"resource":{"group":"","version":"v1","resource":"` + resource + `"},` +
		`"operation":"CREATE","userInfo":{},"object":` + obj + `}}`
}

type reviewResponse struct {
	APIVersion, Kind string
	Response         struct {
		UID       string
		Allowed   bool
		Status    struct{ Message string }
		Patch     []byte
		PatchType string
	}
}

func TestWebhookServesUpstreamHandlers(t *testing.T) {
	base := runtimeGoroutines()
	fsys, roots := tlsFS(t)
	pn := &pipeNet{}
	e := newEnv(fsys, "/agnhost", "webhook", "--tls-cert-file=/certs/tls.crt", "--tls-private-key-file=/certs/tls.key", "--port=8444", "--sidecar-image=img:1")
	e.p.Sys.Net = pn
	stop := e.start()
	pn.waitListen(t, 8444)
	c, closeIdle := httpsClient(pn, roots, 5*time.Second)

	if code, body := httpGetWith(t, c, "https://10.0.0.1:8444/readyz"); code != 200 || body != "ok" {
		t.Errorf("readyz: %d %q", code, body)
	}

	var got reviewResponse
	_, body := post(t, c, "https://10.0.0.1:8444/always-deny", review("pods", `{"metadata":{"name":"p"}}`))
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("always-deny: %q: %v", body, err)
	}
	if got.Kind != "AdmissionReview" || got.Response.UID != "u-1" || got.Response.Allowed || got.Response.Status.Message != "this webhook denies all requests" {
		t.Errorf("always-deny: %s", body)
	}

	got = reviewResponse{}
	_, body = post(t, c, "https://10.0.0.1:8444/mutating-configmaps", review("configmaps", `{"metadata":{"name":"cm"},"data":{"mutation-start":"yes"}}`))
	json.Unmarshal([]byte(body), &got)
	if !got.Response.Allowed || got.Response.PatchType != "JSONPatch" || !bytes.Contains(got.Response.Patch, []byte(`"/data/mutation-stage-1"`)) {
		t.Errorf("mutating-configmaps: %s", body)
	}

	got = reviewResponse{}
	_, body = post(t, c, "https://10.0.0.1:8444/mutating-pods-sidecar", review("pods", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}`))
	json.Unmarshal([]byte(body), &got)
	if !bytes.Contains(got.Response.Patch, []byte(`"image":"img:1","name":"webhook-added-sidecar"`)) {
		t.Errorf("mutating-pods-sidecar: %s", body)
	}

	// Upstream's /configmaps returns no response for another resource
	// and its serve dereferences it: net/http drops the connection.
	if resp, err := c.Post("https://10.0.0.1:8444/configmaps", "application/json", strings.NewReader(review("pods", `{}`))); err == nil {
		resp.Body.Close()
		t.Errorf("configmaps on pods: %s, want the connection dropped", resp.Status)
	}
	closeIdle()
	if code := stop(); code != 0 {
		t.Errorf("status %d", code)
	}
	if !strings.Contains(e.stderr.String(), "http: panic serving") {
		t.Errorf("stderr %q", e.stderr)
	}
	settleGoroutines(t, base)
}

func httpGetWith(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A pod labelled wait-forever is never answered; the server still
// stops when the container does.
func TestWebhookHangingRequestDoesNotBlockStop(t *testing.T) {
	fsys, roots := tlsFS(t)
	pn := &pipeNet{}
	e := newEnv(fsys, "/agnhost", "webhook", "--tls-cert-file=/certs/tls.crt", "--tls-private-key-file=/certs/tls.key")
	e.p.Sys.Net = pn
	stop := e.start()
	pn.waitListen(t, 443)
	c, closeIdle := httpsClient(pn, roots, 300*time.Millisecond)
	defer closeIdle()
	pod := `{"metadata":{"name":"p","labels":{"webhook-e2e-test":"wait-forever"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	if resp, err := c.Post("https://10.0.0.1/pods", "application/json", strings.NewReader(review("pods", pod))); err == nil {
		resp.Body.Close()
		t.Fatalf("wait-forever answered: %s", resp.Status)
	}
	done := make(chan int, 1)
	go func() { done <- stop() }()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("status %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("webhook did not stop")
	}
}

func TestWebhookKeyPairErrors(t *testing.T) {
	fsys, _ := tlsFS(t)
	fsys.add("/certs/bad.crt", "not pem", 0o644)
	tests := []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"webhook"}, nil, " config.go:34] open : no such file or directory\n"},
		{[]string{"webhook", "--tls-cert-file=/nope.crt", "--tls-private-key-file=/certs/tls.key"}, nil, " config.go:34] open /nope.crt: no such file or directory\n"},
		{[]string{"webhook", "--tls-cert-file=/certs/bad.crt", "--tls-private-key-file=/certs/tls.key"}, nil, " config.go:34] tls: failed to find any PEM data in certificate input\n"},
		{[]string{"crd-conversion-webhook", "--tls-cert-file=/certs/tls.crt", "--tls-private-key-file=/certs/tls.key"}, nil,
			" config.go:31] unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined\n"},
		{[]string{"crd-conversion-webhook", "--tls-cert-file=/certs/tls.crt", "--tls-private-key-file=/certs/tls.key"}, []string{"KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443"},
			" config.go:31] open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory\n"},
	}
	for _, tt := range tests {
		e := newEnv(fsys, append([]string{"/agnhost"}, tt.args...)...)
		e.p.Env = tt.env
		e.p.Sys.Net = &pipeNet{}
		if code := e.run(t, context.Background()); code != 255 {
			t.Errorf("%v: status %d, want 255", tt.args, code)
		}
		if s := e.stderr.String(); !strings.HasPrefix(s, "F0304 05:06:07.000000       1") || !strings.HasSuffix(s, tt.want) {
			t.Errorf("%v: stderr %q, want the F line ending %q", tt.args, s, tt.want)
		}
	}
}

func TestCRDConversionWebhookConverts(t *testing.T) {
	base := runtimeGoroutines()
	fsys, roots := tlsFS(t)
	fsys.add(netcmds.ServiceAccountDir+"token", "tok", 0o644)
	pn := &pipeNet{}
	e := newEnv(fsys, "/agnhost", "crd-conversion-webhook", "--tls-cert-file=/certs/tls.crt", "--tls-private-key-file=/certs/tls.key", "--port=9443")
	e.p.Env = []string{"KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443"}
	e.p.Sys.Net = pn
	stop := e.start()
	pn.waitListen(t, 9443)
	c, closeIdle := httpsClient(pn, roots, 5*time.Second)
	in := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"c-1","desiredAPIVersion":"stable.example.com/v2",` +
		`"objects":[{"apiVersion":"stable.example.com/v1","kind":"E2e-test-crd-webhook","metadata":{"name":"cr"},"hostPort":"localhost:8080"}]}}`
	code, body := post(t, c, "https://10.0.0.1:9443/crdconvert", in)
	var got struct {
		Response struct {
			UID              string
			ConvertedObjects []map[string]any
			Result           struct{ Status string }
		}
	}
	json.Unmarshal([]byte(body), &got)
	r := got.Response
	if code != 200 || r.UID != "c-1" || r.Result.Status != "Success" || len(r.ConvertedObjects) != 1 ||
		r.ConvertedObjects[0]["apiVersion"] != "stable.example.com/v2" || r.ConvertedObjects[0]["host"] != "localhost" || r.ConvertedObjects[0]["port"] != "8080" {
		t.Errorf("crdconvert: %d %s", code, body)
	}
	if code, body := httpGetWith(t, c, "https://10.0.0.1:9443/readyz"); code != 200 || body != "ok" {
		t.Errorf("readyz: %d %q", code, body)
	}
	closeIdle()
	if code := stop(); code != 0 {
		t.Errorf("status %d", code)
	}
	settleGoroutines(t, base)
}

// porter serves SERVE_TLS_PORT_<n> over TLS with the pair CERT_FILE and
// KEY_FILE name, next to its plain ports; a missing pair is upstream's
// log line and the other ports still serve.
func TestPorterTLSPort(t *testing.T) {
	fsys, roots := tlsFS(t)
	pn := &pipeNet{}
	e := newEnv(fsys, "/agnhost", "porter")
	e.p.Env = []string{"SERVE_TLS_PORT_443=secure", "SERVE_PORT_80=plain", "CERT_FILE=/certs/tls.crt", "KEY_FILE=/certs/tls.key"}
	e.p.Sys.Net = pn
	stop := e.start()
	pn.waitListen(t, 443)
	pn.waitListen(t, 80)
	c, done := httpsClient(pn, roots, 5*time.Second)
	defer done()
	resp, err := c.Get("https://10.0.0.1/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "secure" {
		t.Errorf("TLS port answered %q", body)
	}
	if code, body := httpGet(t, pn, "http://10.0.0.1/"); code != 200 || body != "plain" {
		t.Errorf("plain port answered %d %q", code, body)
	}
	stop()

	e = newEnv(newMemFS(), "/agnhost", "porter")
	e.p.Env = []string{"SERVE_TLS_PORT_460=x"}
	e.p.Sys.Net = &pipeNet{}
	stop = e.start()
	stop()
	if want := `tls server on port "460" with certFile="localhost.crt", keyFile="localhost.key" failed: open localhost.crt: no such file or directory`; !strings.Contains(e.stderr.String()+e.stdout.String(), want) {
		t.Errorf("log %q, want %q", e.stderr.String()+e.stdout.String(), want)
	}
}
