package netcmd_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

// loopback is a pod network whose names resolve to loopback addresses
// and whose connections are real TCP connections to them: the tests'
// servers listen on 127.0.0.1, and nothing leaves the machine.
type loopback struct{ hosts map[string][]string }

func (n loopback) LookupHost(_ context.Context, name string) ([]string, error) {
	if a, ok := n.hosts[strings.ToLower(name)]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (n loopback) Dial(ctx context.Context, network, address string) (io.ReadWriteCloser, error) {
	host := address
	if h, _, err := net.SplitHostPort(address); err == nil {
		host = h
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, errors.New("network is unreachable") // tests reach loopback only
	}
	if network == "icmp" {
		return echo{}, nil
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", address)
}

// PodIP is the pod's address, as a pod network tells it.
func (loopback) PodIP() string { return "127.0.0.1" }

// DNSServers and DNSSearch are the pod's resolver settings.
func (loopback) DNSServers() []string { return []string{"127.0.0.53"} }
func (loopback) DNSSearch() []string  { return []string{"default.svc.cluster.local"} }

// echo is an ICMP echo that answers.
type echo struct{}

func (echo) Read([]byte) (int, error)    { return 0, io.EOF }
func (echo) Write(b []byte) (int, error) { return len(b), nil }
func (echo) Close() error                { return nil }

func (loopback) Listen(context.Context, string, int) (program.Listener, error) {
	return nil, errors.New("not supported")
}

// server starts a loopback HTTP server for the test and a container
// whose network reaches it as web.local.
func server(t *testing.T, h http.HandlerFunc) (*program.Sys, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	sys := pwshtest.Sys()
	sys.Net = loopback{hosts: map[string][]string{"web.local": {"127.0.0.1"}}}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return sys, port
}

// web serves what the tests fetch: the method and path, 404 for
// /missing (with no body), 500 with a body for /fail, and the request's
// headers at /headers.
func web(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	switch r.URL.Path {
	case "/missing":
		w.WriteHeader(http.StatusNotFound)
	case "/fail":
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "server says no")
	case "/echo":
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, r.Method+" "+r.Header.Get("X-Token")+" "+r.Header.Get("Content-Type")+" "+string(b))
	case "/json":
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, `{"name":"x","n":2,"ratio":0.5,"ok":true,"none":null,"tags":["a","b"],"inner":{"z":1,"a":2}}`)
	case "/list":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[{"id":1},{"id":2}]`)
	default:
		io.WriteString(w, r.Method+" "+r.URL.Path)
	}
}

func lines(l ...string) string { return strings.Join(l, "\r\n") + "\r\n" }

// Invoke-WebRequest (Microsoft.PowerShell.Utility) against a server on
// loopback: the response object's properties; Invoke-RestMethod gives
// the body; -OutFile writes it.
func TestInvokeWebRequest(t *testing.T) {
	sys, port := server(t, web)
	base := "http://web.local:" + port
	for _, c := range []struct {
		script, out string
		pwsh7       bool
	}{
		{script: "$r = Invoke-WebRequest " + base + "/a -UseBasicParsing; $r.StatusCode; $r.StatusDescription; $r.Content; $r.Headers['Content-Type']; $r.RawContentLength",
			out: lines("200", "OK", "GET /a", "text/plain", "6")},
		{script: "(iwr " + base + "/a -UseBasicParsing).RawContent.StartsWith(\"HTTP/1.1 200 OK\")", out: lines("True")},
		{script: "(Invoke-WebRequest " + base + "/a -UseBasicParsing).Content", pwsh7: true, out: lines("GET /a")},
		{script: "Invoke-RestMethod " + base + "/b -Method Post; irm " + base + "/c -Method PUT", out: lines("POST /b", "PUT /c")},
		{script: "Invoke-WebRequest " + base + "/file -OutFile C:\\got.txt; Get-Content C:\\got.txt", out: lines("GET /file")},
		// -Headers, -ContentType and -Body reach the server.
		{script: "Invoke-RestMethod " + base + "/echo -Method Post -Headers @{ 'X-Token' = 'abc' } -ContentType 'application/json' -Body '{\"a\":1}'",
			out: lines(`POST abc application/json {"a":1}`)},
		{script: "$r = Invoke-WebRequest -Uri " + base + "/a -UseBasicParsing; $r.GetType().Name", out: lines("BasicHtmlWebResponseObject")},
	} {
		run := pwshtest.Run
		if c.pwsh7 {
			run = pwshtest.Run7
		}
		if r := run(sys, c.script); r.Out != c.out || r.Err != "" || r.Code != 0 {
			t.Errorf("%s:\ngot %q %q (%d)\nwant %q", c.script, r.Out, r.Err, r.Code, c.out)
		}
	}
}

// A failed request is a WebException: 5.1 says "The remote server
// returned an error: (404) Not Found." (or the body the server sent),
// PowerShell 7 "Response status code does not indicate success"; a
// name that does not resolve and a refused connection have their own
// words in each.
func TestInvokeWebRequestErrors(t *testing.T) {
	sys, port := server(t, web)
	base := "http://web.local:" + port
	for _, c := range []struct {
		script, msg string
		pwsh7       bool
	}{
		{script: "Invoke-WebRequest " + base + "/missing -UseBasicParsing", msg: "Invoke-WebRequest : The remote server returned an error: (404) Not Found.\r\n"},
		{script: "Invoke-WebRequest " + base + "/fail -UseBasicParsing", msg: "Invoke-WebRequest : server says no\r\n"},
		{script: "Invoke-WebRequest " + base + "/missing", pwsh7: true, msg: "Invoke-WebRequest: Response status code does not indicate success: 404 Not Found.\r\n"},
		{script: "Invoke-WebRequest http://nope.local/ -UseBasicParsing", msg: "Invoke-WebRequest : The remote name could not be resolved: 'nope.local'\r\n"},
		{script: "Invoke-WebRequest http://nope.local/", pwsh7: true, msg: "Invoke-WebRequest: No such host is known. (nope.local)\r\n"},
		{script: "Invoke-WebRequest http://127.0.0.1:1/ -UseBasicParsing", msg: "Invoke-WebRequest : Unable to connect to the remote server\r\n"},
		{script: "Invoke-WebRequest http://127.0.0.1:1/", pwsh7: true, msg: "Invoke-WebRequest: No connection could be made because the target machine actively refused it.\r\n"},
	} {
		run := pwshtest.Run
		if c.pwsh7 {
			run = pwshtest.Run7
		}
		r := run(sys, c.script)
		if r.Code != 1 || !strings.HasPrefix(r.Err, c.msg) {
			t.Errorf("%s:\ngot %q (%d)\nwant %q", c.script, r.Err, r.Code, c.msg)
		}
		if !c.pwsh7 && !strings.Contains(r.Err, "    + CategoryInfo          : InvalidOperation: (System.Net.HttpWebRequest:HttpWebRequest) [Invoke-WebRequest], WebException\r\n"+
			"    + FullyQualifiedErrorId : WebCmdletWebResponseException,Microsoft.PowerShell.Commands.InvokeWebRequestCommand\r\n") {
			t.Errorf("%s: the record: %q", c.script, r.Err)
		}
	}
	// The failure is catchable and the script goes on after it.
	r := pwshtest.Run(sys, "try { Invoke-WebRequest "+base+"/missing -UseBasicParsing -ErrorAction Stop } catch { 'caught' }; 'next'")
	if r.Out != lines("caught", "next") {
		t.Errorf("caught: %q %q", r.Out, r.Err)
	}
}

// Test-NetConnection: a TCP connect to a port (the test's loopback
// server, then a closed port), or a ping without -Port; the result's
// list view; the warnings Windows prints on failure.
func TestTestNetConnection(t *testing.T) {
	sys, port := server(t, web)
	r := pwshtest.Run(sys, "Test-NetConnection web.local -Port "+port)
	want := lines("", "ComputerName     : web.local", "RemoteAddress    : 127.0.0.1", "RemotePort       : "+port,
		"InterfaceAlias   : vEthernet (Ethernet)", "SourceAddress    : 127.0.0.1", "TcpTestSucceeded : True", "", "")
	if r.Out != want || r.Err != "" {
		t.Errorf("open port:\n%q\nwant\n%q", r.Out, want)
	}
	r = pwshtest.Run(sys, "(Test-NetConnection 127.0.0.1 -Port 1).TcpTestSucceeded")
	if r.Out != lines("WARNING: TCP connect to (127.0.0.1 : 1) failed", "False") {
		t.Errorf("closed port: %q", r.Out)
	}
	r = pwshtest.Run(sys, "$t = tnc web.local; $t.PingSucceeded; $t.RemoteAddress")
	if r.Out != lines("True", "127.0.0.1") {
		t.Errorf("ping: %q %q", r.Out, r.Err)
	}
	r = pwshtest.Run(sys, "(Test-NetConnection nope.local).PingSucceeded")
	if r.Out != lines("WARNING: Name resolution of nope.local failed", "False") {
		t.Errorf("no such name: %q", r.Out)
	}
	// -InformationLevel Quiet gives only whether the test passed.
	r = pwshtest.Run(sys, "Test-NetConnection web.local -Port "+port+" -InformationLevel Quiet; Test-NetConnection nope.local -InformationLevel Quiet")
	if r.Out != lines("True", "WARNING: Name resolution of nope.local failed", "False") {
		t.Errorf("-InformationLevel Quiet: %q %q", r.Out, r.Err)
	}
	r = pwshtest.Run(sys, "(Test-NetConnection web.local -CommonTCPPort HTTP).RemotePort")
	if !strings.HasSuffix(r.Out, lines("80")) {
		t.Errorf("-CommonTCPPort HTTP: %q", r.Out)
	}
}

// Resolve-DnsName: the answer records of the pod's resolver; a name
// that does not exist is DNS_ERROR_RCODE_NAME_ERROR.
func TestResolveDnsName(t *testing.T) {
	sys, _ := server(t, web)
	sys.Net = loopback{hosts: map[string][]string{"web.local": {"127.0.0.1", "::1"}}}
	r := pwshtest.Run(sys, "Resolve-DnsName web.local | % { \"$($_.Name) $($_.Type) $($_.IPAddress) $($_.Section)\" }")
	if r.Out != lines("web.local A 127.0.0.1 Answer", "web.local AAAA ::1 Answer") {
		t.Errorf("records: %q %q", r.Out, r.Err)
	}
	r = pwshtest.Run(sys, "Resolve-DnsName nope.local")
	if r.Code != 1 || !strings.HasPrefix(r.Err, "Resolve-DnsName : nope.local : DNS name does not exist\r\n") ||
		!strings.Contains(r.Err, "FullyQualifiedErrorId : DNS_ERROR_RCODE_NAME_ERROR,Microsoft.DnsClient.Commands.ResolveDnsName") {
		t.Errorf("no such name: %q", r.Err)
	}
}

// The pod's addresses as Windows lists them: the adapter, its IPv4
// address and DNS servers come from the pod network.
func TestNetInfo(t *testing.T) {
	sys, _ := server(t, web)
	r := pwshtest.Run(sys, "(Get-NetAdapter | Get-NetIPAddress -AddressFamily IPv4).IPAddress; (Get-NetIPConfiguration).IPv4Address; (Get-DnsClientServerAddress -AddressFamily IPv4).ServerAddresses")
	if r.Out != lines("127.0.0.1", "127.0.0.1", "127.0.0.53") {
		t.Errorf("%q %q", r.Out, r.Err)
	}
}

// The pod's adapter in Windows' views: Get-NetAdapter's list,
// Get-NetIPAddress's entries (the pod address, then loopback), filtered
// by family and alias.
func TestNetViews(t *testing.T) {
	sys, _ := server(t, web)
	r := pwshtest.Run(sys, "Get-NetAdapter")
	for _, line := range []string{"Name                 : vEthernet (Ethernet)", "InterfaceDescription : Hyper-V Virtual Ethernet Container Adapter", "Status               : Up"} {
		if !strings.Contains(r.Out, line+"\r\n") {
			t.Errorf("Get-NetAdapter lacks %q:\n%s", line, r.Out)
		}
	}
	r = pwshtest.Run(sys, "Get-NetIPAddress -AddressFamily IPv4 | % { \"$($_.InterfaceAlias)=$($_.IPAddress) $($_.PrefixOrigin)\" }")
	if r.Out != lines("vEthernet (Ethernet)=127.0.0.1 Manual", "Loopback Pseudo-Interface 1=127.0.0.1 WellKnown") || r.Err != "" {
		t.Errorf("IPv4 addresses: %q %q", r.Out, r.Err)
	}
	r = pwshtest.Run(sys, "(Get-NetIPAddress -InterfaceAlias 'vEthernet (Ethernet)' -AddressFamily IPv4).IPAddress; (Get-NetAdapter).ifIndex -eq (Get-NetIPConfiguration).InterfaceIndex")
	if r.Out != lines("127.0.0.1", "True") || r.Err != "" {
		t.Errorf("by alias: %q %q", r.Out, r.Err)
	}
}

// Invoke-RestMethod converts a JSON response to objects as
// ConvertFrom-Json does: properties in the document's order, numbers as
// Int32 or Double, arrays enumerated into the pipeline.
func TestInvokeRestMethodJSON(t *testing.T) {
	sys, port := server(t, web)
	base := "http://web.local:" + port
	for _, c := range []struct{ script, out string }{
		{"$r = Invoke-RestMethod " + base + "/json; $r.name; $r.n + 1; $r.ratio; $r.ok; $r.none -eq $null; $r.tags -join ','; $r.inner.a",
			lines("x", "3", "0.5", "True", "True", "a,b", "2")},
		{"$r = irm " + base + "/json; $r.n.GetType().Name; $r.ratio.GetType().Name; $r.GetType().Name", lines("Int32", "Double", "PSCustomObject")},
		{"(Invoke-RestMethod " + base + "/list).Count; Invoke-RestMethod " + base + "/list | % { $_.id * 10 }", lines("2", "10", "20")},
		{"Invoke-RestMethod " + base + "/json | Select-Object name, n", lines("", "name n", "---- -", "x    2", "", "")},
	} {
		if r := pwshtest.Run(sys, c.script); r.Out != c.out || r.Err != "" {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
}
