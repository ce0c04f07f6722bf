package netcmds

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
)

// guestbook follows test/images/agnhost/guestbook of v1.36.3 line by
// line: its handlers use package variables and the host's network, so
// they cannot run here as they are. The store and the replicas are one
// run's; the process-wide log.Fatal is stop with status 1.

const (
	guestbookTimeout = 15 * time.Second
	guestbookSleep   = 1 * time.Second
)

// GuestbookSetup declares the flags of its subcommand and returns its body.
func GuestbookSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var httpPort, backendPort, replicaOf string
	fs.StringVar(&httpPort, "http-port", "80", "HTTP Listen Port")
	fs.StringVar(&backendPort, "backend-port", "6379", "Backend's HTTP Listen Port")
	fs.StringVar(&replicaOf, "replicaof", "", "The host's name to register to")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		g := &guestbook{App: a, backendPort: backendPort, store: map[string]any{}, stop: make(chan struct{})}
		return g.run(ctx, httpPort, replicaOf)
	}
}

type guestbook struct {
	*kit.App
	backendPort string

	mu       sync.Mutex
	store    map[string]any
	replicas []string

	once sync.Once
	stop chan struct{} // closed by fatal
}

// fatal is log.Fatal: the line, then the whole program ends with 1.
func (g *guestbook) fatal(msg string) {
	g.Log.Printf("%s", msg)
	g.once.Do(func() { close(g.stop) })
}

func (g *guestbook) run(ctx context.Context, httpPort, replicaOf string) int {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() {
		defer wg.Done()
		g.registerNode(ctx, replicaOf)
	}()

	mux := http.NewServeMux()
	mux.HandleFunc("/register", g.registerHandler)
	mux.HandleFunc("/get", g.getHandler)
	mux.HandleFunc("/set", g.setHandler)
	mux.HandleFunc("/guestbook", g.guestbookHandler)
	port, err := parsePort("tcp", httpPort)
	if err != nil {
		g.Log.Printf("listen tcp: %v", err)
		return 1
	}
	if g.P.Sys.Net == nil {
		select {
		case <-ctx.Done():
		case <-g.stop:
		}
	} else {
		l, err := kit.Listen(ctx, g.P, "tcp", port)
		if err != nil {
			g.Log.Printf("listen tcp :%d: %v", port, err)
			return 1
		}
		kit.ServeHTTP(ctx, l, mux, g.Log, g.stop)
	}
	select {
	case <-g.stop:
		return 1
	default:
		return 0
	}
}

// parsePort is how net resolves the port of ":"+port: a number in
// range, or a service name (none known here).
func parsePort(network, port string) (int, error) {
	n, err := strconv.Atoi(port)
	if err != nil {
		return 0, fmt.Errorf("lookup %s/%s: unknown port", network, port)
	}
	if n < 0 || n > 65535 {
		return 0, fmt.Errorf("address %s: invalid port", port)
	}
	return n, nil
}

// registerNode subscribes to the primary registerTo, taking its store,
// retrying each second for 15 seconds.
func (g *guestbook) registerNode(ctx context.Context, registerTo string) {
	if registerTo == "" {
		return
	}
	hostPort := net.JoinHostPort(registerTo, g.backendPort)
	clock := g.P.Sys.Clock
	start := clock.Now()
	for clock.Now().Sub(start) < guestbookTimeout {
		host, err := g.getIP(ctx, registerTo)
		if err != nil {
			g.Log.Printf("unable to get IP %s: %v. Retrying in %s.", hostPort, err, guestbookSleep)
			if !g.P.Sys.Sleep(ctx, guestbookSleep) {
				return
			}
			continue
		}
		request := fmt.Sprintf("register?host=%s", host)
		g.Log.Printf("Registering to primary: %s/%s", hostPort, request)
		response, err := g.dialHTTP(ctx, request, hostPort)
		if err != nil {
			g.Log.Printf("encountered error while registering to primary: %v. Retrying in %s.", err, guestbookSleep)
			if !g.P.Sys.Sleep(ctx, guestbookSleep) {
				return
			}
			continue
		}
		responseJSON := make(map[string]any)
		if err := json.Unmarshal([]byte(response), &responseJSON); err != nil {
			g.fatal(fmt.Sprintf("Error while unmarshaling primary's response: %v", err))
			return
		}
		store, ok := responseJSON["data"].(map[string]any)
		if !ok {
			g.fatal(fmt.Sprintf("Could not cast responseJSON: %s", responseJSON["data"]))
			return
		}
		g.mu.Lock()
		g.store = store
		g.mu.Unlock()
		g.Log.Printf("Registered to node: %s", registerTo)
		return
	}
	g.fatal("Timed out while registering to primary.")
}

// getIP is the local address a UDP "connection" to host:backendPort
// takes: the pod's own, once host resolves (the port must be valid).
func (g *guestbook) getIP(ctx context.Context, host string) (string, error) {
	if _, err := parsePort("udp", g.backendPort); err != nil {
		return "", &net.OpError{Op: "dial", Net: "udp", Err: err}
	}
	if g.P.Sys.Net == nil {
		return "", &net.OpError{Op: "dial", Net: "udp", Err: fmt.Errorf("connect: network is unreachable")}
	}
	if _, err := g.P.Sys.Net.LookupHost(ctx, host); err != nil {
		return "", &net.OpError{Op: "dial", Net: "udp", Err: err}
	}
	if n, ok := g.P.Sys.Net.(interface{ PodIP() string }); ok && n.PodIP() != "" {
		return n.PodIP(), nil
	}
	return "0.0.0.0", nil
}

// registerHandler registers the caller as a replica and answers with
// the whole store.
func (g *guestbook) registerHandler(w http.ResponseWriter, r *http.Request) {
	values, err := url.Parse(r.URL.RequestURI())
	if err != nil {
		http.Error(w, fmt.Sprintf("%v", err), http.StatusBadRequest)
		return
	}
	ip := values.Query().Get("host")
	g.Log.Printf("GET /register?host=%s", ip)
	g.mu.Lock()
	bytes, err := json.Marshal(map[string]any{"data": g.store})
	if err == nil {
		g.replicas = append(g.replicas, ip)
	}
	g.mu.Unlock()
	if err != nil {
		http.Error(w, fmt.Sprintf("response could not be serialized. %v", err), http.StatusExpectationFailed)
		return
	}
	fmt.Fprint(w, string(bytes))
	g.Log.Printf("Node '%s' registered.", ip)
}

// getHandler answers {"data": value} for key, or the whole store.
func (g *guestbook) getHandler(w http.ResponseWriter, r *http.Request) {
	values, err := url.Parse(r.URL.RequestURI())
	if err != nil {
		http.Error(w, fmt.Sprintf("%v", err), http.StatusBadRequest)
		return
	}
	key := values.Query().Get("key")
	g.Log.Printf("GET /get?key=%s", key)
	output := make(map[string]any)
	g.mu.Lock()
	if key == "" {
		output["data"] = g.store
	} else {
		value, found := g.store[key]
		if !found {
			value = ""
		}
		output["data"] = value
	}
	bytes, err := json.Marshal(output)
	g.mu.Unlock()
	if err == nil {
		fmt.Fprint(w, string(bytes))
	} else {
		http.Error(w, fmt.Sprintf("response could not be serialized. %v", err), http.StatusExpectationFailed)
	}
}

// setHandler stores key=value and pushes it to every replica.
func (g *guestbook) setHandler(w http.ResponseWriter, r *http.Request) {
	values, err := url.Parse(r.URL.RequestURI())
	if err != nil {
		http.Error(w, fmt.Sprintf("%v", err), http.StatusBadRequest)
		return
	}
	key := values.Query().Get("key")
	value := values.Query().Get("value")
	g.Log.Printf("GET /set?key=%s&value=%s", key, value)
	if key == "" {
		http.Error(w, "cannot set with empty key.", http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	g.store[key] = value
	replicas := append([]string(nil), g.replicas...)
	g.mu.Unlock()
	request := fmt.Sprintf("set?key=%s&value=%s", key, value)
	for _, replica := range replicas {
		hostPort := net.JoinHostPort(replica, g.backendPort)
		if _, err := g.dialHTTP(r.Context(), request, hostPort); err != nil {
			http.Error(w, fmt.Sprintf("encountered error while propagating to replica '%s': %v", replica, err), http.StatusExpectationFailed)
			return
		}
	}
	bytes, _ := json.Marshal(map[string]string{"message": "Updated"})
	fmt.Fprint(w, string(bytes))
}

// guestbookHandler sends set to the agnhost-primary Service and get to
// agnhost-replica, on --backend-port: the names upstream hard-codes.
func (g *guestbook) guestbookHandler(w http.ResponseWriter, r *http.Request) {
	values, err := url.Parse(r.URL.RequestURI())
	if err != nil {
		http.Error(w, fmt.Sprintf("%v", err), http.StatusBadRequest)
		return
	}
	cmd := strings.ToLower(values.Query().Get("cmd"))
	key := values.Query().Get("key")
	value := values.Query().Get("value")
	g.Log.Printf("GET /guestbook?cmd=%s&key=%s&value=%s", cmd, key, value)
	if cmd != "get" && cmd != "set" {
		http.Error(w, fmt.Sprintf("unsupported cmd: '%s'", cmd), http.StatusBadRequest)
		return
	}
	if cmd == "set" && key == "" {
		http.Error(w, "cannot set with empty key.", http.StatusBadRequest)
		return
	}
	host := "agnhost-primary"
	if cmd == "get" {
		host = "agnhost-replica"
	}
	hostPort := net.JoinHostPort(host, g.backendPort)
	// net.ResolveTCPAddr: the port, then the name.
	_, err = parsePort("tcp", g.backendPort)
	if err == nil && g.P.Sys.Net != nil {
		_, err = g.P.Sys.Net.LookupHost(r.Context(), host)
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("host and/or port param are invalid. %v", err), http.StatusBadRequest)
		return
	}
	request := fmt.Sprintf("%s?key=%s&value=%s", cmd, key, value)
	response, err := g.dialHTTP(r.Context(), request, hostPort)
	if err == nil {
		fmt.Fprint(w, response)
	} else {
		http.Error(w, fmt.Sprintf("encountered error: %v", err), http.StatusExpectationFailed)
	}
}

// dialHTTP GETs http://hostPort/request through the pod network with a
// fresh transport and a 5-second timeout; any status's body is the
// answer.
func (g *guestbook) dialHTTP(ctx context.Context, request, hostPort string) (string, error) {
	transport := podTransport(g.App, nil)
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 5 * time.Second}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://%s/%s", hostPort, request), nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	return string(body), nil
}
