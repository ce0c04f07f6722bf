package applets

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/applets/fileapplets"
	"github.com/winkube/winkube/pkg/emu/program"
)

func TestFileOps(t *testing.T) {
	e := newEnv()
	runCases(t, e, []tc{
		{argv: []string{"mkdir", "-p", "/a/b/c"}},
		{argv: []string{"mkdir", "/a"}, errText: "mkdir: can't create directory '/a': File exists", code: 1},
		{argv: []string{"mkdir", "-m", "700", "/m"}},
		{argv: []string{"touch", "/a/f"}},
		{argv: []string{"cp", "/data.txt", "/a/b/"}},
		{argv: []string{"cat", "/a/b/data.txt"}, out: "one\ntwo\nthree\nfour\n"},
		{argv: []string{"cp", "/a", "/z"}, errText: "cp: omitting directory '/a'", code: 1},
		{argv: []string{"cp", "-r", "/a", "/z"}},
		{argv: []string{"test", "-f", "/z/b/data.txt"}},
		{argv: []string{"mv", "/z/f", "/z/g"}},
		{argv: []string{"mv", "-v", "/z/g", "/a/"}, out: "'/z/g' -> '/a/g'\n"},
		{argv: []string{"mv", "-v", "/a/g", "/z/g"}, out: "'/a/g' -> '/z/g'\n"},
		{argv: []string{"test", "-e", "/z/f"}, code: 1},
		{argv: []string{"ln", "-s", "/data.txt", "/link"}},
		{argv: []string{"readlink", "/link"}, out: "/data.txt\n"},
		{argv: []string{"readlink", "-f", "/link"}, out: "/data.txt\n"},
		{argv: []string{"realpath", "/a/b/../b"}, out: "/a/b\n"},
		{argv: []string{"chmod", "755", "/a/f"}},
		{argv: []string{"stat", "-c", "%a %A %s %F %n", "/a/f"}, out: "755 -rwxr-xr-x 0 regular empty file /a/f\n"},
		{argv: []string{"chmod", "u-x,go=r", "/a/f"}},
		{argv: []string{"stat", "-c", "%a", "/a/f"}, out: "644\n"},
		{argv: []string{"stat", "-c", "%A %F", "/m"}, out: "drwx------ directory\n"},
		{argv: []string{"stat", "-c", "%y %u %g %U", "/data.txt"}, out: "2026-11-24 10:00:00.000000000 +0000 0 0 root\n"},
		{argv: []string{"stat", "/nosuch"}, errText: "stat: can't stat '/nosuch': No such file or directory", code: 1},
		{argv: []string{"rm", "/a"}, errText: "rm: '/a' is a directory", code: 1},
		{argv: []string{"rm", "/nosuch"}, errText: "rm: can't remove '/nosuch': No such file or directory", code: 1},
		{argv: []string{"rm", "-f", "/nosuch"}},
		{argv: []string{"rmdir", "/a"}, errText: "rmdir: '/a': Directory not empty", code: 1},
		{argv: []string{"rm", "-rf", "/a"}},
		{argv: []string{"test", "-d", "/a"}, code: 1},
		{argv: []string{"find", "/z", "-type", "f"}, out: "/z/b/data.txt\n/z/g\n"},
		{argv: []string{"find", "/z", "-maxdepth", "1", "-name", "b*"}, out: "/z/b\n"},
		{argv: []string{"chown", "65534:0", "/z/g"}},
	})
}

func TestLs(t *testing.T) {
	e := newEnv()
	e.fs.MkdirAll("/d/sub", 0o755)
	e.fs.Put("/d/file", "12345", 0o644)
	e.fs.Put("/d/.hidden", "", 0o600)
	e.fs.Symlink("file", "/d/ln")
	runCases(t, e, []tc{
		{argv: []string{"ls", "/d"}, out: "file\nln\nsub\n"},
		{argv: []string{"ls", "-a", "/d"}, out: ".\n..\n.hidden\nfile\nln\nsub\n"},
		{argv: []string{"ls", "-1d", "/d"}, out: "/d\n"},
		{argv: []string{"ls", "-l", "/d/file"}, out: "-rw-r--r--    1 root     root             5 Nov 24 10:00 /d/file\n"},
		// The node's filesystem sizes a directory 4096 and a symlink by its
		// target, as ext4 does.
		{argv: []string{"ls", "-n", "/d"}, out: "total 12\n" +
			"-rw-r--r--    1 0        0                5 Nov 24 10:00 file\n" +
			"lrwxrwxrwx    1 0        0                4 Nov 24 10:00 ln -> file\n" +
			"drwxr-xr-x    2 0        0             4096 Nov 24 10:00 sub\n"},
		{argv: []string{"ls", "/nosuch"}, errText: "ls: /nosuch: No such file or directory", code: 1},
	})
}

func TestTest(t *testing.T) {
	e := newEnv()
	e.sys.User = program.User{UID: 1000, GID: 1000}
	e.fs.Put("/secret", "x", 0o600)
	runCases(t, e, []tc{
		{argv: []string{"test", "-f", "/data.txt"}},
		{argv: []string{"test", "-r", "/secret"}, code: 1},
		{argv: []string{"test", "-r", "/data.txt", "-a", "!", "-w", "/data.txt"}},
		{argv: []string{"[", "a", "=", "a", "]"}},
		{argv: []string{"[", "a", "!=", "a", "]"}, code: 1},
		{argv: []string{"[", "3", "-lt", "10", "]"}},
		{argv: []string{"[", "x", "-lt", "10", "]"}, errText: "x: bad number", code: 2},
		{argv: []string{"[", "1", "-eq", "1"}, errText: "[: missing ]", code: 2},
		{argv: []string{"test", "-z", ""}},
		{argv: []string{"test", "-n", ""}, code: 1},
		{argv: []string{"test"}, code: 1},
		{argv: []string{"test", "(", "-d", "/etc", ")", "-o", "-f", "/x"}},
	})
}

func TestSleepOnClock(t *testing.T) {
	e := newEnv()
	done := make(chan int)
	go func() {
		_, _, code := e.run(t, "", "sleep", "1.5m")
		done <- code
	}()
	waitWaiters(t, e)
	e.clock.Step(89 * time.Second)
	select {
	case <-done:
		t.Fatal("sleep returned early")
	case <-time.After(20 * time.Millisecond):
	}
	e.clock.Step(time.Second)
	if code := <-done; code != 0 {
		t.Fatalf("sleep = %d", code)
	}
	runCases(t, e, []tc{{argv: []string{"sleep", "x"}, errText: "sleep: invalid number 'x'", code: 1}})
}

func waitWaiters(t *testing.T, e *testEnv) {
	t.Helper()
	for i := 0; !e.clock.HasWaiters(); i++ {
		if i > 1000 {
			t.Fatal("nothing waits on the clock")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestTailFollow(t *testing.T) {
	e := newEnv()
	e.fs.Put("/log", "a\n", 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	p := &program.Proc{Args: []string{"tail", "-f", "/log"}, Dir: "/", Stdin: strings.NewReader(""), Stdout: w, Stderr: io.Discard, Sys: e.sys}
	done := make(chan int)
	go func() { done <- fileapplets.Tail(ctx, p); w.Close() }()
	buf := make([]byte, 64)
	n, _ := r.Read(buf)
	if string(buf[:n]) != "a\n" {
		t.Fatalf("first read %q", buf[:n])
	}
	waitWaiters(t, e) // tail has taken the file's size
	f, _ := e.fs.OpenFile("/log", os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte("b\n"))
	e.clock.Step(time.Second)
	n, _ = r.Read(buf)
	if string(buf[:n]) != "b\n" {
		t.Fatalf("followed %q", buf[:n])
	}
	cancel()
	go io.Copy(io.Discard, r)
	<-done
}

func TestNetworkWithoutNet(t *testing.T) {
	e := newEnv()
	runCases(t, e, []tc{
		{argv: []string{"wget", "-q", "-O-", "http://svc:8080/x"}, errText: "wget: bad address 'svc'", code: 1},
		{argv: []string{"nslookup", "svc"}, out: ";; connection timed out; no servers could be reached\n", code: 1},
		{argv: []string{"ping", "-c", "1", "svc"}, errText: "ping: bad address 'svc'", code: 1},
		{argv: []string{"nc", "-z", "svc", "80"}, errText: "nc: bad address 'svc'", code: 1},
	})
}

// fakeNet answers every name with 10.0.0.5 and serves one HTTP reply.
type fakeNet struct{ body string }

func (f fakeNet) LookupHost(ctx context.Context, name string) ([]string, error) {
	if name == "missing" {
		return nil, fs.ErrNotExist
	}
	return []string{"10.0.0.5"}, nil
}

func (f fakeNet) Dial(ctx context.Context, network, address string) (io.ReadWriteCloser, error) {
	return &fakeConn{reply: strings.NewReader("HTTP/1.1 200 OK\r\nContent-Length: " +
		itoa(len(f.body)) + "\r\n\r\n" + f.body)}, nil
}

func (f fakeNet) Listen(ctx context.Context, network string, port int) (program.Listener, error) {
	return nil, fs.ErrPermission
}

type fakeConn struct {
	reply *strings.Reader
	sent  bytes.Buffer
}

func (c *fakeConn) Read(b []byte) (int, error)  { return c.reply.Read(b) }
func (c *fakeConn) Write(b []byte) (int, error) { return c.sent.Write(b) }
func (c *fakeConn) Close() error                { return nil }

func itoa(n int) string { return strconv.Itoa(n) }

func TestNetworkWithNet(t *testing.T) {
	e := newEnv()
	e.sys.Net = fakeNet{body: "hello-pod"}
	e.fs.Put("/etc/resolv.conf", "search default.svc.cluster.local\nnameserver 10.96.0.10\n", 0o644)
	runCases(t, e, []tc{
		{argv: []string{"wget", "-q", "-O-", "http://svc:8080/x"}, out: "hello-pod"},
		{argv: []string{"nslookup", "svc"}, out: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tsvc\nAddress: 10.0.0.5\n\n"},
		{argv: []string{"nslookup", "missing"}, out: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n** server can't find missing: NXDOMAIN\n\n", code: 1},
		{argv: []string{"nc", "-z", "svc", "80"}},
		{argv: []string{"ping", "-c", "1", "svc"}, out: "PING svc (10.0.0.5): 56 data bytes\n64 bytes from 10.0.0.5: seq=0 ttl=64 time=0.100 ms\n\n" +
			"--- svc ping statistics ---\n1 packets transmitted, 1 packets received, 0% packet loss\nround-trip min/avg/max = 0.100/0.100/0.100 ms\n"},
	})
}
