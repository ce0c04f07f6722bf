// Package standin is the program winkube runs in place of a container's
// own when it cannot follow it (an image it does not know, a command it
// does not emulate). Instead of a container that is Ready with nothing
// behind it, the stand-in listens on the ports the pod declares for the
// container (its containerPorts and the ports of its probes), so probes,
// Services, NodePorts, port-forward and `winkube net` exercise the real
// wiring, and it answers each connection in the protocol it speaks: an
// HTTP request gets 200 and a line saying what stands in for what; TLS is
// served with a self-signed certificate; a gRPC health check is SERVING;
// any other client is accepted and held until it closes.
package standin

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	grpchealth "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/winkube/winkube/pkg/certs"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Port is one port the stand-in serves.
type Port struct {
	Number int
	// Protocol is the containerPort's: TCP (the default), UDP or SCTP.
	// Only TCP is served; a datagram port is bound and left silent.
	Protocol string
}

// Config is what the stand-in says it stands in for and where it listens.
type Config struct {
	Image string
	// Why is what winkube could not follow ("the default command of the
	// image", "the program \"x\"").
	Why   string
	Ports []Port
}

// Main is the stand-in for cfg: it binds every port and then only waits
// to be stopped (program.Forever), holding no goroutine while idle.
func Main(cfg Config) program.Main {
	return func(ctx context.Context, p *program.Proc) int {
		srv, ok := p.Sys.Net.(program.Server)
		if !ok {
			return program.Forever
		}
		fmt.Fprintf(p.Stdout, "winkube stand-in for %s (%s): listening on %s\n", cfg.Image, cfg.Why, PortList(cfg.Ports))
		for _, port := range cfg.Ports {
			network := strings.ToLower(port.Protocol)
			if network == "" || network == "sctp" {
				network = "tcp" // the emulated network has no SCTP
			}
			handle := func(c io.ReadWriteCloser) { serveConn(cfg, c) }
			if network == "udp" {
				handle = func(c io.ReadWriteCloser) { _, _ = io.Copy(io.Discard, c); c.Close() }
			}
			if err := srv.Serve(ctx, network, port.Number, handle); err != nil {
				fmt.Fprintf(p.Stderr, "winkube stand-in: listen %s :%d: %s\n", network, port.Number, program.ErrorText(err, p.Sys.Windows))
			}
		}
		return program.Forever
	}
}

// PortList is the ports as the stand-in and its Emulated event name
// them: "9182/TCP, 53/UDP".
func PortList(ports []Port) string {
	if len(ports) == 0 {
		return "no port (the container declares none)"
	}
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = fmt.Sprintf("%d/%s", p.Number, strings.ToUpper(orTCP(p.Protocol)))
	}
	return strings.Join(parts, ", ")
}

func orTCP(proto string) string {
	if proto == "" {
		return "TCP"
	}
	return proto
}

// serveConn answers one client in the protocol its first bytes speak.
func serveConn(cfg Config, c io.ReadWriteCloser) {
	defer c.Close()
	br := bufio.NewReader(c)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	conn := &peekedConn{r: br, rwc: c}
	switch {
	case first[0] == 0x16: // a TLS ClientHello
		nc, ok := c.(net.Conn)
		if !ok {
			return
		}
		t := tls.Server(&peekedNetConn{Conn: nc, r: br}, tlsConfig())
		if t.Handshake() != nil {
			return
		}
		if t.ConnectionState().NegotiatedProtocol == "h2" {
			serveHTTP2(cfg, t)
			return
		}
		serveHTTP(cfg, t, bufio.NewReader(t))
	case isHTTP2Preface(br):
		nc, ok := c.(net.Conn)
		if !ok {
			return
		}
		serveHTTP2(cfg, &peekedNetConn{Conn: nc, r: br})
	case startsLikeHTTP(br):
		serveHTTP(cfg, conn, br)
	default:
		_, _ = io.Copy(io.Discard, br) // held until the client closes
	}
}

// serveHTTP2 answers gRPC health checks and plain HTTP/2 requests.
func serveHTTP2(cfg Config, c net.Conn) {
	body := answer(cfg)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
			grpcHealth().ServeHTTP(w, r)
			return
		}
		status, ctype, text := reply(cfg, r, body)
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, text)
	})
	(&http2.Server{}).ServeConn(c, &http2.ServeConnOpts{Handler: handler})
}

// answer is what the stand-in says to an HTTP client.
func answer(cfg Config) string {
	return fmt.Sprintf("winkube stand-in for %s: winkube does not run %s; this answer is the stand-in's, not the image's\n", cfg.Image, cfg.Why)
}

// serveHTTP answers HTTP/1.x requests until the client closes or asks to.
func serveHTTP(cfg Config, w io.Writer, br *bufio.Reader) {
	body := answer(cfg)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		status, ctype, text := reply(cfg, req, body)
		req.Body.Close()
		resp := &http.Response{
			StatusCode: status, ProtoMajor: 1, ProtoMinor: 1, Request: req,
			Header:        http.Header{"Content-Type": {ctype}, "X-Winkube-Stand-In": {cfg.Image}},
			ContentLength: int64(len(text)), Body: io.NopCloser(strings.NewReader(text)),
			Close: req.Close,
		}
		if err := resp.Write(w); err != nil || req.Close {
			return
		}
	}
}

// httpMethods start an HTTP/1.x request.
var httpMethods = []string{"GET ", "HEAD ", "POST ", "PUT ", "DELETE ", "OPTIONS ", "PATCH ", "CONNECT ", "TRACE "}

func startsLikeHTTP(br *bufio.Reader) bool {
	head, _ := br.Peek(8)
	for _, m := range httpMethods {
		if strings.HasPrefix(string(head), m) {
			return true
		}
	}
	return false
}

func isHTTP2Preface(br *bufio.Reader) bool {
	head, _ := br.Peek(len(http2.ClientPreface))
	return string(head) == http2.ClientPreface
}

// grpcHealth is a gRPC server whose health service says SERVING for every
// service name, as the stand-in cannot know which the program would serve.
var grpcHealth = sync.OnceValue(func() *grpc.Server {
	s := grpc.NewServer()
	h := health.NewServer()
	grpchealth.RegisterHealthServer(s, servingAll{h})
	return s
})

// servingAll answers SERVING for any service.
type servingAll struct{ *health.Server }

func (servingAll) Check(context.Context, *grpchealth.HealthCheckRequest) (*grpchealth.HealthCheckResponse, error) {
	return &grpchealth.HealthCheckResponse{Status: grpchealth.HealthCheckResponse_SERVING}, nil
}

// tlsConfig serves one self-signed certificate, made at the first TLS
// client of any stand-in: probes and the API server's proxy do not
// verify it.
var tlsConfig = sync.OnceValue(func() *tls.Config {
	pair, err := certs.SelfSigned(certs.Spec{CommonName: "winkube-stand-in", Server: true})
	if err != nil {
		return &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return &tls.Config{Certificates: []tls.Certificate{pair.TLS()}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
})

// peekedConn reads what was peeked first.
type peekedConn struct {
	r   *bufio.Reader
	rwc io.ReadWriteCloser
}

func (c *peekedConn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c *peekedConn) Write(b []byte) (int, error) { return c.rwc.Write(b) }

// peekedNetConn is a net.Conn whose first bytes were peeked.
type peekedNetConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedNetConn) Read(b []byte) (int, error) { return c.r.Read(b) }
