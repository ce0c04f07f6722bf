package sysapplets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

var epoch = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

type env struct {
	fs    *vfstest.FS
	clock *clocktesting.FakeClock
	sys   *program.Sys
}

func newEnv() *env {
	clock := clocktesting.NewFakeClock(epoch)
	m := vfstest.New(clock)
	m.Put("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n", 0o644)
	m.Put("/etc/group", "root:x:0:\nwheel:x:10:root\nnogroup:x:65534:\n", 0o644)
	progs := map[string]program.Main{
		"date": Date, "id": ID, "whoami": Whoami, "hostname": Hostname, "uname": Uname, "env": Env,
		"printenv": Printenv, "pwd": Pwd, "kill": Kill, "which": Which, "mount": Mount, "stty": Stty,
		"sysctl": Sysctl, "ip": IP, "nslookup": Nslookup, "ping": Ping,
		"false": func(context.Context, *program.Proc) int { return 1 },
	}
	return &env{fs: m, clock: clock, sys: &program.Sys{FS: m, Clock: clock, Hostname: "web-0.web.default.svc.cluster.local",
		Programs: progs, OS: program.OSInfo{KernelRelease: "6.8.0-45-generic"}}}
}

func (e *env) run(t *testing.T, env []string, argv ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	p := &program.Proc{Args: argv, Env: env, Dir: "/tmp", Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Sys: e.sys}
	code, err := e.sys.Exec(context.Background(), p)
	if err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	return out.String(), errb.String(), code
}

// tc is a command line, its environment, and what busybox gives: stdout,
// a part of stderr ("" when it must be empty), the status.
type tc struct {
	argv []string
	env  []string
	out  string
	err  string
	code int
}

func (e *env) check(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		out, errs, code := e.run(t, c.env, c.argv...)
		errOK := strings.Contains(errs, c.err) && (c.err != "" || errs == "")
		if out != c.out || code != c.code || !errOK {
			t.Errorf("%q:\n got (%q, %q, %d)\nwant (%q, %q, %d)", c.argv, out, errs, code, c.out, c.err, c.code)
		}
	}
}

func a(s string) []string { return strings.Fields(s) }

// names is a pod network that resolves a few names and answers pings
// to one address; it carries no traffic.
type names map[string][]string

func (n names) LookupHost(_ context.Context, name string) ([]string, error) {
	if addrs, ok := n[name]; ok {
		return addrs, nil
	}
	return nil, errors.New("lookup " + name + ": no such host")
}

func (n names) Dial(_ context.Context, network, address string) (io.ReadWriteCloser, error) {
	if network == "icmp" && address == "10.0.0.9" {
		return nopConn{}, nil
	}
	return nil, errors.New("connect: network is unreachable")
}

func (n names) Listen(context.Context, string, int) (program.Listener, error) {
	return nil, errors.New("not listening")
}

type nopConn struct{}

func (nopConn) Read([]byte) (int, error)    { return 0, io.EOF }
func (nopConn) Write(b []byte) (int, error) { return len(b), nil }
func (nopConn) Close() error                { return nil }
