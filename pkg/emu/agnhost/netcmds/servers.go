package netcmds

import (
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// A server prints what the real one prints at start and serves until
// the container stops. Without a pod network (Sys.Net nil) it only
// waits; a stopped server returns 0 (SIGTERM ends them all with 0 or by
// the signal, which the caller words).

// wait blocks until ctx is done; it is a server with nothing to serve.
func wait(ctx context.Context) int {
	<-ctx.Done()
	return 0
}

// serveOn serves h on port until ctx is done or stop is closed; without
// a network it waits. A port it cannot open ends it as log.Fatal does.
func serveOn(a *kit.App, ctx context.Context, port int, h http.Handler, stop <-chan struct{}) int {
	if a.P.Sys.Net == nil {
		select {
		case <-ctx.Done():
		case <-stop:
		}
		return 0
	}
	l, err := kit.Listen(ctx, a.P, "tcp", port)
	if err != nil {
		a.Log.Printf("listen tcp :%d: %v", port, err)
		return 1
	}
	kit.ServeHTTP(ctx, l, h, a.Log, stop)
	return 0
}

// Liveness answers /healthz with 200 "ok" for its first 10 seconds and
// 500 "error: <seconds>" after.
func Liveness(ctx context.Context, a *kit.App, _ []string) int {
	clock := a.P.Sys.Clock
	started := clock.Now()
	mux := http.NewServeMux()
	mux.HandleFunc("/started", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(200)
		io.WriteString(w, clock.Now().Sub(started).String())
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		d := clock.Now().Sub(started)
		if d.Seconds() > 10 {
			w.WriteHeader(500)
			fmt.Fprintf(w, "error: %v", d.Seconds())
			return
		}
		w.WriteHeader(200)
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		loc, err := url.QueryUnescape(r.URL.Query().Get("loc"))
		if err != nil {
			http.Error(w, fmt.Sprintf("invalid redirect: %q", r.URL.Query().Get("loc")), http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, loc, http.StatusFound)
	})
	return serveOn(a, ctx, 8080, mux, nil)
}

// FakeGitServer is fake-gitserver.
func FakeGitServer(ctx context.Context, a *kit.App, _ []string) int {
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "I am a fake git server")
	})
	return serveOn(a, ctx, 8000, h, nil)
}

// ServeHostnameSetup declares the flags of its subcommand and returns its body.
func ServeHostnameSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var tcp, udp, doHTTP, doClose bool
	var port int
	fs.BoolVar(&tcp, "tcp", false, "Serve raw over TCP.")
	fs.BoolVar(&udp, "udp", false, "Serve raw over UDP.")
	fs.BoolVar(&doHTTP, "http", true, "Serve HTTP.")
	fs.BoolVar(&doClose, "close", false, "Close connection per each HTTP request.")
	fs.IntVar(&port, "port", 9376, "Port number.")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		if doHTTP && (tcp || udp) {
			a.Log.Printf("Can't server TCP/UDP mode and HTTP mode at the same time")
			return 1
		}
		hostname := a.P.Sys.Hostname
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			a.Log.Printf("HTTP request from %s", r.RemoteAddr)
			if doClose {
				w.Header().Add("Connection", "close")
			}
			io.WriteString(w, hostname)
		})
		a.Log.Printf("Serving on port %d.\n", port)
		switch {
		case doHTTP:
			serveOn(a, ctx, port, h, nil)
		case tcp && a.P.Sys.Net != nil:
			// traffic: --udp is not served yet.
			serveRaw(a, ctx, port, func(c net.Conn) {
				a.Log.Printf("TCP request from %s", c.RemoteAddr())
				io.WriteString(c, hostname)
			})
		default:
			<-ctx.Done()
		}
		a.Log.Printf("Shutting down after receiving signal: terminated.\n")
		a.Log.Printf("Awaiting pod deletion.\n")
		return 0
	}
}

// serveRaw accepts TCP connections on port and hands each to fn, which
// must not block; the connection is closed after it. It returns when
// ctx is done.
func serveRaw(a *kit.App, ctx context.Context, port int, fn func(net.Conn)) {
	l, err := kit.Listen(ctx, a.P, "tcp", port)
	if err != nil {
		a.Log.Printf("Error from net.Listen(): %s", err)
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fn(c)
			c.Close()
		}
	}()
	<-ctx.Done()
	l.Close()
	<-done
}

// TCPResetSetup declares the flags of its subcommand and returns its body.
func TCPResetSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var port int
	fs.IntVar(&port, "port", 8080, "Port number.")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		a.Log.Printf("Serving on port %d.\n", port)
		if a.P.Sys.Net != nil {
			serveRaw(a, ctx, port, func(c net.Conn) {
				// traffic: closing with unread data sends the RST.
				c.Read(make([]byte, 1))
				a.Log.Printf("TCP request from %s", c.RemoteAddr())
			})
		} else {
			<-ctx.Done()
		}
		a.Log.Printf("Shutting down after receiving signal: terminated.\n")
		a.Log.Printf("Awaiting pod deletion.\n")
		return 0
	}
}

// PorterSetup declares the flags of its subcommand and returns its body.
func PorterSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var jsonResponse bool
	fs.BoolVar(&jsonResponse, "json-response", false, "Responds to requests with a json response that includes the default value with the http.Request Method")
	return func(ctx context.Context, a *kit.App, _ []string) int { return porter(ctx, a, jsonResponse) }
}

// porter serves the value of each SERVE_PORT_<n> (or SERVE_TCP_PORT_<n>)
// variable on port n, and of each SERVE_TLS_PORT_<n> over TLS with the
// key pair CERT_FILE and KEY_FILE name (the image's localhost.crt and
// localhost.key by default, read from the working directory as upstream
// does). UDP ports log their start; SCTP ports are not served.
func porter(ctx context.Context, a *kit.App, jsonResponse bool) int {
	var ls []net.Listener
	var hs []http.Handler
	for _, kv := range a.P.Env {
		key, value, _ := strings.Cut(kv, "=")
		if port, ok := cutPort(key, "SERVE_UDP_PORT_"); ok {
			// traffic: serve UDP.
			a.Log.Printf("Started UDP server on port %d", port)
			continue
		}
		port, plain := cutPort(key, "SERVE_PORT_", "SERVE_TCP_PORT_")
		tlsPort, secure := cutPort(key, "SERVE_TLS_PORT_")
		if (!plain && !secure) || a.P.Sys.Net == nil {
			continue
		}
		if secure {
			port = tlsPort
		}
		l, err := kit.Listen(ctx, a.P, "tcp", port)
		if err == nil && secure {
			l, err = porterTLS(a, l)
		}
		if err != nil {
			porterFailed(a, port, secure, err)
			continue
		}
		ls, hs = append(ls, l), append(hs, porterHandler(value, jsonResponse))
	}
	if len(ls) == 0 {
		return wait(ctx)
	}
	kit.ServeAll(ctx, ls, hs, a.Log, nil)
	return 0
}

// porterTLS wraps l with the key pair upstream's serveTLSPort loads.
func porterTLS(a *kit.App, l net.Listener) (net.Listener, error) {
	cert, key := cmp.Or(a.P.Getenv("CERT_FILE"), "localhost.crt"), cmp.Or(a.P.Getenv("KEY_FILE"), "localhost.key")
	certPEM, err := readAs(a.P, cert)
	if err == nil {
		var keyPEM []byte
		if keyPEM, err = readAs(a.P, key); err == nil {
			var pair tls.Certificate
			if pair, err = tls.X509KeyPair(certPEM, keyPEM); err == nil {
				return tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{pair}}), nil
			}
		}
	}
	l.Close()
	return nil, fmt.Errorf("%s", kit.GoError(a.P, err))
}

// readAs reads a file and names it in an error as it was given, as
// os.ReadFile does with a relative name.
func readAs(p *program.Proc, name string) ([]byte, error) {
	data, err := kit.ReadFile(p, name)
	var pe *os.PathError
	if errors.As(err, &pe) {
		pe.Path = name
	}
	return data, err
}

// porterFailed is upstream's log line for a server that could not start.
func porterFailed(a *kit.App, port int, secure bool, err error) {
	if !secure {
		a.Log.Printf("server on port %q failed: %v", strconv.Itoa(port), err)
		return
	}
	cert, key := cmp.Or(a.P.Getenv("CERT_FILE"), "localhost.crt"), cmp.Or(a.P.Getenv("KEY_FILE"), "localhost.key")
	a.Log.Printf("tls server on port %q with certFile=%q, keyFile=%q failed: %v", strconv.Itoa(port), cert, key, err)
}

func cutPort(key string, prefixes ...string) (int, bool) {
	for _, pre := range prefixes {
		if rest, ok := strings.CutPrefix(key, pre); ok {
			n, err := strconv.Atoi(rest)
			return n, err == nil && n > 0 && n < 65536
		}
	}
	return 0, false
}

func porterHandler(value string, jsonResponse bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := value
		if jsonResponse {
			j, _ := json.Marshal(struct{ Method, Body string }{r.Method, value})
			w.Header().Set("Content-Type", "application/json")
			body = string(j)
		}
		io.WriteString(w, body)
	})
}

// TestWebserverSetup declares the flags of its subcommand and returns its body.
func TestWebserverSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var port int
	fs.IntVar(&port, "port", 80, "Port number.")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		files := http.StripPrefix("/", http.FileServer(http.FS(webFS{a.P})))
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "private")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Allow-Credentials", "true")
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "DNT,X-Mx-ReqToken,Keep-Alive,User-Agent,X-Requested-With,Cache-Control,Content-Type")
			r.Header.Del("If-Modified-Since")
			files.ServeHTTP(w, r)
		})
		return serveOn(a, ctx, port, h, nil)
	}
}
