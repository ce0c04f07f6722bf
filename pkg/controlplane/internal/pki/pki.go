// Package pki keeps the certificate authorities, leaf certificates and
// signing keys of a winkube control plane on disk; pkg/certs mints them.
//
// CAs and the service-account key are created once and then reused from disk,
// so a restarted cluster keeps trusting the credentials it handed out. Leaf
// certificates are cheap and are issued afresh on every start, which keeps
// their SANs in step with the options without any staleness checks.
package pki

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/winkube/winkube/pkg/certs"
)

// CA is a certificate authority whose files live at <dir>/<name>.crt and .key.
type CA struct {
	*certs.Pair
	CertFile string
	KeyFile  string
}

// Leaf describes a certificate to issue.
type Leaf struct {
	Name         string // file name stem: <dir>/<Name>.crt and .key
	CommonName   string
	Organization []string
	DNSNames     []string
	IPs          []net.IP
	Server       bool // usable as a TLS server certificate
	Client       bool // usable as a TLS client certificate
}

// Issued is a leaf certificate written to disk, with its PEM kept for
// embedding in kubeconfigs.
type Issued struct {
	CertFile, KeyFile string
	CertPEM, KeyPEM   []byte
}

// LoadOrCreateCA loads the CA at dir/name.{crt,key}, creating it if neither
// file exists. A CA with only one of its files present is an error: silently
// replacing it would invalidate every credential issued before.
func LoadOrCreateCA(dir, name, commonName string) (*CA, error) {
	ca := &CA{CertFile: filepath.Join(dir, name+".crt"), KeyFile: filepath.Join(dir, name+".key")}
	certPEM, certErr := os.ReadFile(ca.CertFile)
	keyPEM, keyErr := os.ReadFile(ca.KeyFile)
	switch {
	case certErr == nil && keyErr == nil:
		return ca, ca.parse(certPEM, keyPEM)
	case errors.Is(certErr, os.ErrNotExist) && errors.Is(keyErr, os.ErrNotExist):
		return ca, ca.create(commonName)
	case certErr != nil && !errors.Is(certErr, os.ErrNotExist):
		return nil, fmt.Errorf("read CA certificate: %w", certErr)
	case keyErr != nil && !errors.Is(keyErr, os.ErrNotExist):
		return nil, fmt.Errorf("read CA key: %w", keyErr)
	default:
		return nil, fmt.Errorf("CA %s is incomplete: need both %s and %s (remove both to create a new CA)",
			name, ca.CertFile, ca.KeyFile)
	}
}

func (ca *CA) parse(certPEM, keyPEM []byte) error {
	p, err := certs.Parse(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("parse CA %s and %s: %w", ca.CertFile, ca.KeyFile, err)
	}
	ca.Pair = p
	return nil
}

func (ca *CA) create(commonName string) error {
	p, err := certs.NewCA(commonName)
	if err != nil {
		return err
	}
	ca.Pair = p
	// Key first: a crash in between leaves "key without cert", which
	// LoadOrCreateCA reports instead of silently minting a second CA.
	if err := writeFile(ca.KeyFile, p.KeyPEM, 0o600); err != nil {
		return err
	}
	return writeFile(ca.CertFile, p.CertPEM, 0o644)
}

// Issue signs a new leaf certificate and writes it to dir.
func (ca *CA) Issue(dir string, l Leaf) (*Issued, error) {
	p, err := ca.Sign(certs.Spec{
		CommonName: l.CommonName, Organization: l.Organization,
		DNSNames: l.DNSNames, IPs: l.IPs, Server: l.Server, Client: l.Client,
	})
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", l.Name, err)
	}
	out := &Issued{
		CertFile: filepath.Join(dir, l.Name+".crt"),
		KeyFile:  filepath.Join(dir, l.Name+".key"),
		CertPEM:  p.CertPEM,
		KeyPEM:   p.KeyPEM,
	}
	if err := writeFile(out.KeyFile, out.KeyPEM, 0o600); err != nil {
		return nil, err
	}
	return out, writeFile(out.CertFile, out.CertPEM, 0o644)
}

// LoadOrCreateKeyPair loads <dir>/<name>.key and .pub, creating them if the
// private key is missing. The service-account tokens already handed out are
// signed with it, so it must survive restarts.
func LoadOrCreateKeyPair(dir, name string) (keyFile, pubFile string, err error) {
	keyFile, pubFile = filepath.Join(dir, name+".key"), filepath.Join(dir, name+".pub")
	keyPEM, err := os.ReadFile(keyFile)
	switch {
	case err == nil:
	case errors.Is(err, os.ErrNotExist):
		if keyPEM, err = newKeyPEM(); err != nil {
			return "", "", fmt.Errorf("%s: %w", name, err)
		}
		if err := writeFile(keyFile, keyPEM, 0o600); err != nil {
			return "", "", err
		}
	default:
		return "", "", fmt.Errorf("read %s: %w", keyFile, err)
	}
	key, err := certs.ParseKey(keyPEM)
	if err != nil {
		return "", "", fmt.Errorf("parse %s: %w", keyFile, err)
	}
	// The public half is derived, so rewriting it every time cannot go stale.
	pubPEM, err := certs.EncodePublicKey(key.Public())
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", name, err)
	}
	return keyFile, pubFile, writeFile(pubFile, pubPEM, 0o644)
}

func newKeyPEM() ([]byte, error) {
	key, err := certs.NewKey()
	if err != nil {
		return nil, err
	}
	return certs.EncodeKey(key)
}

// writeFile writes via a temporary file and rename, so a reader (or a crash)
// never sees half a key.
func writeFile(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
