package install

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCertsValidateForServiceNames(t *testing.T) {
	hosts := ServiceHosts("winkube-system")
	c, err := NewCerts(hosts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(hosts, time.Now()); err != nil {
		t.Fatalf("fresh certificates: %v", err)
	}
	// kube-apiserver calls <service>.<namespace>.svc.
	if hosts[0] != "winkube-webhook.winkube-system.svc" {
		t.Errorf("first host = %q", hosts[0])
	}
	if err := c.Check([]string{"winkube-webhook.other.svc"}, time.Now()); err == nil {
		t.Error("certificate accepted for a name it does not hold")
	}
	if err := c.Check(hosts, time.Now().Add(servingValidity)); err == nil {
		t.Error("certificate accepted after it expires")
	}
}

func TestCertsServeTLSOnLoopbackIP(t *testing.T) {
	c, err := NewCerts([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := c.TLS()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	// A client that trusts only the CA bundle, as kube-apiserver does with caBundle.
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.CA)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	resp, err := client.Get("https://" + ln.Addr().String())
	if err != nil {
		t.Fatalf("TLS with the CA bundle: %v", err)
	}
	resp.Body.Close()

	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if _, err := client.Get("https://localhost:" + port); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a name the certificate does not hold: err = %v", err)
	}
}

func TestEnsureCertsReusesValidOnes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "webhook")
	first, created, err := EnsureCerts(dir, []string{"127.0.0.1"})
	if err != nil || !created {
		t.Fatalf("first: created=%v err=%v", created, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, KeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", fi.Mode(), err)
	}
	again, created, err := EnsureCerts(dir, []string{"127.0.0.1"})
	if err != nil || created || string(again.CA) != string(first.CA) {
		t.Errorf("second: created=%v err=%v, same CA %v", created, err, string(again.CA) == string(first.CA))
	}
	other, created, err := EnsureCerts(dir, []string{"127.0.0.2"})
	if err != nil || !created || string(other.CA) == string(first.CA) {
		t.Errorf("new host: created=%v err=%v", created, err)
	}
}

func TestNewCertsNeedsAHost(t *testing.T) {
	if _, err := NewCerts(nil); err == nil {
		t.Error("no error without hosts")
	}
}
