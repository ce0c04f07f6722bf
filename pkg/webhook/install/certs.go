// Package install puts the winkube admission webhook on a cluster: the
// certificates it serves with, the objects that run and register it, and
// applying or removing them through the API.
package install

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Validity of what NewCerts signs. kube-apiserver checks the serving
// certificate on every call, so a certificate close to expiry is replaced
// (see renewBefore) rather than left to break admission.
const (
	caValidity      = 10 * 365 * 24 * time.Hour
	servingValidity = 2 * 365 * 24 * time.Hour
	renewBefore     = 30 * 24 * time.Hour
)

// File names of the certificates in a directory, as in a
// kubernetes.io/tls Secret.
const (
	CAFile   = "ca.crt"
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
)

// Certs are PEM-encoded: the CA that kube-apiserver trusts (the
// configurations' caBundle) and the serving certificate and key it signed.
// The CA's key is not kept: new hosts get a new CA.
type Certs struct {
	CA   []byte
	Cert []byte
	Key  []byte
}

// NewCerts makes a CA and a serving certificate for hosts, each a DNS
// name or an IP address.
func NewCerts(hosts []string) (*Certs, error) {
	if len(hosts) == 0 {
		return nil, errors.New("serving certificate: no host name")
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "winkube-webhook-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("serving key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(servingValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("serving key: %w", err)
	}
	return &Certs{
		CA:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

// TLS is the serving certificate and key for a tls.Config.
func (c *Certs) TLS() (tls.Certificate, error) {
	cert, err := tls.X509KeyPair(c.Cert, c.Key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("serving certificate: %w", err)
	}
	return cert, nil
}

// Check reports why the certificates cannot serve hosts for at least
// another renewBefore: a serving certificate that the CA does not sign, that
// does not name every host, that expires soon, or a key that does not match.
func (c *Certs) Check(hosts []string, now time.Time) error {
	if _, err := c.TLS(); err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(c.CA) {
		return errors.New("CA bundle: no certificate")
	}
	block, _ := pem.Decode(c.Cert)
	if block == nil {
		return errors.New("serving certificate: not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return fmt.Errorf("serving certificate: %w", err)
	}
	for _, at := range []time.Time{now, now.Add(renewBefore)} {
		for _, h := range hosts {
			opts := x509.VerifyOptions{DNSName: h, Roots: pool, CurrentTime: at, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
			if _, err := cert.Verify(opts); err != nil {
				return fmt.Errorf("serving certificate for %s on %s: %w", h, at.Format(time.DateOnly), err)
			}
		}
	}
	return nil
}

// WriteCerts writes the certificates into dir as ca.crt, tls.crt and
// tls.key (the key readable by the owner only).
func WriteCerts(dir string, c *Certs) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("certificate directory: %w", err)
	}
	for name, data := range map[string][]byte{CAFile: c.CA, CertFile: c.Cert, KeyFile: c.Key} {
		mode := os.FileMode(0o644)
		if name == KeyFile {
			mode = 0o600
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, mode); err != nil {
			return fmt.Errorf("writing certificate: %w", err)
		}
	}
	return nil
}

// ReadCerts reads what WriteCerts wrote.
func ReadCerts(dir string) (*Certs, error) {
	var c Certs
	for name, dst := range map[string]*[]byte{CAFile: &c.CA, CertFile: &c.Cert, KeyFile: &c.Key} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("reading certificate: %w", err)
		}
		*dst = data
	}
	return &c, nil
}

// EnsureCerts returns the certificates in dir when they still serve hosts,
// else new ones written there; created says which.
func EnsureCerts(dir string, hosts []string) (c *Certs, created bool, err error) {
	if old, err := ReadCerts(dir); err == nil && old.Check(hosts, time.Now()) == nil {
		return old, false, nil
	}
	c, err = NewCerts(hosts)
	if err != nil {
		return nil, false, err
	}
	if err := WriteCerts(dir, c); err != nil {
		return nil, false, err
	}
	return c, true, nil
}
