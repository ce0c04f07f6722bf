package kubeletapi

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"

	"github.com/winkube/winkube/pkg/certs"
)

// An issued chain is served only with the request's own key: a
// certificate issued for another key, or no certificate at all, is
// refused.
func TestIssuedCert(t *testing.T) {
	p, err := certs.SelfSigned(certs.Spec{CommonName: "system:node:n", Server: true})
	if err != nil {
		t.Fatal(err)
	}
	own, ok := p.Key.(*ecdsa.PrivateKey)
	if !ok {
		t.Fatalf("key %T, want ECDSA", p.Key)
	}
	if cert, err := issuedCert(p.CertPEM, own); err != nil || cert.Leaf.Subject.CommonName != "system:node:n" {
		t.Errorf("own key: %v", err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if _, err := issuedCert(p.CertPEM, other); err == nil {
		t.Error("a certificate for another key was accepted")
	}
	if _, err := issuedCert([]byte("junk"), own); err == nil {
		t.Error("junk was accepted")
	}
}
