package netcmds

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/applets"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/sh"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

// A pod on the emulated pod network (vnet): its programs serve on the
// pod's ports, and the tests reach them over the pod's own loopback,
// 127.0.0.1, as a container next to them would. Other addresses are
// unreachable; localhost and the guestbook's Service names resolve to
// 127.0.0.1.
type pod struct {
	fs     *vfstest.FS
	clock  *clocktesting.FakeClock
	sys    *program.Sys
	client *program.Proc
}

type loopbackOnly struct{}

func (loopbackOnly) Route(_ vnet.Host, _ string, _ netip.AddrPort) (netip.AddrPort, error) {
	return netip.AddrPort{}, syscall.ENETUNREACH
}

func (loopbackOnly) Lookup(_ context.Context, _ vnet.Host, name string) ([]netip.Addr, error) {
	// The guestbook frontend's hard-coded Service names, here served by
	// the pod itself.
	if name == "localhost" || name == "agnhost-primary" || name == "agnhost-replica" {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func newPod() *pod {
	clock := clocktesting.NewFakeClock(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC))
	fs := vfstest.New(clock)
	host := vnet.Host{IP: netip.MustParseAddr("10.244.0.5"), Scope: "pod-uid", Source: "pod/default/pod-1"}
	progs := applets.Table()
	progs["sh"] = sh.Main
	sys := &program.Sys{FS: fs, Clock: clock, Hostname: "pod-1", Programs: progs, Net: vnet.New(loopbackOnly{}).Net(&host)}
	client := &program.Proc{Args: []string{"client"}, Dir: "/", Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Sys: sys}
	return &pod{fs: fs, clock: clock, sys: sys, client: client}
}

// running is a subcommand started by start.
type running struct {
	stderr *syncbuf.Buffer
	cancel context.CancelFunc
	done   chan int
}

// start parses args with the subcommand's flags and runs it in the
// background, as agnhost would after cobra's parsing.
func (p *pod) start(t *testing.T, setup func(*pflag.FlagSet) func(context.Context, *kit.App, []string) int, env []string, args ...string) *running {
	t.Helper()
	fs := pflag.NewFlagSet("sub", pflag.ContinueOnError)
	body := setup(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("flags %q: %v", args, err)
	}
	r := &running{stderr: &syncbuf.Buffer{}, done: make(chan int, 1)}
	proc := &program.Proc{Args: []string{"/agnhost"}, Env: env, Dir: "/", Stdin: strings.NewReader(""),
		Stdout: io.Discard, Stderr: r.stderr, Sys: p.sys}
	var ctx context.Context
	ctx, r.cancel = context.WithCancel(context.Background())
	go func() { r.done <- body(ctx, &kit.App{P: proc, Log: kit.NewKlogger(proc)}, fs.Args()) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop ends the program as SIGTERM would and returns its status.
func (r *running) stop(t *testing.T) int {
	r.cancel()
	return r.wait(t)
}

// wait is the program's status once it ends by itself.
func (r *running) wait(t *testing.T) int {
	t.Helper()
	select {
	case code := <-r.done:
		r.done <- code // a later stop sees it too
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("the program did not end; stderr:\n%s", r.stderr)
		return -1
	}
}

func (p *pod) http() *http.Client {
	return &http.Client{
		Transport:     &http.Transport{DialContext: program.NetDialer(p.client), DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// get fetches url from inside the pod, retrying while the server is
// still starting (a hang guard, not a timing assertion).
func (p *pod) get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := p.http().Get(url)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp, string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %v", url, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// udp sends one datagram to port on the pod's loopback and returns the
// answer; it dials until the server has bound the port.
func (p *pod) udp(t *testing.T, port, msg string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	c, err := p.sys.Net.Dial(context.Background(), "udp", "127.0.0.1:"+port)
	for err != nil {
		if time.Now().After(deadline) {
			t.Fatalf("udp %s: %v", port, err)
		}
		time.Sleep(5 * time.Millisecond)
		c, err = p.sys.Net.Dial(context.Background(), "udp", "127.0.0.1:"+port)
	}
	defer c.Close()
	guard := time.AfterFunc(30*time.Second, func() { c.Close() }) // hang guard
	defer guard.Stop()
	if _, err := io.WriteString(c, msg); err != nil {
		t.Fatalf("udp %s %q: %v", port, msg, err)
	}
	buf := make([]byte, 2048)
	n, err := c.Read(buf)
	if err != nil {
		t.Fatalf("udp %s %q: %v", port, msg, err)
	}
	return string(buf[:n])
}

// logged waits until the program's log has s (a hang guard).
func (r *running) logged(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(r.stderr.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never had %q:\n%s", s, r.stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// noFlags is the setup of a subcommand that has no flags.
func noFlags(m func(context.Context, *kit.App, []string) int) func(*pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	return func(*pflag.FlagSet) func(context.Context, *kit.App, []string) int { return m }
}
