package netapplets

import (
	"context"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// The upstream e2e tests' commands run as the agnhost image's
// netcat-openbsd runs them: the data goes through the emulated network.
func TestNcOpenBSDAsTheE2ETestsRunIt(t *testing.T) {
	e := newEnv(t)
	e.echoServer(t, "tcp", 9000)
	e.echoServer(t, "tcp", 80)
	e.echoServer(t, "udp", 9001)
	for _, c := range []struct {
		stdin      string
		argv       []string
		out, errs  string
		wantStatus int
	}{
		{"hostName\n", []string{"nc", "-v", "-t", "-w", "2", "10.244.2.7", "9000"}, "tcp echo: hostName\n",
			"Connection to 10.244.2.7 9000 port [tcp/*] succeeded!\n", 0},
		{"hostName\n", []string{"nc", "-v", "-t", "-w", "2", "web.default", "80"}, "tcp echo: hostName\n",
			"Connection to web.default 80 port [tcp/http] succeeded!\n", 0},
		{"hostName\n", []string{"nc", "-v", "-u", "-w", "2", "10.244.2.7", "9001"}, "udp echo: hostName\n",
			"Connection to 10.244.2.7 9001 port [udp/*] succeeded!\n", 0},
		{"", []string{"nc", "-vz", "-w2", "10.244.2.7", "9000"}, "", "Connection to 10.244.2.7 9000 port [tcp/*] succeeded!\n", 0},
		{"", []string{"nc", "-v", "-t", "-w", "2", "10.244.2.7", "9999"}, "",
			"nc: connect to 10.244.2.7 port 9999 (tcp) failed: Connection refused\n", 1},
		{"", []string{"nc", "-z", "10.244.2.7", "9999"}, "", "", 1},
		{"", []string{"nc", "-v", "nosuch", "80"}, "", "nc: getaddrinfo for host \"nosuch\" port 80: Name does not resolve\n", 1},
		{"", []string{"nc", "-e", "/bin/sh", "10.244.2.7", "9000"}, "", "nc: unrecognized option: e\n" + ncBSDUsage, 1},
		{"", []string{"nc", "-w"}, "", "nc: option requires an argument: w\n" + ncBSDUsage, 1},
		{"", []string{"nc", "-v"}, "", ncBSDUsage, 1},
	} {
		out, errs, code := e.run(t, c.stdin, c.argv...)
		if out != c.out || errs != c.errs || code != c.wantStatus {
			t.Errorf("%q: got (%q, %q, %d), want (%q, %q, %d)", c.argv, out, errs, code, c.out, c.errs, c.wantStatus)
		}
	}
}

// busybox's nc takes its own table: -t is not in it.
func TestBusyboxNc(t *testing.T) {
	e := newEnv(t)
	e.echoServer(t, "tcp", 9000)
	e.echoServer(t, "udp", 9001)
	for _, c := range []struct {
		stdin      string
		argv       []string
		out, errs  string
		wantStatus int
	}{
		{"hi\n", []string{"busybox-nc", "-v", "-w", "2", "10.244.2.7", "9000"}, "tcp echo: hi\n", "10.244.2.7 (10.244.2.7:9000) open\n", 0},
		{"hi\n", []string{"busybox-nc", "-u", "web.default", "9001"}, "udp echo: hi\n", "", 0},
		{"", []string{"busybox-nc", "-v", "-t", "10.244.2.7", "9000"}, "", "busybox-nc: invalid option -- 't'\n", 1},
		{"", []string{"busybox-nc", "-vv", "10.244.2.7", "9999"}, "",
			"busybox-nc: 10.244.2.7 (10.244.2.7:9999): Connection refused\nsent 0, rcvd 0\n", 1},
		{"", []string{"busybox-nc", "-v", "10.244.2.7", "9999"}, "", "", 1},
		{"", []string{"busybox-nc", "-n", "web.default", "9000"}, "", "busybox-nc: bad address 'web.default'\n", 1},
		{"", []string{"busybox-nc", "-zv", "10.244.2.7", "9000"}, "", "10.244.2.7 (10.244.2.7:9000) open\n", 0},
		{"", []string{"busybox-nc", "a", "b", "c"}, "", "Usage: busybox-nc [OPTIONS] HOST PORT", 1},
	} {
		out, errs, code := e.run(t, c.stdin, c.argv...)
		if out != c.out || !strings.Contains(errs, c.errs) || (c.errs == "" && errs != "") || code != c.wantStatus {
			t.Errorf("%q: got (%q, %q, %d), want (%q, %q, %d)", c.argv, out, errs, code, c.out, c.errs, c.wantStatus)
		}
	}
}

// -o writes nc 1.10's hex dump of both directions.
func TestBusyboxNcHexDump(t *testing.T) {
	e := newEnv(t)
	e.echoServer(t, "tcp", 9000)
	if _, errs, code := e.run(t, "hi\n", "busybox-nc", "-o", "/dump", "10.244.2.7", "9000"); code != 0 {
		t.Fatalf("nc -o: %q %d", errs, code)
	}
	want := "> 00000000 68 69 0a                                        # hi.\n" +
		"< 00000000 74 63 70 20 65 63 68 6f 3a 20 68 69 0a          # tcp echo: hi.\n"
	if got := e.fs.Read("/dump"); got != want {
		t.Errorf("dump\n%s\nwant\n%s", got, want)
	}
}

// busybox nc -l -p PORT -e PROG serves PROG on the connection.
func TestBusyboxNcListenExec(t *testing.T) {
	e := newEnv(t)
	done := make(chan int)
	go func() {
		_, _, code := e.run(t, "", "busybox-nc", "-l", "-p", "9100", "-e", "cat")
		done <- code
	}()
	addr := netip.AddrPortFrom(clientPod.IP, 9100)
	for !e.fabric.Listening(addr) {
		time.Sleep(time.Millisecond)
	}
	conn, err := e.fabric.DialFrom(context.Background(), serverPod, addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(conn, "ping\n")
	buf := make([]byte, 5)
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "ping\n" {
		t.Errorf("echoed %q, %v", buf, err)
	}
	conn.Close()
	if code := <-done; code != 0 {
		t.Errorf("nc -l -e ended %d", code)
	}
}

// -w ends a connection idle that long (netcat-openbsd), on the
// container's clock.
func TestNcIdleTimeout(t *testing.T) {
	e := newEnv(t)
	l, err := e.fabric.Listen(serverPod, "tcp", 9200)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err == nil {
			defer c.Close()
			io.Copy(io.Discard, c)
		}
	}()
	done := make(chan int)
	go func() {
		_, _, code := e.run(t, "", "nc", "-w", "2", "10.244.2.7", "9200")
		done <- code
	}()
	for i := 0; ; i++ {
		select {
		case code := <-done:
			if code != 0 || i == 0 {
				t.Errorf("nc -w 2 ended %d after %d steps", code, i)
			}
			return
		case <-time.After(5 * time.Millisecond):
			e.clock.Step(time.Second)
		}
	}
}

// netcat 1.12 NT, the Windows e2e images' nc.exe, takes -t too and words
// its -v lines as nc 1.10 does.
func TestNcWin32(t *testing.T) {
	e := newEnv(t)
	e.sys.Programs["nc"] = NcWin32
	e.echoServer(t, "tcp", 80)
	for _, c := range []struct {
		stdin      string
		argv       []string
		out, errs  string
		wantStatus int
	}{
		{"hostName\n", []string{"nc", "-v", "-t", "-w", "2", "web.default", "80"}, "tcp echo: hostName\n", "web.default [10.244.2.7] 80 (http) open\r\n", 0},
		{"", []string{"nc", "-v", "-w", "2", "10.244.2.7", "81"}, "",
			"10.244.2.7: inverse host lookup failed: h_errno 11004: NO_DATA\r\n(UNKNOWN) [10.244.2.7] 81 (?): connection refused\r\n", 1},
		{"", []string{"nc", "-v", "nosuch", "80"}, "", "nosuch: forward host lookup failed: h_errno 11001: HOST_NOT_FOUND\r\n", 1},
		{"", []string{"nc", "-q", "1", "web.default", "80"}, "", "nc: invalid option -- q\r\nnc -h for help\r\n", 1},
	} {
		out, errs, code := e.run(t, c.stdin, c.argv...)
		if out != c.out || errs != c.errs || code != c.wantStatus {
			t.Errorf("%q: got (%q, %q, %d), want (%q, %q, %d)", c.argv, out, errs, code, c.out, c.errs, c.wantStatus)
		}
	}
}
