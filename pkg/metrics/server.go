// Package metrics serves the resource metrics API (metrics.k8s.io/v1beta1)
// that `kubectl top` and the HorizontalPodAutoscaler read, as an API
// aggregated by kube-apiserver. It reads each node's kubelet summary
// (/stats/summary) through the API server's node proxy, as metrics-server
// reads the kubelets, so it serves emulated and real nodes alike.
//
// winkube serves this itself rather than run sigs.k8s.io/metrics-server:
// metrics-server v0.9 raises the module's Go directive and a dozen shared
// dependencies (etcd, kube-openapi, structured-merge-diff) past the versions
// the embedded control plane is built with, pulls in Prometheus' server
// module, and dials kubelets at their node addresses directly, which lead
// nowhere for emulated nodes.
package metrics

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/winkube/winkube/pkg/certs"
)

// Service names the Service in kube-system the APIService points at.
const (
	ServiceName      = "winkube-metrics"
	ServiceNamespace = "kube-system"
	servicePort      = 443
)

// Server is a running metrics API.
type Server struct {
	client    kubernetes.Interface
	ln        net.Listener
	srv       *http.Server
	caBundle  []byte
	clusterIP string
	allowed   []string // front-proxy client names the apiserver may use
	mu        sync.Mutex
}

// Start serves on 127.0.0.1 and registers the APIService with the cluster
// of cfg. Until Close, Dial connects the apiserver's calls to the Service.
func Start(ctx context.Context, cfg *rest.Config) (*Server, error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("metrics API client: %w", err)
	}
	agg, err := aggregator.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("metrics API client: %w", err)
	}
	s := &Server{client: client}
	clientCAs, err := s.readFrontProxy(ctx)
	if err != nil {
		return nil, err
	}
	cert, err := s.servingCert()
	if err != nil {
		return nil, err
	}
	tlsCfg := &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    clientCAs,
		MinVersion:   tls.VersionTLS12,
	}
	if s.ln, err = tls.Listen("tcp", "127.0.0.1:0", tlsCfg); err != nil {
		return nil, fmt.Errorf("metrics API: %w", err)
	}
	s.srv = &http.Server{Handler: s.authenticated(s.routes()), ReadHeaderTimeout: 30 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = s.srv.Serve(s.ln) }()
	if err := s.register(ctx, agg); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// readFrontProxy reads the CA and names kube-apiserver's aggregator
// presents, from the ConfigMap the apiserver publishes for aggregated APIs.
func (s *Server) readFrontProxy(ctx context.Context) (*x509.CertPool, error) {
	cm, err := s.client.CoreV1().ConfigMaps("kube-system").Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("metrics API: reading kube-system/extension-apiserver-authentication: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(cm.Data["requestheader-client-ca-file"])) {
		return nil, errors.New("metrics API: kube-apiserver has no --requestheader-client-ca-file, so it cannot call aggregated APIs")
	}
	if names := cm.Data["requestheader-allowed-names"]; names != "" {
		if err := json.Unmarshal([]byte(names), &s.allowed); err != nil {
			return nil, fmt.Errorf("metrics API: requestheader-allowed-names %q: %w", names, err)
		}
	}
	return pool, nil
}

// authenticated admits only the aggregator's front-proxy client. The
// apiserver has already authorized the user for metrics.k8s.io before it
// proxies, so the request headers naming the user need no second check.
func (s *Server) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
			writeStatus(w, http.StatusUnauthorized, "Unauthorized", "a front-proxy client certificate is required")
			return
		}
		cn := r.TLS.PeerCertificates[0].Subject.CommonName
		if len(s.allowed) > 0 && !slices.Contains(s.allowed, cn) {
			writeStatus(w, http.StatusUnauthorized, "Unauthorized", fmt.Sprintf("client %q is not an allowed front proxy", cn))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// servingCert is a self-signed certificate for the Service's DNS name,
// which the aggregator checks; its PEM is the APIService's caBundle.
func (s *Server) servingCert() (tls.Certificate, error) {
	name := ServiceName + "." + ServiceNamespace + ".svc"
	p, err := certs.SelfSigned(certs.Spec{CommonName: name, DNSNames: []string{name, name + ".cluster.local"}, Server: true})
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("metrics API serving certificate: %w", err)
	}
	s.caBundle = p.CertPEM
	return p.TLS(), nil
}

// Dial connects kube-apiserver to this server when addr is the Service's
// ClusterIP and port; it fits controlplane.NodeDialer.
func (s *Server) Dial(ctx context.Context, addr string) (net.Conn, bool, error) {
	s.mu.Lock()
	ip, ln := s.clusterIP, s.ln
	s.mu.Unlock()
	if ip == "" || ln == nil || addr != net.JoinHostPort(ip, fmt.Sprint(servicePort)) {
		return nil, false, nil
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", ln.Addr().String())
	return conn, true, err
}

// Close stops serving. The APIService stays registered, as metrics-server's
// does when its pod stops; the next Start brings it back.
func (s *Server) Close() {
	s.mu.Lock()
	s.clusterIP = ""
	s.mu.Unlock()
	if s.srv != nil {
		_ = s.srv.Close()
	}
}
