package netcmds

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// selfSigned writes a key pair for 127.0.0.1 to /certs and returns a
// pool that trusts it.
func selfSigned(t *testing.T, p *pod) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	p.fs.Put("/certs/tls.crt", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), 0o644)
	p.fs.Put("/certs/tls.key", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

func (p *pod) https(roots *x509.CertPool) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: program.NetDialer(p.client),
		TLSClientConfig: &tls.Config{RootCAs: roots}, DisableKeepAlives: true}}
}

// webhook serves upstream's admission handlers over TLS with the key
// pair its flags name: /always-deny denies every AdmissionReview.
func TestWebhookOverTLS(t *testing.T) {
	p := newPod()
	roots := selfSigned(t, p)
	r := p.start(t, WebhookSetup, nil, "--tls-cert-file=/certs/tls.crt", "--tls-private-key-file=/certs/tls.key", "--port=8443")
	client := p.https(roots)
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if resp, err = client.Get("https://127.0.0.1:8443/readyz"); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "ok" {
		t.Errorf("/readyz = %q", b)
	}
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",` +
		`"kind":{"group":"","version":"v1","kind":"ConfigMap"},"resource":{"group":"","version":"v1","resource":"configmaps"},` +
		`"operation":"CREATE","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}}}`
	resp, err = client.Post("https://127.0.0.1:8443/always-deny", "application/json", strings.NewReader(review))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Kind     string
		Response struct {
			UID     string
			Allowed bool
			Status  struct{ Message string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out.Kind != "AdmissionReview" || out.Response.UID != "u-1" || out.Response.Allowed ||
		out.Response.Status.Message != "this webhook denies all requests" {
		t.Errorf("/always-deny = %+v", out)
	}
	if code := r.stop(t); code != 0 {
		t.Errorf("status %d", code)
	}
}

// Without its key pair, or with the conversion webhook outside a
// cluster, the server dies as klog.Fatal does: an F line, status 255.
func TestWebhookFatal(t *testing.T) {
	p := newPod()
	r := p.start(t, WebhookSetup, nil)
	if code := r.wait(t); code != 255 {
		t.Errorf("no key pair: %d", code)
	}
	r.logged(t, "config.go:34] open : no such file or directory")
	if !strings.HasPrefix(r.stderr.String(), "F0304 ") {
		t.Errorf("not a fatal line: %q", r.stderr.String())
	}
	p.fs.Put("/certs/bad.crt", "not pem", 0o644)
	r = p.start(t, WebhookSetup, nil, "--tls-cert-file=/certs/bad.crt", "--tls-private-key-file=/certs/bad.crt")
	if code := r.wait(t); code != 255 {
		t.Errorf("a bad key pair: %d", code)
	}
	r.logged(t, "tls: failed to find any PEM data in certificate input")
	r = p.start(t, CRDConversionWebhookSetup, nil)
	if code := r.wait(t); code != 255 {
		t.Errorf("conversion webhook outside a cluster: %d", code)
	}
	r.logged(t, "config.go:31] unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined")
}
