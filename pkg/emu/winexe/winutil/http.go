package winutil

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Errors of Get, so that each program words them its own way.
var (
	ErrResolve = errors.New("could not resolve host")
	ErrConnect = errors.New("could not connect")
	ErrTimeout = errors.New("timed out")
	ErrTLS     = errors.New("tls handshake failed")
	ErrURL     = errors.New("bad url")
)

// Request is an HTTP request made through a pod's network.
type Request struct {
	Method   string // GET when empty
	URL      string
	Insecure bool // do not verify the server's certificate (curl -k)
	// ConnectTimeout and Timeout are waited on the container's clock;
	// zero means no limit.
	ConnectTimeout, Timeout time.Duration
	// Header replaces or adds to the default request headers (an empty
	// value removes one, as curl -H "Name:" does); Body is sent with a
	// Content-Length.
	Header http.Header
	Body   []byte
}

// Response is what the server answered.
type Response struct {
	StatusCode int
	Status     string // "200 OK"
	Proto      string
	Header     http.Header
	Body       []byte
}

// Host is the host name of a URL, or of a bare host[:port].
func Host(rawURL string) string {
	u, err := parseURL(rawURL)
	if err != nil {
		return rawURL
	}
	return u.Hostname()
}

func parseURL(raw string) (*url.URL, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return nil, ErrURL
	}
	return u, nil
}

// Get sends the request through n (nil: a pod without a modelled
// network, where no name resolves) and reads the whole answer.
func Get(ctx context.Context, sys *program.Sys, req Request) (*Response, error) {
	u, err := parseURL(req.URL)
	if err != nil {
		return nil, err
	}
	ctx, stop := withTimeout(ctx, sys, req.Timeout)
	defer stop()
	conn, err := dial(ctx, sys, u, req.ConnectTimeout)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	defer close(done)
	go func() { // a stopped request closes its connection to end a blocked read
		select {
		case <-ctx.Done():
			conn.Close()
		case <-done:
		}
	}()
	defer conn.Close()
	if u.Scheme == "https" {
		if conn, err = handshake(conn, u.Hostname(), req.Insecure); err != nil {
			return nil, err
		}
	}
	resp, err := exchange(conn, u, req)
	if err != nil && ctx.Err() != nil {
		return nil, ErrTimeout
	}
	return resp, err
}

// dial resolves the URL's host and connects to it.
func dial(ctx context.Context, sys *program.Sys, u *url.URL, limit time.Duration) (io.ReadWriteCloser, error) {
	if sys.Net == nil {
		return nil, ErrResolve
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	host := u.Hostname()
	if net.ParseIP(host) == nil {
		addrs, err := sys.Net.LookupHost(ctx, host)
		if err != nil || len(addrs) == 0 {
			return nil, ErrResolve
		}
		host = addrs[0]
	}
	dctx, stop := withTimeout(ctx, sys, limit)
	defer stop()
	conn, err := sys.Net.Dial(dctx, "tcp", net.JoinHostPort(host, port))
	switch {
	case err != nil && dctx.Err() != nil:
		return nil, ErrTimeout
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrConnect, err)
	}
	return conn, nil
}

// withTimeout is context.WithTimeout on the container's clock.
func withTimeout(ctx context.Context, sys *program.Sys, d time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	if d <= 0 {
		return ctx, cancel
	}
	go func() {
		if sys.Sleep(ctx, d) {
			cancel()
		}
	}()
	return ctx, cancel
}

func exchange(conn io.ReadWriteCloser, u *url.URL, req Request) (*Response, error) {
	method := req.Method
	if method == "" {
		method = "GET"
	}
	if _, err := io.WriteString(conn, requestText(u, method, req)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConnect, err)
	}
	if len(req.Body) > 0 {
		if _, err := conn.Write(req.Body); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConnect, err)
		}
	}
	r, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConnect, err)
	}
	defer r.Body.Close()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConnect, err)
	}
	return &Response{StatusCode: r.StatusCode, Status: r.Status, Proto: r.Proto, Header: r.Header, Body: body}, nil
}

// requestText is the request line and headers: curl's defaults, then
// req.Header's, in order.
func requestText(u *url.URL, method string, req Request) string {
	h := http.Header{"Host": {u.Host}, "User-Agent": {"curl/8.4.0"}, "Accept": {"*/*"}}
	if len(req.Body) > 0 {
		h.Set("Content-Length", fmt.Sprint(len(req.Body)))
	}
	for k, vs := range req.Header {
		if len(vs) == 1 && vs[0] == "" {
			delete(h, http.CanonicalHeaderKey(k))
			continue
		}
		h[http.CanonicalHeaderKey(k)] = vs
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\n", method, u.RequestURI())
	for _, k := range []string{"Host", "User-Agent", "Accept"} {
		if v := h.Get(k); v != "" {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
		delete(h, k)
	}
	h.Del("Connection")
	h.Write(&b)
	b.WriteString("Connection: close\r\n\r\n")
	return b.String()
}

// handshake speaks TLS over the pod connection. The container's trust
// store is not modelled, so only an unverified (-k) connection succeeds.
func handshake(conn io.ReadWriteCloser, host string, insecure bool) (io.ReadWriteCloser, error) {
	cfg := &tls.Config{ServerName: host, InsecureSkipVerify: insecure, RootCAs: x509.NewCertPool()}
	t := tls.Client(netConn{conn}, cfg)
	if err := t.Handshake(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTLS, err)
	}
	return t, nil
}

// netConn gives a pod connection the net.Conn methods tls needs.
type netConn struct{ io.ReadWriteCloser }

func (netConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (netConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (netConn) SetDeadline(time.Time) error      { return nil }
func (netConn) SetReadDeadline(time.Time) error  { return nil }
func (netConn) SetWriteDeadline(time.Time) error { return nil }

// Port is the port a URL connects to.
func Port(rawURL string) string {
	u, err := parseURL(rawURL)
	switch {
	case err != nil:
		return "80"
	case u.Port() != "":
		return u.Port()
	case u.Scheme == "https":
		return "443"
	}
	return "80"
}
