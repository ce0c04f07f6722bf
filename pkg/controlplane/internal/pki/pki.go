// Package pki creates the certificate authorities, leaf certificates and
// signing keys of a winkube control plane.
//
// CAs and the service-account key are created once and then reused from disk,
// so a restarted cluster keeps trusting the credentials it handed out. Leaf
// certificates are cheap (ECDSA P-256) and are issued afresh on every start,
// which keeps their SANs in step with the options without any staleness checks.
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
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

const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 365 * 24 * time.Hour
	// clockSkew back-dates certificates so a freshly issued one is valid for
	// peers whose clocks run slightly behind.
	clockSkew = 5 * time.Minute
)

// CA is a certificate authority whose files live at <dir>/<name>.crt and .key.
type CA struct {
	Cert     *x509.Certificate
	Key      crypto.Signer
	CertFile string
	KeyFile  string
	CertPEM  []byte
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
	cert, err := parseCert(certPEM)
	if err != nil {
		return fmt.Errorf("parse %s: %w", ca.CertFile, err)
	}
	key, err := parseKey(keyPEM)
	if err != nil {
		return fmt.Errorf("parse %s: %w", ca.KeyFile, err)
	}
	ca.Cert, ca.Key, ca.CertPEM = cert, key, certPEM
	return nil
}

func (ca *CA) create(commonName string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate CA key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          newSerial(),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-clockSkew),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return fmt.Errorf("self-sign CA %s: %w", commonName, err)
	}
	ca.Cert, _ = x509.ParseCertificate(der)
	ca.Key = key
	ca.CertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM, err := encodeKey(key)
	if err != nil {
		return err
	}
	// Key first: a crash in between leaves "key without cert", which
	// LoadOrCreateCA reports instead of silently minting a second CA.
	if err := writeFile(ca.KeyFile, keyPEM, 0o600); err != nil {
		return err
	}
	return writeFile(ca.CertFile, ca.CertPEM, 0o644)
}

// Issue signs a new leaf certificate and writes it to dir.
func (ca *CA) Issue(dir string, l Leaf) (*Issued, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate key for %s: %w", l.Name, err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: newSerial(),
		Subject:      pkix.Name{CommonName: l.CommonName, Organization: l.Organization},
		NotBefore:    now.Add(-clockSkew),
		NotAfter:     now.Add(leafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		DNSNames:     l.DNSNames,
		IPAddresses:  l.IPs,
	}
	if l.Server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if l.Client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", l.Name, err)
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return nil, err
	}
	out := &Issued{
		CertFile: filepath.Join(dir, l.Name+".crt"),
		KeyFile:  filepath.Join(dir, l.Name+".key"),
		CertPEM:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:   keyPEM,
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
	var key crypto.Signer
	switch {
	case err == nil:
		if key, err = parseKey(keyPEM); err != nil {
			return "", "", fmt.Errorf("parse %s: %w", keyFile, err)
		}
	case errors.Is(err, os.ErrNotExist):
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return "", "", fmt.Errorf("generate %s: %w", name, err)
		}
		if keyPEM, err = encodeKey(key); err != nil {
			return "", "", err
		}
		if err := writeFile(keyFile, keyPEM, 0o600); err != nil {
			return "", "", err
		}
	default:
		return "", "", fmt.Errorf("read %s: %w", keyFile, err)
	}
	// The public half is derived, so rewriting it every time cannot go stale.
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return "", "", fmt.Errorf("encode %s public key: %w", name, err)
	}
	return keyFile, pubFile, writeFile(pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644)
}

func parseCert(data []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM certificate found")
	}
	return x509.ParseCertificate(block.Bytes)
}

func parseKey(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM key found")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("key of type %T cannot sign", key)
	}
	return signer, nil
}

func encodeKey(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

func newSerial() *big.Int {
	// 128 random bits, as RFC 5280 recommends; crypto/rand never fails on Linux.
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	return n
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
