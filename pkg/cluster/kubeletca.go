package cluster

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"

	"k8s.io/client-go/rest"
)

// What a join needs to know of the cluster to serve the kubelet API: the
// address the API server reaches this machine on, and the CA its kubelet
// client certificate is signed by.

// ServerCA is the certificate authority cfg trusts the API server with
// (its CA data, else its CA file); nil when it names none. kubeadm, kind
// and winkube up sign the API server's kubelet client certificate with
// that same CA, so it is what the nodes' kubelet API verifies by default.
func ServerCA(cfg *rest.Config) ([]byte, error) {
	if len(cfg.CAData) > 0 || cfg.CAFile == "" {
		return cfg.CAData, nil
	}
	return os.ReadFile(cfg.CAFile)
}

// ReadCA reads a PEM CA bundle and checks it (CheckCA).
func ReadCA(path string) ([]byte, error) {
	pemBytes, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := CheckCA(pemBytes); err != nil {
		return nil, err
	}
	return pemBytes, nil
}

// CheckCA checks that pemBytes holds PEM certificates, all of them CAs:
// a leaf here (the API server's client certificate itself, say) would
// verify nothing.
func CheckCA(pemBytes []byte) error {
	n := 0
	for rest := pemBytes; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("holds a %s, not only CA certificates", block.Type)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return fmt.Errorf("not a PEM CA certificate: %w", err)
		}
		if !cert.IsCA {
			return fmt.Errorf("the certificate of %q is not a CA's; give the CA that signed it", cert.Subject.CommonName)
		}
	}
	if n == 0 {
		return errors.New("no PEM certificate in it (want the CA bundle, -----BEGIN CERTIFICATE-----)")
	}
	return nil
}

// RouteTo is this machine's address on the route to the API server at
// host (a URL, as in a kubeconfig): the local address of a UDP socket
// "connected" to it (no packet is sent).
func RouteTo(host string) (netip.Addr, error) {
	u, err := url.Parse(host)
	if err != nil {
		return netip.Addr{}, err
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	c, err := net.Dial("udp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return netip.Addr{}, err
	}
	defer c.Close()
	ap, err := netip.ParseAddrPort(c.LocalAddr().String())
	if err != nil {
		return netip.Addr{}, err
	}
	return ap.Addr().Unmap(), nil
}
