package certs

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"
)

func TestSignedLeafVerifiesForItsNames(t *testing.T) {
	ca, err := NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	dns, ips := SplitHosts([]string{"svc.ns.svc", "127.0.0.1"})
	leaf, err := ca.Sign(Spec{CommonName: "svc", DNSNames: dns, IPs: ips, Server: true})
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.CertPEM) {
		t.Fatal("CA PEM holds no certificate")
	}
	for _, host := range []string{"svc.ns.svc", "127.0.0.1"} {
		opts := x509.VerifyOptions{Roots: pool, DNSName: host, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if _, err := leaf.Cert.Verify(opts); err != nil {
			t.Errorf("leaf does not verify for %s: %v", host, err)
		}
	}
	opts := x509.VerifyOptions{Roots: pool, DNSName: "other.svc"}
	if _, err := leaf.Cert.Verify(opts); err == nil {
		t.Error("leaf verifies for a name it does not carry")
	}
	if _, err := leaf.Cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Error("a server-only leaf verifies as a client certificate")
	}
}

func TestSelfSignedServesAsItsOwnBundle(t *testing.T) {
	p, err := SelfSigned(Spec{CommonName: "localhost", DNSNames: []string{"localhost"}, Server: true, Validity: 48 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM); err != nil {
		t.Fatalf("PEM pair does not load: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.CertPEM)
	if _, err := p.Cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: "localhost"}); err != nil {
		t.Errorf("self-signed certificate does not verify against itself: %v", err)
	}
	if got := p.Cert.NotAfter.Sub(time.Now()); got > 48*time.Hour || got < 47*time.Hour {
		t.Errorf("validity = %v, want 48h", got)
	}
	if p.Cert.IsCA {
		t.Error("a self-signed serving certificate must not be a CA")
	}
}

func TestPEMRoundTrip(t *testing.T) {
	ca, err := NewCA("round-trip")
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(ca.CertPEM, ca.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Cert.Equal(ca.Cert) || !back.Cert.IsCA {
		t.Error("CA certificate changed through PEM")
	}
	leaf, err := back.Sign(Spec{CommonName: "client", Client: true, IPs: []net.IP{net.IPv6loopback}})
	if err != nil {
		t.Fatalf("parsed CA cannot sign: %v", err)
	}
	if err := leaf.Cert.CheckSignatureFrom(ca.Cert); err != nil {
		t.Errorf("leaf signed by the parsed CA: %v", err)
	}
	if _, err := Parse([]byte("junk"), ca.KeyPEM); err == nil {
		t.Error("Parse accepted a certificate that is not PEM")
	}
}
