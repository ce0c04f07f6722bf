package winexe

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

func stubNet() *wintest.Net {
	return &wintest.Net{
		Hosts: map[string][]string{"web": {"10.0.0.5"}},
		Serve: map[string]string{"10.0.0.5:80": "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"},
		IP:    "10.244.1.7",
	}
}

func run(t *testing.T, sys *program.Sys, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return wintest.Run(context.Background(), sys, Table()[program.Name(args[0])], stdin, args...)
}

func TestWhoami(t *testing.T) {
	for account, want := range map[string]string{
		"ContainerUser":          "user manager\\containeruser\r\n",
		"ContainerAdministrator": "user manager\\containeradministrator\r\n",
		`NT AUTHORITY\SYSTEM`:    "nt authority\\system\r\n",
	} {
		sys := wintest.Sys(Table())
		sys.User.Account = account
		if out, _, code := run(t, sys, "", "whoami.exe"); out != want || code != 0 {
			t.Errorf("%s: whoami printed %q (%d)", account, out, code)
		}
	}
}

func TestPing(t *testing.T) {
	sys := wintest.Sys(Table())
	sys.Net = stubNet()
	start := sys.Clock.Now()
	out, _, code := run(t, sys, "", "ping", "-n", "2", "web")
	want := "\r\nPinging web [10.0.0.5] with 32 bytes of data:\r\n" +
		"Reply from 10.0.0.5: bytes=32 time<1ms TTL=128\r\nReply from 10.0.0.5: bytes=32 time<1ms TTL=128\r\n" +
		"\r\nPing statistics for 10.0.0.5:\r\n    Packets: Sent = 2, Received = 2, Lost = 0 (0% loss),\r\n" +
		"Approximate round trip times in milli-seconds:\r\n    Minimum = 0ms, Maximum = 0ms, Average = 0ms\r\n"
	if out != want || code != 0 {
		t.Errorf("ping printed (%d)\n%q\nwant\n%q", code, out, want)
	}
	if took := sys.Clock.Now().Sub(start); took != time.Second {
		t.Errorf("ping -n 2 took %v, want 1s", took)
	}
	sys.Net = nil
	out, _, code = run(t, sys, "", "ping", "nohost")
	if out != "Ping request could not find host nohost. Please check the name and try again.\r\n" || code != 1 {
		t.Errorf("ping without a network: %q %d", out, code)
	}
}

func TestPingForever(t *testing.T) {
	sys := wintest.Sys(Table())
	sys.Net = stubNet()
	ctx, cancel := context.WithCancel(context.Background())
	clock := sys.Clock.(*wintest.Clock)
	clock.Deadline, clock.Stop = clock.Now().Add(10*time.Second), cancel
	out, _, _ := wintest.Run(ctx, sys, Ping, "", "ping", "-t", "web")
	if n := strings.Count(out, "Reply from"); n != 10 {
		t.Errorf("ping -t for 10s replied %d times", n)
	}
}

func TestNetTools(t *testing.T) {
	sys := wintest.Sys(Table())
	sys.Net = stubNet()
	tests := []struct {
		args        []string
		net         bool
		out, errOut string
		code        int
	}{
		{args: []string{"nslookup", "web"}, net: true, out: "Server:  UnKnown\r\nAddress:  10.96.0.10\r\n\r\nName:    web\r\nAddress:  10.0.0.5\r\n\r\n"},
		{args: []string{"nslookup", "web"}, out: "Server:  UnKnown\r\nAddress:  10.96.0.10\r\n\r\n", errOut: "*** UnKnown can't find web: Server failed\r\n", code: 1},
		{args: []string{"curl.exe", "-s", "http://web/"}, net: true, out: "hello"},
		{args: []string{"curl.exe", "-k", "https://kubernetezzzzzzzz:443"}, errOut: "curl: (6) Could not resolve host: kubernetezzzzzzzz\r\n", code: 6},
		{args: []string{"curl.exe", "-4", "web:81", "--fail"}, net: true, errOut: "curl: (7) Failed to connect to web port 81 after 0 ms: Couldn't connect to server\r\n", code: 7},
		{args: []string{"curl", "-s", "-o", "NUL", "-w", "%{http_code}", "http://web"}, net: true, out: "200"},
		{args: []string{"timeout", "/t", "5"}, errOut: "ERROR: Input redirection is not supported, exiting the process immediately.\r\n", code: 1},
		{args: []string{"where", "cmd"}, out: "C:\\Windows\\System32\\cmd.exe\r\n"},
	}
	for _, tc := range tests {
		sys.Net = nil
		if tc.net {
			sys.Net = stubNet()
		}
		out, errOut, code := run(t, sys, "", tc.args...)
		if out != tc.out || errOut != tc.errOut || code != tc.code {
			t.Errorf("%q: got %q %q %d, want %q %q %d", tc.args, out, errOut, code, tc.out, tc.errOut, tc.code)
		}
	}
	out, _, _ := run(t, sys, "", "ipconfig")
	if sys.Net = stubNet(); !strings.Contains(out, "IPv4 Address. . . . . . . . . . . : 0.0.0.0") {
		t.Errorf("ipconfig without a network:\n%s", out)
	}
	out, _, _ = run(t, sys, "", "ipconfig", "/all")
	if !strings.Contains(out, "IPv4 Address. . . . . . . . . . . : 10.244.1.7(Preferred)") || !strings.Contains(out, "Host Name . . . . . . . . . . . . : WIN-POD") {
		t.Errorf("ipconfig /all:\n%s", out)
	}
}

func TestText(t *testing.T) {
	sys := wintest.Sys(Table())
	if out, _, code := run(t, sys, "b\r\nA\r\nc\r\n", "sort"); out != "A\r\nb\r\nc\r\n" || code != 0 {
		t.Errorf("sort: %q", out)
	}
	if out, _, code := run(t, sys, "one\r\ntwo\r\n", "findstr", "/i", "TWO"); out != "two\r\n" || code != 0 {
		t.Errorf("findstr: %q %d", out, code)
	}
	if _, _, code := run(t, sys, "one\r\n", "findstr", "zzz"); code != 1 {
		t.Errorf("findstr without a match: %d", code)
	}
}

// TestTogether runs programs through each other as a pod would.
func TestTogether(t *testing.T) {
	sys := wintest.Sys(Table())
	out, _, code := run(t, sys, "", "cmd", "/c", "whoami & echo %USERNAME%| findstr /i user")
	if out != "user manager\\containeruser\r\nContainerUser\r\n" || code != 0 {
		t.Errorf("cmd: %q %d", out, code)
	}
	out, _, code = run(t, sys, "", "powershell", "cmd.exe", "/c", "ver")
	if out != "\r\nMicrosoft Windows [Version "+sys.OS.Version()+"]\r\n" || code != 0 {
		t.Errorf("powershell cmd.exe /c ver: %q %d", out, code)
	}
	out, _, code = run(t, sys, "", "powershell", "-c", "whoami; exit $LASTEXITCODE")
	if out != "user manager\\containeruser\r\n" || code != 0 {
		t.Errorf("powershell whoami: %q %d", out, code)
	}
}

// The e2e images' hostname.exe is a Go program: the name, the pod's
// address with -i, and Go's flag error for anything else (so `hostname -f`
// prints nothing on stdout, as on a real Windows node).
func TestE2EHostname(t *testing.T) {
	sys := wintest.Sys(Table())
	sys.Net = stubNet()
	sys.Hostname = "querier"
	call := func(args ...string) (string, string, int) {
		return wintest.Run(context.Background(), sys, E2EHostname, "", args...)
	}
	if out, _, code := call("hostname"); out != "querier" || code != 0 {
		t.Errorf("hostname: %q (%d)", out, code)
	}
	if out, _, code := call("hostname", "-i"); out != "10.244.1.7" || code != 0 {
		t.Errorf("hostname -i: %q (%d)", out, code)
	}
	out, errOut, code := call("hostname", "-f")
	if out != "" || code != 2 || errOut != "flag provided but not defined: -f\nUsage of hostname:\n  -i\ta string\n" {
		t.Errorf("hostname -f: %q %q (%d)", out, errOut, code)
	}
}

// ping -t with its output on NUL (cmd /c ping -t localhost > NUL, a
// common way to keep a Windows container running) prints nothing anyone
// can read: it waits to be stopped in one wait rather than one a second,
// and ends with ping -t's status when stopped.
func TestPingForeverToNul(t *testing.T) {
	sys := wintest.Sys(Table())
	ctx, cancel := context.WithCancel(context.Background())
	clock := sys.Clock.(*wintest.Clock)
	clock.Deadline, clock.Stop = clock.Now().Add(time.Hour), cancel
	counted := &countingClock{Clock: clock}
	sys.Clock = counted
	code := Ping(ctx, &program.Proc{Args: []string{"ping", "-t", "localhost"}, Stdout: io.Discard, Stderr: io.Discard, Sys: sys})
	if code != 1 || ctx.Err() == nil {
		t.Errorf("ping -t localhost > NUL: status %d, stopped %v; want 1 once stopped", code, ctx.Err() != nil)
	}
	if counted.waits != 1 {
		t.Errorf("ping -t localhost > NUL waited %d times in an hour, want once", counted.waits)
	}
}

// countingClock counts the waits of a program.
type countingClock struct {
	program.Clock
	waits int
}

func (c *countingClock) After(d time.Duration) <-chan time.Time {
	c.waits++
	return c.Clock.After(d)
}
