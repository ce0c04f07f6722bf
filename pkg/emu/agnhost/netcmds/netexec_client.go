package netcmds

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// dial makes tries requests to host:port and reports the responses and
// errors as JSON, as the connectivity tests read them.
func (n *netexec) dial(w http.ResponseWriter, r *http.Request) {
	values, err := url.Parse(r.URL.RequestURI())
	if err != nil {
		http.Error(w, fmt.Sprintf("%v", err), http.StatusBadRequest)
		return
	}
	q := values.Query()
	host, port, request, protocol, tryParam := q.Get("host"), q.Get("port"), q.Get("request"), q.Get("protocol"), q.Get("tries")
	n.Log.Printf("GET /dial?host=%s&protocol=%s&port=%s&request=%s&tries=%s", host, protocol, port, request, tryParam)
	tries := 1
	if len(tryParam) > 0 {
		tries, err = strconv.Atoi(tryParam)
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("tries parameter is invalid. %v", err), http.StatusBadRequest)
		return
	}
	if len(request) == 0 {
		http.Error(w, fmt.Sprintf("request parameter not specified. %v", err), http.StatusBadRequest)
		return
	}
	var dialer func(ctx context.Context, request, addr string) (string, error)
	switch strings.ToLower(protocol) {
	case "", "http":
		dialer = n.dialHTTP
	case "udp":
		dialer = n.dialUDP
	case "sctp":
		dialer = func(context.Context, string, string) (string, error) {
			return "", errors.New("sctp dial failed. err:protocol not supported")
		}
	default:
		http.Error(w, fmt.Sprintf("unsupported protocol. %s", protocol), http.StatusBadRequest)
		return
	}
	addr, err := n.resolve(r.Context(), host, port)
	if err != nil {
		http.Error(w, fmt.Sprintf("host and/or port param are invalid. %v", err), http.StatusBadRequest)
		return
	}
	errs, responses := []string{}, []string{}
	var response string
	for i := 0; i < tries; i++ {
		response, err = dialer(r.Context(), request, addr)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%v", err))
		} else {
			responses = append(responses, response)
		}
	}
	output := map[string][]string{}
	if len(response) > 0 {
		output["responses"] = responses
	}
	if len(errs) > 0 {
		output["errors"] = errs
	}
	data, _ := json.Marshal(output)
	w.Write(data)
}

// resolve is net.ResolveTCPAddr over the pod's DNS: "ip:port".
func (n *netexec) resolve(ctx context.Context, host, port string) (string, error) {
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return "", fmt.Errorf("lookup tcp/%s: unknown port", port)
	}
	if host == "" || net.ParseIP(host) != nil {
		return net.JoinHostPort(host, port), nil
	}
	if n.P.Sys.Net == nil {
		return "", fmt.Errorf("lookup %s: no such host", host)
	}
	ips, err := n.P.Sys.Net.LookupHost(ctx, host)
	if err != nil {
		return "", err
	}
	if len(ips) == 0 {
		return "", fmt.Errorf("lookup %s: no such host", host)
	}
	return net.JoinHostPort(ips[0], port), nil
}

// dialHTTP GETs http://addr/request within 5 seconds.
func (n *netexec) dialHTTP(ctx context.Context, request, addr string) (string, error) {
	ctx, stop := clockTimeout(ctx, n.P.Sys.Clock, 5*time.Second)
	defer stop()
	transport := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if n.P.Sys.Net == nil {
				return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connect: network is unreachable"), Addr: stringAddr(addr)}
			}
			return kit.DialConn(ctx, n.P, network, addr)
		},
	}
	defer transport.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://%s/%s", addr, request), nil)
	if err != nil {
		return "", err
	}
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			return "", fmt.Errorf("Get %q: context deadline exceeded (Client.Timeout exceeded while awaiting headers)", req.URL.String())
		}
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	return string(body), nil
}

type stringAddr string

func (a stringAddr) Network() string { return "tcp" }
func (a stringAddr) String() string  { return string(a) }

// dialUDP sends request to addr and waits 5 seconds for the answer.
func (n *netexec) dialUDP(ctx context.Context, request, addr string) (string, error) {
	if n.P.Sys.Net == nil {
		return "", fmt.Errorf("udp dial failed. err:dial udp %s: connect: network is unreachable", addr)
	}
	conn, err := n.P.Sys.Net.Dial(ctx, "udp", addr)
	if err != nil {
		return "", fmt.Errorf("udp dial failed. err:%v", err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, request); err != nil {
		return "", fmt.Errorf("udp connection write failed. err:%v", err)
	}
	buf := make([]byte, 2048)
	count, err := readWithin(ctx, n.P.Sys.Clock, conn, buf, 5*time.Second)
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("read udp %s: i/o timeout", addr)
	}
	if err != nil || count == 0 {
		return "", fmt.Errorf("reading from udp connection failed. err:'%v'", err)
	}
	return string(buf[:count]), nil
}

// shell runs cmd with /bin/sh -c and returns its combined output and
// error as JSON.
func (n *netexec) shell(w http.ResponseWriter, r *http.Request) {
	cmd := r.FormValue("shellCommand")
	if cmd == "" {
		cmd = r.FormValue("cmd")
	}
	n.Log.Printf("GET /shell?cmd=%s", cmd)
	var out lockedBuffer
	status, err := n.P.Sys.Exec(r.Context(), &program.Proc{
		Args: []string{"/bin/sh", "-c", cmd}, Env: n.P.Env, Dir: n.P.Dir,
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Sys: n.P.Sys,
	})
	output := map[string]string{}
	if out.Len() > 0 {
		output["output"] = out.String()
	}
	switch {
	case err != nil:
		output["error"] = "fork/exec /bin/sh: no such file or directory"
	case status != 0:
		output["error"] = fmt.Sprintf("exit status %d", status)
	}
	n.Log.Printf("Output: %s", output)
	data, _ := json.Marshal(output)
	w.Write(data)
}

// upload stores the "file" form field as /uploads/upload<digits>, mode
// 0700, and answers its name.
func (n *netexec) upload(w http.ResponseWriter, r *http.Request) {
	n.Log.Printf("GET /upload")
	result := map[string]string{}
	reply := func(status int) {
		data, _ := json.Marshal(result)
		if status != 0 {
			w.WriteHeader(status)
		}
		w.Write(data)
	}
	file, _, err := r.FormFile("file")
	if err != nil {
		result["error"] = "Unable to upload file."
		reply(0)
		n.Log.Printf("Unable to upload file: %s", err)
		return
	}
	defer file.Close()
	data, err := io.ReadAll(file)
	if err != nil {
		result["error"] = "Unable to write file."
		reply(0)
		return
	}
	name := "/uploads/upload" + strconv.FormatUint(uint64(rand.Uint32()), 10)
	if err := kit.WriteFile(n.P, name, data, 0o600); err != nil {
		result["error"] = "Unable to open file for write"
		reply(0)
		n.Log.Printf("Unable to open file for write: %s", kit.GoError(n.P, err))
		return
	}
	if err := n.P.Sys.FS.Chmod(n.P.Sys.FS.Abs("/", name), 0o700); err != nil {
		result["error"] = "Unable to chmod file."
		reply(0)
		return
	}
	n.Log.Printf("Wrote upload to %s", name)
	result["output"] = name
	reply(http.StatusCreated)
}

// lockedBuffer is a bytes.Buffer two writers may share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
