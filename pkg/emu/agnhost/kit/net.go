package kit

// This file is the whole bridge between agnhost's servers and the pod
// network (program.Net): a net.Listener over a program.Listener, a
// net.Conn over an io.ReadWriteCloser, and serveHTTP, which runs an
// http.Handler until ctx is done and leaves no goroutine behind. The
// traffic work extends it (UDP, TLS); the handlers stay as they are.

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Listen opens a port of the pod network; a nil error with a nil
// listener never happens. With no network the caller just waits.
func Listen(ctx context.Context, p *program.Proc, network string, port int) (net.Listener, error) {
	l, err := p.Sys.Net.Listen(ctx, network, port)
	if err != nil {
		return nil, err
	}
	return &Listener{L: l, Port: port}, nil
}

// Listener adapts a program.Listener to net.Listener.
type Listener struct {
	L    program.Listener
	Port int
}

func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.L.Accept()
	if err != nil {
		return nil, err
	}
	return asConn(c, l.Port), nil
}

func (l *Listener) Close() error   { return l.L.Close() }
func (l *Listener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4zero, Port: l.Port} }

// asConn is c as a net.Conn: itself when it is one (net.Pipe, a real
// socket), else a wrapper that can interrupt a pending read, which
// net/http needs to finish each request.
func asConn(c io.ReadWriteCloser, port int) net.Conn {
	if nc, ok := c.(net.Conn); ok {
		return nc
	}
	pc := &pumpConn{
		rwc: c, port: port,
		want: make(chan int), data: make(chan []byte),
		dead: make(chan struct{}), closed: make(chan struct{}), abort: make(chan struct{}),
	}
	go pc.pump()
	return pc
}

// pumpConn reads c in one goroutine so that a Read can be abandoned: a
// deadline in the past (net/http's way of stopping its background read)
// wakes the reader, and the bytes read meanwhile go to the next Read.
// The pump ends when c fails or the conn is closed.
type pumpConn struct {
	rwc  io.ReadWriteCloser
	port int

	want   chan int      // a reader asks for up to n bytes
	data   chan []byte   // the pump hands them over
	dead   chan struct{} // closed when rwc failed; err says how
	err    error
	closed chan struct{}
	once   sync.Once
	left   []byte // read for an abandoned Read

	mu    sync.Mutex
	abort chan struct{} // closed by a past read deadline
}

func (c *pumpConn) pump() {
	for {
		var n int
		select {
		case n = <-c.want:
		case <-c.closed:
			return
		}
		buf := make([]byte, n)
		k, err := c.rwc.Read(buf)
		if k > 0 || err == nil {
			select {
			case c.data <- buf[:k]:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			c.err = err
			close(c.dead)
			return
		}
	}
}

func (c *pumpConn) Read(b []byte) (int, error) {
	if len(c.left) > 0 {
		n := copy(b, c.left)
		c.left = c.left[n:]
		return n, nil
	}
	c.mu.Lock()
	abort := c.abort
	c.mu.Unlock()
	select {
	case c.want <- len(b):
	case buf := <-c.data: // the answer to an abandoned read
		return c.take(b, buf)
	case <-c.dead:
		return 0, c.err
	case <-c.closed:
		return 0, net.ErrClosed
	case <-abort:
		return 0, errTimeout{}
	}
	select {
	case buf := <-c.data:
		return c.take(b, buf)
	case <-c.dead:
		return 0, c.err
	case <-c.closed:
		return 0, net.ErrClosed
	case <-abort:
		return 0, errTimeout{}
	}
}

func (c *pumpConn) take(b, buf []byte) (int, error) {
	n := copy(b, buf)
	c.left = buf[n:]
	return n, nil
}

func (c *pumpConn) Write(b []byte) (int, error) { return c.rwc.Write(b) }

func (c *pumpConn) Close() error {
	err := c.rwc.Close()
	c.once.Do(func() { close(c.closed) })
	return err
}

func (c *pumpConn) LocalAddr() net.Addr  { return &net.TCPAddr{IP: net.IPv4zero, Port: c.port} }
func (c *pumpConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4zero} }

func (c *pumpConn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetReadDeadline honours the two deadlines net/http sets without
// timeouts configured: none (zero) and "now, stop" (a time long past).
func (c *pumpConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.abort:
		c.abort = make(chan struct{})
	default:
	}
	if !t.IsZero() && t.Year() < 2000 {
		close(c.abort)
	}
	return nil
}

func (c *pumpConn) SetWriteDeadline(time.Time) error { return nil }

type errTimeout struct{}

func (errTimeout) Error() string   { return "i/o timeout" }
func (errTimeout) Timeout() bool   { return true }
func (errTimeout) Temporary() bool { return true }

// ServeHTTP serves h on l until ctx is done or stop is closed, then
// closes every connection and waits for their goroutines.
func ServeHTTP(ctx context.Context, l net.Listener, h http.Handler, errLog io.Writer, stop <-chan struct{}) {
	var conns sync.WaitGroup
	srv := &http.Server{
		Handler:  h,
		ErrorLog: log.New(errLog, "", 0),
		ConnState: func(_ net.Conn, s http.ConnState) {
			switch s {
			case http.StateNew:
				conns.Add(1)
			case http.StateClosed, http.StateHijacked:
				conns.Done()
			}
		},
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Serve's error is that of the listener closing (ctx done) or
		// of srv.Close; either way the server is over.
		_ = srv.Serve(l)
	}()
	select {
	case <-ctx.Done():
	case <-stop:
	case <-done:
	}
	_ = srv.Close()
	<-done
	conns.Wait()
}

// ServeAll runs serveHTTP for each listener and returns when all stop.
func ServeAll(ctx context.Context, ls []net.Listener, hs []http.Handler, errLog io.Writer, stop <-chan struct{}) {
	var wg sync.WaitGroup
	for i := range ls {
		wg.Add(1)
		go func(l net.Listener, h http.Handler) {
			defer wg.Done()
			ServeHTTP(ctx, l, h, errLog, stop)
		}(ls[i], hs[i])
	}
	wg.Wait()
}

// DialConn dials through the pod network and gives the connection the
// net.Conn an http.Transport wants.
func DialConn(ctx context.Context, p *program.Proc, network, addr string) (net.Conn, error) {
	c, err := p.Sys.Net.Dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return asConn(c, 0), nil
}
