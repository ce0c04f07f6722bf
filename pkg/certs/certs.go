// Package certs mints every certificate winkube makes: the control plane's
// CAs and leaves, the webhook's CA and serving certificate, the emulated
// kubelets' and the metrics API's self-signed serving certificates, and
// the key pairs images ship. One place decides key type, serial numbers,
// validity and back-dating, so they cannot drift apart.
//
// Keys are ECDSA P-256: cheap to make on every start and accepted by every
// Kubernetes component. Keys are PEM-encoded as PKCS #8 ("PRIVATE KEY"),
// which tls.X509KeyPair, kube-apiserver and etcd all read.
package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"time"
)

const (
	// CAValidity is how long a CA is valid: long enough that a cluster
	// never outlives the CA its credentials chain to.
	CAValidity = 10 * 365 * 24 * time.Hour
	// DefaultValidity is a leaf's validity when its Spec gives none.
	DefaultValidity = 365 * 24 * time.Hour
	// backdate makes a new certificate valid for peers whose clocks run
	// behind this one's.
	backdate = time.Hour
)

// Pair is a certificate with its private key, parsed and PEM-encoded.
type Pair struct {
	Cert    *x509.Certificate
	Key     crypto.Signer
	CertPEM []byte
	KeyPEM  []byte
}

// Spec describes a leaf certificate.
type Spec struct {
	CommonName   string
	Organization []string
	DNSNames     []string
	IPs          []net.IP
	Server       bool // usable as a TLS server certificate
	Client       bool // usable as a TLS client certificate
	// Validity is how long it is valid; zero means DefaultValidity.
	Validity time.Duration
}

// NewCA makes a self-signed certificate authority.
func NewCA(commonName string) (*Pair, error) {
	key, err := NewKey()
	if err != nil {
		return nil, fmt.Errorf("CA %s: %w", commonName, err)
	}
	tmpl := template(pkix.Name{CommonName: commonName}, CAValidity)
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	tmpl.BasicConstraintsValid = true
	tmpl.IsCA = true
	p, err := sign(tmpl, nil, key, key)
	if err != nil {
		return nil, fmt.Errorf("CA %s: %w", commonName, err)
	}
	return p, nil
}

// Sign issues a leaf certificate for s, signed by the CA ca.
func (ca *Pair) Sign(s Spec) (*Pair, error) {
	key, err := NewKey()
	if err != nil {
		return nil, fmt.Errorf("certificate %s: %w", s.CommonName, err)
	}
	p, err := sign(leafTemplate(s), ca.Cert, key, ca.Key)
	if err != nil {
		return nil, fmt.Errorf("certificate %s: %w", s.CommonName, err)
	}
	return p, nil
}

// SelfSigned makes a leaf certificate for s that signs itself. A client
// trusts it by holding the certificate itself (a caBundle), or, as
// kube-apiserver does for kubelets without
// --kubelet-certificate-authority, by not verifying.
func SelfSigned(s Spec) (*Pair, error) {
	key, err := NewKey()
	if err != nil {
		return nil, fmt.Errorf("certificate %s: %w", s.CommonName, err)
	}
	p, err := sign(leafTemplate(s), nil, key, key)
	if err != nil {
		return nil, fmt.Errorf("certificate %s: %w", s.CommonName, err)
	}
	return p, nil
}

// TLS is the pair as a tls.Config certificate.
func (p *Pair) TLS() tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{p.Cert.Raw}, PrivateKey: p.Key, Leaf: p.Cert}
}

// SplitHosts sorts host names into DNS names and IP addresses, the two
// kinds of subject alternative name.
func SplitHosts(hosts []string) (dnsNames []string, ips []net.IP) {
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			ips = append(ips, ip)
		} else {
			dnsNames = append(dnsNames, h)
		}
	}
	return dnsNames, ips
}

// NewKey makes a private key of the kind every certificate here uses.
func NewKey() (crypto.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	return key, nil
}

func leafTemplate(s Spec) *x509.Certificate {
	validity := s.Validity
	if validity == 0 {
		validity = DefaultValidity
	}
	tmpl := template(pkix.Name{CommonName: s.CommonName, Organization: s.Organization}, validity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	tmpl.DNSNames = s.DNSNames
	tmpl.IPAddresses = s.IPs
	if s.Server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if s.Client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	return tmpl
}

func template(subject pkix.Name, validity time.Duration) *x509.Certificate {
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: newSerial(),
		Subject:      subject,
		NotBefore:    now.Add(-backdate),
		NotAfter:     now.Add(validity),
	}
}

// sign creates the certificate for key from tmpl, signed by parent's
// signer (parent nil: self-signed).
func sign(tmpl, parent *x509.Certificate, key, signer crypto.Signer) (*Pair, error) {
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyPEM, err := EncodeKey(key)
	if err != nil {
		return nil, err
	}
	return &Pair{Cert: cert, Key: key, CertPEM: EncodeCert(der), KeyPEM: keyPEM}, nil
}

// newSerial is 128 random bits, as RFC 5280 recommends.
func newSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		// crypto/rand does not fail on supported systems; a clock-based
		// serial still differs from every earlier one.
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}
