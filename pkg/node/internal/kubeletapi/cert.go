package kubeletapi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/winkube/winkube/pkg/certs"
)

// servingCerts holds the certificate each node serves: one self-signed
// certificate for all until the certificates API issues a node its own.
type servingCerts struct {
	mu     sync.Mutex
	shared tls.Certificate
	own    map[string]*tls.Certificate
}

// get picks the certificate for a connection to a node's kubelet.
func (c *servingCerts) get(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if nc, ok := hello.Conn.(nodeConn); ok {
		if cert := c.own[nc.node]; cert != nil {
			return cert, nil
		}
	}
	return &c.shared, nil
}

func (c *servingCerts) set(node string, cert *tls.Certificate) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.own[node] = cert
}

// newServingCerts starts with the user's certificate, else a self-signed
// one naming every node and its addresses. kube-apiserver does not verify
// kubelet certificates unless --kubelet-certificate-authority is set
// (kind's default), so the self-signed one serves until another is issued.
func (s *Server) newServingCerts() (*servingCerts, error) {
	c := &servingCerts{own: map[string]*tls.Certificate{}}
	if s.serving != nil && s.serving.Cert != nil {
		c.shared = *s.serving.Cert
		return c, nil
	}
	var ips []net.IP
	for _, name := range s.cfg.Names {
		ips = append(ips, s.ips(name)...)
	}
	p, err := certs.SelfSigned(certs.Spec{CommonName: "winkube-kubelet", DNSNames: s.cfg.Names, IPs: ips, Server: true})
	if err != nil {
		return c, err
	}
	c.shared = p.TLS()
	return c, nil
}

// ips are the addresses a node's serving certificate names: its emulated
// address and its real listener's.
func (s *Server) ips(node string) []net.IP {
	var out []net.IP
	if n := s.cfg.Node(node); n != nil {
		if ip := net.ParseIP(n.Facts().IP); ip != nil {
			out = append(out, ip)
		}
	}
	if ep, ok := s.endpoints[node]; ok {
		out = append(out, net.IP(ep.Addr().AsSlice()))
	}
	return out
}

// ServingCSR is a certificate signing request filed for one node.
type ServingCSR struct {
	Node, Name string
	// Approved is true when the agent approved it itself; ApproveErr says
	// why it could not when asked to.
	Approved   bool
	ApproveErr error
}

// RequestServingCerts files one kubernetes.io/kubelet-serving CSR per node,
// as a kubelet with serverTLSBootstrap does (subject system:node:NAME in
// system:nodes, the node's name and addresses as SANs), approves each when
// approve is set and the identity may, and serves each node's issued
// certificate as soon as it appears. It does nothing when a certificate
// was given (KubeletServing.Cert) or the API is served in-process only.
func (s *Server) RequestServingCerts(ctx context.Context, approve bool) ([]ServingCSR, error) {
	if s.serving == nil || s.serving.Cert != nil {
		return nil, nil
	}
	s.once.Do(s.start)
	if s.startErr != nil {
		return nil, s.startErr
	}
	var out []ServingCSR
	for _, name := range s.cfg.Names {
		key, csr, err := s.fileCSR(ctx, name)
		if err != nil {
			return out, fmt.Errorf("certificate signing request for node %s: %w", name, err)
		}
		r := ServingCSR{Node: name, Name: csr.Name}
		if approve {
			r.ApproveErr = s.approveCSR(ctx, csr)
			r.Approved = r.ApproveErr == nil
		}
		out = append(out, r)
		s.wg.Go(func() { s.awaitCert(name, csr.Name, key) })
	}
	return out, nil
}

// fileCSR creates the node's CSR with a new key.
func (s *Server) fileCSR(ctx context.Context, node string) (*ecdsa.PrivateKey, *certificatesv1.CertificateSigningRequest, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject:     pkix.Name{CommonName: "system:node:" + node, Organization: []string{"system:nodes"}},
		DNSNames:    []string{node},
		IPAddresses: s.ips(node),
	}, key)
	if err != nil {
		return nil, nil, err
	}
	csr := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "winkube-" + node + "-"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: certificatesv1.KubeletServingSignerName,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth},
		},
	}
	created, err := s.cfg.Client.CertificatesV1().CertificateSigningRequests().Create(ctx, csr, metav1.CreateOptions{})
	return key, created, err
}

func (s *Server) approveCSR(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) error {
	csr = csr.DeepCopy()
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue,
		Reason: "WinkubeNodesApprove", Message: "approved by winkube nodes --approve-csr",
	})
	_, err := s.cfg.Client.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{})
	return err
}

// csrPoll is how often the agent looks for an issued certificate.
const csrPoll = time.Second

// awaitCert waits for the CSR's certificate and serves it for the node,
// until the agent stops or the CSR is denied or fails.
func (s *Server) awaitCert(node, name string, key *ecdsa.PrivateKey) {
	csrs := s.cfg.Client.CertificatesV1().CertificateSigningRequests()
	_ = wait.PollUntilContextCancel(s.ctx, csrPoll, true, func(ctx context.Context) (bool, error) {
		csr, err := csrs.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil // retried: the API may be briefly away
		}
		for _, c := range csr.Status.Conditions {
			if c.Type == certificatesv1.CertificateDenied || c.Type == certificatesv1.CertificateFailed {
				s.cfg.Progress("node %s: serving certificate request %s %s: %s; the node keeps its self-signed certificate", node, name, c.Type, c.Message)
				return true, nil
			}
		}
		if len(csr.Status.Certificate) == 0 {
			return false, nil
		}
		cert, err := issuedCert(csr.Status.Certificate, key)
		if err != nil {
			s.cfg.Progress("node %s: serving certificate of %s: %v", node, name, err)
			return true, nil
		}
		s.certs.set(node, cert)
		s.cfg.Progress("node %s serves the certificate issued for %s", node, name)
		return true, nil
	})
}

// issuedCert pairs the issued PEM chain with the request's key.
func issuedCert(chain []byte, key *ecdsa.PrivateKey) (*tls.Certificate, error) {
	cert := &tls.Certificate{PrivateKey: key}
	for rest := chain; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "CERTIFICATE" {
			cert.Certificate = append(cert.Certificate, b.Bytes)
		}
	}
	if len(cert.Certificate) == 0 {
		return nil, errors.New("no certificate in status.certificate")
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return nil, err
	}
	if pub, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
		return nil, errors.New("the issued certificate is not for the request's key")
	}
	cert.Leaf = leaf
	return cert, nil
}
