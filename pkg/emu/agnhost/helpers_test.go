package agnhost

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/program"
)

var epoch = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

type env struct {
	p      *program.Proc
	clock  *clocktesting.FakeClock
	stdout *syncbuf.Buffer
	stderr *syncbuf.Buffer
}

func newEnv(fsys program.FS, args ...string) *env {
	clock := clocktesting.NewFakeClock(epoch)
	e := &env{clock: clock, stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}}
	if fsys == nil {
		fsys = newMemFS()
	}
	e.p = &program.Proc{
		Args: args, Dir: "/", Stdin: strings.NewReader(""), Stdout: e.stdout, Stderr: e.stderr,
		Sys: &program.Sys{FS: fsys, Clock: clock, Hostname: "pod-1", Programs: Table()},
	}
	return e
}

// run runs agnhost to its end, stepping the fake clock a second at a
// time whenever the program waits on it.
func (e *env) run(t *testing.T, ctx context.Context) int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- Main(ctx, e.p) }()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case code := <-done:
			return code
		case <-deadline:
			t.Fatalf("%v did not end; stdout %q stderr %q", e.p.Args, e.stdout, e.stderr)
		default:
		}
		if e.clock.HasWaiters() {
			e.clock.Step(time.Second)
		} else {
			time.Sleep(time.Millisecond)
		}
	}
}

// start runs agnhost in the background; stop cancels it and returns its
// status.
func (e *env) start() (stop func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Main(ctx, e.p) }()
	return func() int {
		cancel()
		return <-done
	}
}

// settleGoroutines waits until the goroutine count drops to want.
func settleGoroutines(t *testing.T, want int) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if runtime.NumGoroutine() <= want {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	n := runtime.Stack(buf, true)
	t.Fatalf("%d goroutines left, want %d:\n%s", runtime.NumGoroutine(), want, buf[:n])
}

// pipeNet is an in-memory program.Net: Dial reaches the listener of the
// port named in the address through net.Pipe. With plain set, accepted
// conns are bare io.ReadWriteClosers (no deadlines).
type pipeNet struct {
	mu        sync.Mutex
	listeners map[int]*pipeListener
	plain     bool
}

func (n *pipeNet) LookupHost(_ context.Context, name string) ([]string, error) {
	return nil, errors.New("lookup " + name + ": no such host")
}

func (n *pipeNet) Listen(ctx context.Context, network string, port int) (program.Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.listeners == nil {
		n.listeners = map[int]*pipeListener{}
	}
	l := &pipeListener{conns: make(chan io.ReadWriteCloser), done: make(chan struct{})}
	l.stop = context.AfterFunc(ctx, func() { l.Close() })
	n.listeners[port] = l
	return l, nil
}

func (n *pipeNet) Dial(ctx context.Context, network, address string) (io.ReadWriteCloser, error) {
	_, port, _ := net.SplitHostPort(address)
	num, _ := strconv.Atoi(port)
	n.mu.Lock()
	l := n.listeners[num]
	n.mu.Unlock()
	if l == nil {
		return nil, errors.New("dial tcp " + address + ": connect: connection refused")
	}
	client, server := net.Pipe()
	var s io.ReadWriteCloser = server
	if n.plain {
		s = struct{ io.ReadWriteCloser }{server}
	}
	select {
	case l.conns <- s:
		return client, nil
	case <-l.done:
		return nil, errors.New("dial tcp " + address + ": connect: connection refused")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// waitListen waits until port has a listener.
func (n *pipeNet) waitListen(t *testing.T, port int) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		n.mu.Lock()
		l := n.listeners[port]
		n.mu.Unlock()
		if l != nil {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("nothing listens on %d", port)
}

type pipeListener struct {
	conns chan io.ReadWriteCloser
	done  chan struct{}
	once  sync.Once
	stop  func() bool
}

func (l *pipeListener) Accept() (io.ReadWriteCloser, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func runtimeGoroutines() int { return runtime.NumGoroutine() }

// waitFor polls cond for up to 5 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 5000; i++ {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("condition not reached")
}
