// Package dnsserver is the cluster's DNS server for `winkube up`: it watches
// Services, EndpointSlices and Namespaces, keeps the records of the
// Kubernetes DNS specification (pkg/network/dns) and answers them over UDP
// and TCP on one loopback port, as CoreDNS's kubernetes plugin would.
//
// It is built on github.com/miekg/dns, the DNS library CoreDNS itself uses,
// rather than on CoreDNS: CoreDNS's module requires the dependencies of all
// its plugins (cloud SDKs among them) and moves the etcd client modules
// ahead of the control plane's etcd server, and its answers would not come
// from the same records `winkube net check` reads.
package dnsserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"

	miekg "github.com/miekg/dns"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	clusterdns "github.com/winkube/winkube/pkg/network/dns"
)

// DefaultAddr binds a free port on the loopback address.
const DefaultAddr = "127.0.0.1:0"

// Options configure Start.
type Options struct {
	// Addr is the loopback host:port to serve on, UDP and TCP alike;
	// DefaultAddr when empty. Port 0 picks a port free for both.
	Addr string
	// ClusterDomain is the zone the server is authoritative for;
	// "cluster.local" when empty.
	ClusterDomain string
}

// Server is a running DNS server.
type Server struct {
	records *clusterdns.Records
	factory informers.SharedInformerFactory
	stop    chan struct{}
	udp     *miekg.Server
	tcp     *miekg.Server
	addr    string
	serving sync.WaitGroup
	once    sync.Once
	err     error
}

// Start watches the cluster through client, waits until the informers hold
// the current objects, and serves. ctx bounds the start only; the server
// runs until Close.
func Start(ctx context.Context, client kubernetes.Interface, o Options) (*Server, error) {
	if client == nil {
		return nil, errors.New("dns server: the API client is nil")
	}
	addr, err := checkAddr(o.Addr)
	if err != nil {
		return nil, err
	}
	s := &Server{records: clusterdns.NewRecords(o.ClusterDomain), stop: make(chan struct{})}
	if err := s.watch(ctx, client); err != nil {
		s.Close()
		return nil, err
	}
	pc, ln, err := listen(addr)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.addr = ln.Addr().String()
	s.serve(pc, ln)
	return s, nil
}

// checkAddr defaults and checks Options.Addr: the project's servers bind to
// the loopback address only.
func checkAddr(addr string) (string, error) {
	if addr == "" {
		return DefaultAddr, nil
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return "", fmt.Errorf("dns server: Options.Addr %q: want a loopback IP and port such as %s: %w", addr, DefaultAddr, err)
	}
	if !ap.Addr().IsLoopback() {
		return "", fmt.Errorf("dns server: Options.Addr %q: the server binds to a loopback address only, such as %s", addr, DefaultAddr)
	}
	return addr, nil
}

// listen binds UDP and TCP on the same port. With port 0 the UDP port the
// kernel picks may be taken for TCP; then it tries another.
func listen(addr string) (net.PacketConn, net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("dns server: Options.Addr %q: %w", addr, err)
	}
	tries := 1
	if port == "0" {
		tries = 20
	}
	var lastErr error
	for range tries {
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			return nil, nil, fmt.Errorf("dns server: listen on udp %s (Options.Addr): %w", addr, err)
		}
		bound := net.JoinHostPort(host, strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port))
		ln, err := net.Listen("tcp", bound)
		if err == nil {
			return pc, ln, nil
		}
		pc.Close()
		lastErr = err
	}
	return nil, nil, fmt.Errorf("dns server: listen on tcp %s (Options.Addr): %w", addr, lastErr)
}

func (s *Server) serve(pc net.PacketConn, ln net.Listener) {
	h := miekg.HandlerFunc(s.answer)
	s.udp = &miekg.Server{PacketConn: pc, Handler: h}
	s.tcp = &miekg.Server{Listener: ln, Handler: h}
	for network, srv := range map[string]*miekg.Server{"udp": s.udp, "tcp": s.tcp} {
		started := make(chan struct{})
		var once sync.Once
		ready := func() { once.Do(func() { close(started) }) }
		srv.NotifyStartedFunc = ready
		s.serving.Add(1)
		go func() {
			defer s.serving.Done()
			defer ready() // also when it fails to start
			if err := srv.ActivateAndServe(); err != nil {
				klog.ErrorS(err, "dns server stopped answering", "network", network, "addr", s.addr)
			}
		}()
		// Shutdown refuses a server that has not started yet, so Close
		// could otherwise leave it serving.
		<-started
	}
}

// Addr is the address the server answers on, "127.0.0.1:PORT".
func (s *Server) Addr() string { return s.addr }

// Records are the records the server answers from; they follow the
// cluster until Close.
func (s *Server) Records() *clusterdns.Records { return s.records }

// Close stops the listeners, waits for the requests in flight and stops
// the informers. It is safe to call more than once.
func (s *Server) Close() error {
	s.once.Do(func() {
		var errs []error
		for _, srv := range []*miekg.Server{s.udp, s.tcp} {
			if srv != nil {
				errs = append(errs, srv.Shutdown())
			}
		}
		s.serving.Wait()
		close(s.stop)
		if s.factory != nil {
			s.factory.Shutdown()
		}
		if err := errors.Join(errs...); err != nil {
			s.err = fmt.Errorf("dns server: stop: %w", err)
		}
	})
	return s.err
}
