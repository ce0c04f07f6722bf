package pki

import (
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/winkube/winkube/pkg/certs"
)

func TestCAIsReusedAndSignsLeaves(t *testing.T) {
	dir := t.TempDir()
	ca, err := LoadOrCreateCA(dir, "ca", "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadOrCreateCA(dir, "ca", "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cert.Equal(ca.Cert) {
		t.Fatal("second LoadOrCreateCA made a new CA instead of reusing the one on disk")
	}

	leaf, err := again.Issue(dir, Leaf{Name: "srv", CommonName: "srv", DNSNames: []string{"localhost"},
		IPs: []net.IP{net.ParseIP("127.0.0.1")}, Server: true})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := certs.ParseCert(leaf.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("leaf does not verify against the CA for 127.0.0.1: %v", err)
	}
}

func TestIncompleteCAIsAnError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ca.key"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateCA(dir, "ca", "test-ca"); err == nil {
		t.Fatal("want an error for a CA key without its certificate")
	}
}

func TestKeyPairIsReused(t *testing.T) {
	dir := t.TempDir()
	_, pub, err := LoadOrCreateKeyPair(dir, "sa")
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(pub)
	if _, _, err := LoadOrCreateKeyPair(dir, "sa"); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(pub)
	if string(first) != string(second) {
		t.Error("service-account key pair changed on reload")
	}
}
