// Package netcmds is agnhost's networking subcommands: the servers
// (netexec, serve-hostname, porter, tcp-reset, test-webserver, nettest,
// guestbook, webhook, grpc-health-checking, the no-snat tests, ...) and
// the in-cluster clients (connect, inclusterclient,
// test-service-account-issuer-discovery).
package netcmds

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
)

type netexecFlags struct {
	httpPort, udpPort, sctpPort, delayShutdown int
	cert, key, override, udpAddrs              string
}

// NetexecSetup declares the flags of its subcommand and returns its body.
func NetexecSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	f := &netexecFlags{}
	fs.IntVar(&f.httpPort, "http-port", 8080, "HTTP Listen Port")
	fs.StringVar(&f.cert, "tls-cert-file", "", "File containing an x509 certificate for HTTPS. (CA cert, if any, concatenated after server cert)")
	fs.StringVar(&f.key, "tls-private-key-file", "", "File containing an x509 private key matching --tls-cert-file")
	fs.IntVar(&f.udpPort, "udp-port", 8081, "UDP Listen Port")
	fs.IntVar(&f.sctpPort, "sctp-port", -1, "SCTP Listen Port")
	fs.StringVar(&f.override, "http-override", "", "Override the HTTP handler to always respond as if it were a GET with this path & params")
	fs.StringVar(&f.udpAddrs, "udp-listen-addresses", "", "A comma separated list of ip addresses the udp servers listen from")
	fs.IntVar(&f.delayShutdown, "delay-shutdown", 0, "Number of seconds to delay shutdown when receiving SIGTERM.")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		n := &netexec{App: a, f: f, stop: make(chan struct{})}
		return n.run(ctx)
	}
}

// netexec is one run of the netexec server: HTTP(S) on --http-port with
// the endpoints the network tests call, and UDP on --udp-port.
type netexec struct {
	*kit.App
	f     *netexecFlags
	ready atomic.Bool // the UDP server started (healthz)

	once sync.Once
	stop chan struct{} // closed by /exit and /shutdown
	code int
}

// exit stops the server with code, as os.Exit would.
func (n *netexec) exit(code int) {
	n.once.Do(func() {
		n.code = code
		close(n.stop)
	})
}

func (n *netexec) run(ctx context.Context) int {
	addrs, err := udpAddresses(n.f.udpAddrs)
	if err != nil {
		n.Log.Printf("%v", err)
		return 1
	}
	handler := n.routes()
	n.Log.Printf("Started HTTP server on port %d", n.f.httpPort)
	if n.f.udpPort != -1 {
		n.serveUDP(ctx, addrs)
		n.ready.Store(true)
	}
	if n.f.sctpPort != -1 {
		n.Log.Printf("Started SCTP server")
		n.ready.Store(true)
	}
	if n.P.Sys.Net == nil {
		return n.waitStop(ctx)
	}
	l, err := kit.Listen(ctx, n.P, "tcp", n.f.httpPort)
	if err != nil {
		n.Log.Printf("listen tcp :%d: %v", n.f.httpPort, err)
		return 1
	}
	if n.f.cert != "" {
		if l, err = n.tlsListener(l); err != nil {
			n.Log.Printf("%v", err)
			return 1
		}
	}
	kit.ServeHTTP(ctx, l, handler, n.Log, n.stop)
	return n.stopped(ctx)
}

func (n *netexec) waitStop(ctx context.Context) int {
	select {
	case <-ctx.Done():
	case <-n.stop:
	}
	return n.stopped(ctx)
}

// stopped is the status after the server ended: the /exit code, or 0
// for SIGTERM (the real one exits 0 after --delay-shutdown seconds; a
// stopped program cannot linger here).
func (n *netexec) stopped(ctx context.Context) int {
	select {
	case <-n.stop:
		return n.code
	default:
	}
	if n.f.delayShutdown > 0 {
		n.Log.Printf("Sleeping %d seconds before terminating...", n.f.delayShutdown)
	}
	return 0
}

// tlsListener serves HTTPS with the key pair from the container's files.
func (n *netexec) tlsListener(l net.Listener) (net.Listener, error) {
	cert, err := kit.ReadFile(n.P, n.f.cert)
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("%s", kit.GoError(n.P, err))
	}
	key, err := kit.ReadFile(n.P, n.f.key)
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("%s", kit.GoError(n.P, err))
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		l.Close()
		return nil, err
	}
	return tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{pair}}), nil
}

// udpAddresses parses --udp-listen-addresses: sorted, without repeats;
// none means every address ("").
func udpAddresses(list string) ([]string, error) {
	if list == "" {
		return []string{""}, nil
	}
	seen := map[string]bool{}
	var out []string
	for _, addr := range strings.Split(list, ",") {
		if net.ParseIP(addr) == nil {
			return nil, fmt.Errorf("parseAddress: invalid address %s", addr)
		}
		if !seen[addr] {
			seen[addr] = true
			out = append(out, addr)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (n *netexec) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", n.root)
	mux.HandleFunc("/clientip", n.clientIP)
	mux.HandleFunc("/serverport", n.serverPort)
	mux.HandleFunc("/header", n.header)
	mux.HandleFunc("/dial", n.dial)
	mux.HandleFunc("/echo", n.echo)
	mux.HandleFunc("/exit", n.exitHandler)
	mux.HandleFunc("/healthz", n.healthz)
	mux.HandleFunc("/readyz", n.readyz)
	mux.HandleFunc("/hostname", n.hostname("/hostname"))
	mux.HandleFunc("/redirect", n.redirect)
	mux.HandleFunc("/shell", n.shell)
	mux.HandleFunc("/upload", n.upload)
	mux.HandleFunc("/hostName", n.hostname("/hostName"))
	mux.HandleFunc("/shutdown", n.shutdown)
	if n.f.override == "" {
		return mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := http.NewRequestWithContext(r.Context(), "GET", n.f.override, nil)
		if err != nil {
			http.Error(w, fmt.Sprintf("override request failed: %v", err), http.StatusInternalServerError)
			return
		}
		req.RemoteAddr = r.RemoteAddr
		mux.ServeHTTP(w, req)
	})
}

func (n *netexec) root(w http.ResponseWriter, _ *http.Request) {
	n.Log.Printf("GET /")
	fmt.Fprintf(w, "NOW: %v", n.P.Sys.Clock.Now())
}

func (n *netexec) clientIP(w http.ResponseWriter, r *http.Request) {
	n.Log.Printf("GET /clientip")
	io.WriteString(w, r.RemoteAddr)
}

func (n *netexec) serverPort(w http.ResponseWriter, _ *http.Request) {
	n.Log.Printf("GET /serverport")
	fmt.Fprint(w, n.f.httpPort)
}

func (n *netexec) header(w http.ResponseWriter, r *http.Request) {
	key := r.FormValue("key")
	if key != "" {
		n.Log.Printf("GET /header?key=%s", key)
		io.WriteString(w, r.Header.Get(key))
		return
	}
	n.Log.Printf("GET /header")
	data, _ := json.Marshal(r.Header)
	w.Write(data)
}

func (n *netexec) echo(w http.ResponseWriter, r *http.Request) {
	msg, codeString := r.FormValue("msg"), r.FormValue("code")
	n.Log.Printf("GET /echo?msg=%s&code=%s", msg, codeString)
	if codeString != "" {
		code, err := strconv.Atoi(codeString)
		if err != nil {
			fmt.Fprintf(w, "argument 'code' must be an integer or empty, got %q\n", codeString)
			return
		}
		w.WriteHeader(code)
	}
	io.WriteString(w, msg)
}

func (n *netexec) exitHandler(w http.ResponseWriter, r *http.Request) {
	waitString, timeoutString, codeString := r.FormValue("wait"), r.FormValue("timeout"), r.FormValue("code")
	n.Log.Printf("GET /exit?code=%s&timeout=%s&wait=%s", codeString, timeoutString, waitString)
	timeout, err := time.ParseDuration(timeoutString)
	if err != nil && timeoutString != "" {
		fmt.Fprintf(w, "argument 'timeout' must be a valid golang duration or empty, got %q\n", timeoutString)
		return
	}
	wait, err := time.ParseDuration(waitString)
	if err != nil && waitString != "" {
		fmt.Fprintf(w, "argument 'wait' must be a valid golang duration or empty, got %q\n", waitString)
		return
	}
	code, err := strconv.Atoi(codeString)
	if err != nil && codeString != "" {
		fmt.Fprintf(w, "argument 'code' must be an integer [0-127] or empty, got %q\n", codeString)
		return
	}
	n.Log.Printf("Will begin shutdown in %s, allowing %s for connections to close, then will exit with %d", wait, timeout, code)
	if !n.P.Sys.Sleep(r.Context(), wait) && wait > 0 {
		return
	}
	if timeout > 0 {
		// A graceful shutdown lets this response go out first.
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		n.Log.Printf("Graceful shutdown completed with: %v", nil)
	}
	n.exit(code)
}

func (n *netexec) healthz(w http.ResponseWriter, _ *http.Request) {
	n.Log.Printf("GET /healthz")
	if n.ready.Load() {
		w.WriteHeader(200)
		return
	}
	w.WriteHeader(http.StatusPreconditionFailed)
}

// readyz is healthz with a body; SIGTERM (503 "shutting down") is not
// seen here, a stopped program ends at once.
func (n *netexec) readyz(w http.ResponseWriter, _ *http.Request) {
	n.Log.Printf("GET /readyz")
	if n.ready.Load() {
		io.WriteString(w, "ok")
		return
	}
	w.WriteHeader(http.StatusPreconditionFailed)
}

func (n *netexec) hostname(path string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		n.Log.Printf("GET %s", path)
		io.WriteString(w, n.P.Sys.Hostname)
	}
}

func (n *netexec) shutdown(_ http.ResponseWriter, _ *http.Request) {
	n.Log.Printf("GET /shutdown")
	n.exit(0)
}

func (n *netexec) redirect(w http.ResponseWriter, r *http.Request) {
	location, codeString := r.FormValue("location"), r.FormValue("code")
	n.Log.Printf("%s /redirect?msg=%s&code=%s", r.Method, location, codeString)
	code := http.StatusFound
	if codeString != "" {
		var err error
		if code, err = strconv.Atoi(codeString); err != nil {
			fmt.Fprintf(w, "argument 'code' must be an integer or empty, got %q\n", codeString)
			return
		}
	}
	http.Redirect(w, r, location, code)
}
