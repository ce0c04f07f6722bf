package hostport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
)

// listener is one bound IP:port and the connections it accepted.
type listener struct {
	addr   string
	ln     net.Listener
	cancel context.CancelFunc // closes the accepted connections
}

// close stops accepting and drops the connections in flight, as a cloud
// load balancer that is deleted does.
func (l *listener) close() {
	l.cancel()
	_ = l.ln.Close()
}

func listenTCP(ctx context.Context, addr string) (net.Listener, error) {
	var lc net.ListenConfig
	return lc.Listen(ctx, "tcp4", addr)
}

// listen binds addr and starts accepting on it. It refuses any address
// that is not loopback whatever the caller computed: the cluster must
// never be reachable from another machine through this package.
func (f *Forwarder) listen(addr string) (*listener, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().Is4() || !ap.Addr().IsLoopback() {
		return nil, fmt.Errorf("refusing to listen on %s: only loopback addresses are served", addr)
	}
	ln, err := f.opts.Listen(f.ctx, addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(f.ctx)
	l := &listener{addr: addr, ln: ln, cancel: cancel}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.accept(ctx, l)
	}()
	return l, nil
}

// accept hands every connection of l to forward until l is closed.
func (f *Forwarder) accept(ctx context.Context, l *listener) {
	for {
		conn, err := l.ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait rather than spin.
			select {
			case <-ctx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		// This goroutine holds a count of f.wg, so Stop's Wait cannot
		// have returned yet.
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			forward(ctx, conn, l.addr, f.opts.Dial)
		}()
	}
}
