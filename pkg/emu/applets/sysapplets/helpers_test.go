package sysapplets

import (
	"context"
	"errors"
	"io"

	"github.com/winkube/winkube/pkg/emu/applets/applettest"
	"github.com/winkube/winkube/pkg/emu/program"
)

// env is a busybox container with a passwd and group file and this
// package's applets, in a pod named as a StatefulSet's.
type env struct{ *applettest.Container }

type tc = applettest.Case

var a = applettest.Args

func newEnv() *env {
	c := applettest.New(map[string]program.Main{
		"date": Date, "id": ID, "whoami": Whoami, "hostname": Hostname, "uname": Uname, "env": Env,
		"printenv": Printenv, "pwd": Pwd, "kill": Kill, "which": Which, "mount": Mount, "stty": Stty,
		"sysctl": Sysctl, "ip": IP, "nslookup": Nslookup, "ping": Ping,
		"false": func(context.Context, *program.Proc) int { return 1 },
	})
	c.FS.Put("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n", 0o644)
	c.FS.Put("/etc/group", "root:x:0:\nwheel:x:10:root\nnogroup:x:65534:\n", 0o644)
	c.Sys.Hostname = "web-0.web.default.svc.cluster.local"
	c.Sys.OS = program.OSInfo{KernelRelease: "6.8.0-45-generic"}
	c.Dir = "/tmp"
	return &env{c}
}

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
