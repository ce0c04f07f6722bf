package pwsh

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"k8s.io/kubernetes/third_party/forked/golang/expansion"

	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/emu/vnet"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

// flatRouter routes every address to itself and resolves no names.
type flatRouter struct{}

func (flatRouter) Route(_ vnet.Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	return dst, nil
}

func (flatRouter) Lookup(_ context.Context, _ vnet.Host, name string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

var (
	webPod    = vnet.Host{IP: netip.MustParseAddr("10.244.1.10"), Scope: "uid-web", Source: "pod/default/web"}
	clientPod = vnet.Host{IP: netip.MustParseAddr("10.244.1.20"), Scope: "uid-client", Source: "pod/default/client"}
)

// script is a PowerShell script running on webPod until it ends or the
// test stops it.
type script struct {
	fabric *vnet.Fabric
	cancel context.CancelFunc
	done   chan struct{}
	out    string
	errOut string
	code   int
}

func runScript(t *testing.T, fabric *vnet.Fabric, text string) *script {
	t.Helper()
	sys := newSys()
	sys.Net = fabric.Net(&webPod)
	ctx, cancel := context.WithCancel(context.Background())
	s := &script{fabric: fabric, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.out, s.errOut, s.code = wintest.Run(ctx, sys, Main, "", "powershell.exe", "-command", text)
	}()
	t.Cleanup(func() { s.stop(t) })
	return s
}

// waitListening waits until the script has bound port.
func (s *script) waitListening(t *testing.T, port uint16) {
	t.Helper()
	addr := netip.AddrPortFrom(webPod.IP, port)
	for end := time.Now().Add(5 * time.Second); !s.fabric.Listening(addr); {
		select {
		case <-s.done:
			t.Fatalf("the script ended before listening on %d: %q %q", port, s.out, s.errOut)
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("nothing listens on %v", addr)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop cancels the script's ctx (the container stopping) and waits for
// Main to return.
func (s *script) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	s.wait(t)
}

func (s *script) wait(t *testing.T) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the script did not end")
	}
}

func podClient(fabric *vnet.Fabric, keepAlive bool) *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: !keepAlive,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return fabric.Dial(ctx, clientPod, network, addr)
		}}}
}

// fetch sends a request and reads the whole answer; reused tells
// whether it went over a connection kept alive.
func fetch(t *testing.T, c *http.Client, method, url, body string, hdr ...string) (resp *http.Response, text string, reused bool) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k+1 < len(hdr); k += 2 {
		req.Header.Set(hdr[k], hdr[k+1])
	}
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused }}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	resp, err = c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return resp, string(b), reused
}

// exampleScript is the PowerShell command of examples/windows-web-server.yaml.
func exampleScript(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../examples/windows-web-server.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var d struct {
			Kind string
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct{ Command []string }
					}
				}
			}
		}
		if err := yaml.Unmarshal([]byte(doc), &d); err != nil {
			t.Fatal(err)
		}
		if d.Kind == "Deployment" {
			cmd := d.Spec.Template.Spec.Containers[0].Command
			if len(cmd) != 3 || cmd[0] != "powershell.exe" || cmd[1] != "-command" {
				t.Fatalf("the example's command changed: %q", cmd)
			}
			// The kubelet expands $(VAR) and $$ in a command before the
			// runtime gets it.
			return expansion.Expand(cmd[2], func(name string) string { return "$(" + name + ")" })
		}
	}
	t.Fatal("no Deployment in the example")
	return ""
}

// settle waits for the goroutines to come back to at most n.
func settle(n int) int {
	got := runtime.NumGoroutine()
	for end := time.Now().Add(3 * time.Second); got > n && time.Now().Before(end); got = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	return got
}

// The flagship example's web server runs as written: it serves its page
// with and without keep-alive until the container stops, then leaves
// nothing behind.
func TestExampleWebServer(t *testing.T) {
	text := exampleScript(t)
	if got := UnsupportedCommand([]string{"powershell.exe", "-command", text}); got != "" {
		t.Errorf("UnsupportedCommand names %q in the example", got)
	}
	before := runtime.NumGoroutine()
	fabric := vnet.New(flatRouter{})
	s := runScript(t, fabric, text)
	s.waitListening(t, 80)

	page := func(calls int) string {
		return fmt.Sprintf("<html><body><H1>Windows Container Web Server</H1><p>IP 10.244.1.10 callerCount %d </body></html>", calls)
	}
	calls := 0
	keep := podClient(fabric, true)
	for n, wantReused := range []bool{false, true} {
		resp, body, reused := fetch(t, keep, "GET", "http://10.244.1.10/", "")
		calls++
		if resp.StatusCode != 200 || body != page(calls) || resp.ContentLength != int64(len(page(calls))) {
			t.Errorf("keep-alive GET %d: %d %q (Content-Length %d)", n, resp.StatusCode, body, resp.ContentLength)
		}
		if reused != wantReused {
			t.Errorf("keep-alive GET %d: reused connection %v, want %v", n, reused, wantReused)
		}
		if got := resp.Header.Get("Server"); got != "Microsoft-HTTPAPI/2.0" {
			t.Errorf("Server header %q", got)
		}
	}
	closing := podClient(fabric, false)
	for n := 0; n < 2; n++ {
		resp, body, _ := fetch(t, closing, "GET", "http://10.244.1.10/", "")
		calls++
		if resp.StatusCode != 200 || body != page(calls) || resp.ContentLength != int64(len(page(calls))) {
			t.Errorf("GET %d without keep-alive: %d %q", n, resp.StatusCode, body)
		}
	}

	start := time.Now()
	s.stop(t)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the script took %v to stop", d)
	}
	if !strings.HasPrefix(s.out, "Listening at http://*:80/\r\n") || !strings.Contains(s.out, "< 200") || s.errOut != "" {
		t.Errorf("output %q, errors %q", s.out, s.errOut)
	}
	if fabric.Listening(netip.MustParseAddrPort("10.244.1.10:80")) {
		t.Error("port 80 still bound after the container stopped")
	}
	keep.CloseIdleConnections()
	if got := settle(before); got > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines left, %d before:\n%s", got, before, buf[:runtime.Stack(buf, true)])
	}
}

// The variations people write: a port from the prefix, two prefixes,
// the request read, a status, headers and a body set, Stop ending the loop.
func TestListenerVariations(t *testing.T) {
	fabric := vnet.New(flatRouter{})
	s := runScript(t, fabric, `$listener = [System.Net.HttpListener]::new()
$listener.Prefixes.Add('http://+:8080/')
$listener.Prefixes.Add('http://*:8081/')
$listener.Start()
while ($listener.IsListening) {
  $context = $listener.GetContext()
  $request = $context.Request
  $response = $context.Response
  Write-Host "$($request.HttpMethod) $($request.RawUrl) by $($request.Headers['X-Who']) at $($request.Url)"
  if ($request.Url.AbsolutePath -eq '/stop') { $response.Close(); $listener.Stop(); break }
  $response.ContentType = 'text/plain'
  $response.Headers.Add('X-Served-By', $env:COMPUTERNAME)
  if ($request.Url.AbsolutePath -ne '/') {
    $response.StatusCode = 404
    $response.StatusDescription = 'Nothing Here'
  }
  $reader = New-Object System.IO.StreamReader($request.InputStream, $request.ContentEncoding)
  $body = $reader.ReadToEnd()
  $bytes = [Text.Encoding]::UTF8.GetBytes("path=$($request.Url.LocalPath) q=$($request.QueryString['q']) body=$body")
  $text = [Text.Encoding]::UTF8.GetString($bytes)
  $response.OutputStream.Write($bytes, 0, $bytes.Length)
  $response.Close()
}
"stopped: $text"`)
	s.waitListening(t, 8080)
	s.waitListening(t, 8081)
	c := podClient(fabric, true)

	resp, body, _ := fetch(t, c, "GET", "http://10.244.1.10:8080/missing?q=1", "", "X-Who", "tester")
	if resp.Status != "404 Nothing Here" || body != "path=/missing q=1 body=" {
		t.Errorf("GET /missing: %q %q", resp.Status, body)
	}
	if resp.Header.Get("Content-Type") != "text/plain" || resp.Header.Get("X-Served-By") != "WIN-POD" {
		t.Errorf("headers %v", resp.Header)
	}
	resp, body, _ = fetch(t, c, "POST", "http://10.244.1.10:8081/", "hello")
	if resp.StatusCode != 200 || body != "path=/ q= body=hello" {
		t.Errorf("POST on the second prefix: %d %q", resp.StatusCode, body)
	}
	if t.Failed() {
		s.stop(t)
		t.Fatalf("script: %q %q", s.out, s.errOut)
	}
	resp, body, _ = fetch(t, c, "GET", "http://10.244.1.10:8080/stop", "")
	if resp.StatusCode != 200 || body != "" || resp.ContentLength != 0 {
		t.Errorf("GET /stop: %d %q", resp.StatusCode, body)
	}
	s.wait(t)
	want := "GET /missing?q=1 by tester at http://10.244.1.10:8080/missing?q=1\r\n" +
		"POST / by  at http://10.244.1.10:8081/\r\n" +
		"GET /stop by  at http://10.244.1.10:8080/stop\r\n" +
		"stopped: path=/ q= body=hello\r\n"
	if s.out != want || s.errOut != "" || s.code != 0 {
		t.Errorf("got %q %q %d\nwant %q", s.out, s.errOut, s.code, want)
	}
	if fabric.Listening(netip.MustParseAddrPort("10.244.1.10:8080")) {
		t.Error("Stop left port 8080 bound")
	}
}

// A port already taken fails Start as http.sys refuses the registration;
// the listener is then not listening and the loop never runs.
func TestListenerConflict(t *testing.T) {
	fabric := vnet.New(flatRouter{})
	other, err := fabric.Listen(webPod, "tcp", 8080)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	s := runScript(t, fabric, `$a = New-Object System.Net.HttpListener; $a.Prefixes.Add('http://*:80/'); $a.Start()
$b = New-Object -TypeName System.Net.HttpListener; $b.Prefixes.Add('http://+:80/'); $b.Start()
$b.IsListening
$c = New-Object System.Net.HttpListener; $c.Prefixes.Add('http://*:8080/'); $c.Start()
$a.IsListening`)
	s.wait(t)
	wantErr := "Exception calling \"Start\" with \"0\" argument(s): \"Failed to listen on prefix 'http://+:80/' because it conflicts with an existing registration on the machine.\"\r\n" +
		"At line:2 char:85\r\n"
	if s.out != "False\r\nTrue\r\n" || !strings.HasPrefix(s.errOut, wantErr) ||
		!strings.Contains(s.errOut, "Failed to listen on prefix 'http://*:8080/' because it conflicts") ||
		!strings.Contains(s.errOut, "    + CategoryInfo          : NotSpecified: (:) [], MethodInvocationException\r\n    + FullyQualifiedErrorId : HttpListenerException\r\n") {
		t.Errorf("got %q\n%s", s.out, s.errOut)
	}
	if fabric.Listening(netip.MustParseAddrPort("10.244.1.10:80")) {
		t.Error("the script ended and port 80 is still bound")
	}
}

// http.sys answers for the script when no prefix takes a request: a
// prefix naming localhost refuses a request addressed to the pod IP.
func TestListenerHostname(t *testing.T) {
	fabric := vnet.New(flatRouter{})
	s := runScript(t, fabric, `$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('http://localhost:8080/api/'); $l.Start()
while ($true) { $c = $l.GetContext(); $c.Response.StatusCode = 201; $c.Response.Close() }`)
	s.waitListening(t, 8080)
	c := podClient(fabric, true)
	resp, body, _ := fetch(t, c, "GET", "http://10.244.1.10:8080/api/", "")
	if resp.StatusCode != 400 || !strings.Contains(body, "Bad Request - Invalid Hostname") {
		t.Errorf("by pod IP: %d %q", resp.StatusCode, body)
	}
	for path, want := range map[string]int{"/api/": 201, "/API/x": 201, "/api": 201, "/other": 404} {
		req, _ := http.NewRequest("GET", "http://10.244.1.10:8080"+path, nil)
		req.Host = "localhost:8080"
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s by localhost: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// Prefixes are checked as .NET checks them.
func TestListenerPrefixErrors(t *testing.T) {
	sys := newSys()
	out, errOut, _ := wintest.Run(context.Background(), sys, Main, "", "powershell", "-command",
		"$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('http://*:80'); $l.Prefixes.Count; $l.GetContext()")
	if out != "0\r\n" ||
		!strings.Contains(errOut, `Exception calling "Add" with "1" argument(s): "Only Uri prefixes ending in '/' are allowed.`) ||
		!strings.Contains(errOut, `Exception calling "GetContext" with "0" argument(s): "Please call the Start() method before calling this method."`) {
		t.Errorf("got %q\n%s", out, errOut)
	}
}

// Writing a response the other ways: a StreamWriter, Close(byte[], bool),
// OutputStream.Close; the request's headers and addresses; a listener
// stopped and started again, then closed.
func TestListenerWriters(t *testing.T) {
	fabric := vnet.New(flatRouter{})
	s := runScript(t, fabric, `$l = New-Object System.Net.HttpListener
$l.Prefixes.Add('http://*:8080/')
$l.Start(); $l.Stop(); $l.Start()
while ($l.IsListening) {
  $c = $l.GetContext(); $q = $c.Request; $r = $c.Response
  if ($q.RawUrl -eq '/writer') {
    $sw = New-Object System.IO.StreamWriter($r.OutputStream)
    $sw.Write("from {0}" -f $q.RemoteEndPoint.Address)
    $sw.WriteLine('!')
    $sw.Close()
  } elseif ($q.RawUrl -eq '/bytes') {
    $r.Close([Text.Encoding]::UTF8.GetBytes('all at once'), $false)
  } elseif ($q.RawUrl -eq '/keys') {
    $keys = $q.Headers.AllKeys | Sort-Object
    $b = [Text.Encoding]::ASCII.GetBytes(($keys -join ',') + ' ' + $q.UserAgent + ' ' + $q.Headers['user-agent'])
    $r.OutputStream.Write($b, 0, $b.Length)
    $r.OutputStream.Close()
  } else {
    $r.OutputStream.Write('oops')
    $r.Close()
    $l.Close()
  }
}`)
	s.waitListening(t, 8080)
	c := podClient(fabric, true)
	for path, want := range map[string]string{
		"/writer": "from 10.244.1.20!\r\n",
		"/bytes":  "all at once",
		"/keys":   "Accept-Encoding,Host,User-Agent tester tester",
	} {
		resp, body, _ := fetch(t, c, "GET", "http://10.244.1.10:8080"+path, "", "User-Agent", "tester")
		if resp.StatusCode != 200 || body != want || resp.ContentLength != int64(len(want)) {
			t.Errorf("GET %s: %d %q (Content-Length %d), want %q", path, resp.StatusCode, body, resp.ContentLength, want)
		}
	}
	resp, body, _ := fetch(t, c, "GET", "http://10.244.1.10:8080/end", "")
	if resp.StatusCode != 200 || body != "" {
		t.Errorf("GET /end: %d %q", resp.StatusCode, body)
	}
	s.wait(t)
	if !strings.Contains(s.errOut, `Cannot find an overload for "Write" and the argument count: "1".`) {
		t.Errorf("errors %q", s.errOut)
	}
}
