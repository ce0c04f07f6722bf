package hostport

import (
	"context"
	"io"
	"net"
	"sync"
	"time"
)

// dialTimeout bounds a dial into the cluster; the network model answers
// at once, so this only guards against a dial function that hangs.
const dialTimeout = 10 * time.Second

// forward connects client to addr through dial and copies both ways until
// both sides are done or ctx ends. When the dial fails the client is reset
// at once: nothing answers behind the address, and a reset is the nearest
// an accepted connection can come to "connection refused".
func forward(ctx context.Context, client net.Conn, addr string, dial DialFunc) {
	defer client.Close()
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	server, err := dial(dctx, addr)
	cancel()
	if err != nil {
		if l, ok := client.(interface{ SetLinger(int) error }); ok {
			_ = l.SetLinger(0)
		}
		return
	}
	defer server.Close()
	closed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		client.Close()
		server.Close()
		close(closed)
	})
	// When the context already fired, wait for its func: Stop must not
	// return while it still runs.
	defer func() {
		if !stop() {
			<-closed
		}
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		copyHalf(server, client)
	}()
	copyHalf(client, server)
	wg.Wait()
}

// copyHalf copies src to dst. At src's end of stream it passes the
// half-close on when dst can (a TCP client can, the in-process pipe to an
// emulated server cannot, so that side waits for the server to finish);
// on an error it closes both ends so the other direction ends too.
func copyHalf(dst, src net.Conn) {
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		src.Close()
		return
	}
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}
