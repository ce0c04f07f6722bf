// Package install puts the winkube admission webhook on a cluster: the
// certificates it serves with, the objects that run and register it, and
// applying or removing them through the API.
package install

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/winkube/winkube/pkg/certs"
)

// Validity of what NewCerts signs. kube-apiserver checks the serving
// certificate on every call, so a certificate close to expiry is replaced
// (see renewBefore) rather than left to break admission.
const (
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
	ca, err := certs.NewCA("winkube-webhook-ca")
	if err != nil {
		return nil, err
	}
	dnsNames, ips := certs.SplitHosts(hosts)
	serving, err := ca.Sign(certs.Spec{CommonName: hosts[0], DNSNames: dnsNames, IPs: ips, Server: true, Validity: servingValidity})
	if err != nil {
		return nil, err
	}
	return &Certs{CA: ca.CertPEM, Cert: serving.CertPEM, Key: serving.KeyPEM}, nil
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
