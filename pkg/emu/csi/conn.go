package csi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

// connectionLoggingInterval is csi-lib-utils' interval between "Still
// connecting" lines.
const connectionLoggingInterval = 10 * time.Second

// connect is csi-lib-utils' connection.Connect: a gRPC client of the CSI
// driver at address (unix:// or a path starting with /), retried every
// second until it connects or timeout passes (0: forever), saying so
// every ten seconds. An address of another form is gRPC's own target,
// which no emulated driver serves: it never connects.
func connect(ctx context.Context, p *program.Proc, log *klogger, site, address string, timeout time.Duration) (*grpc.ClientConn, error) {
	if strings.HasPrefix(address, "/") {
		address = "unix://" + address
	}
	path, unix := strings.CutPrefix(address, "unix://")
	log.info(5, "connection.go:258", "Connecting", "address", address)
	var deadline <-chan time.Time
	if timeout > 0 {
		deadline = p.Sys.Clock.After(timeout)
	}
	next := p.Sys.Clock.After(connectionLoggingInterval)
	for {
		if unix {
			if c, err := dialSocket(ctx, p, path); err == nil {
				c.Close()
				return grpc.NewClient("passthrough:///"+address,
					grpc.WithTransportCredentials(insecure.NewCredentials()),
					grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return dialSocket(ctx, p, path) }))
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline:
			return nil, context.DeadlineExceeded
		case <-next:
			log.info(0, site, "Still connecting", "address", address)
			next = p.Sys.Clock.After(connectionLoggingInterval)
		case <-p.Sys.Clock.After(time.Second):
		}
	}
}

// dialSocket connects to a Unix socket of the container; without the
// node's sockets the OS has no AF_UNIX.
func dialSocket(ctx context.Context, p *program.Proc, path string) (net.Conn, error) {
	if p.Sys.Sockets == nil {
		return nil, noUnix("dial", path)
	}
	return p.Sys.Sockets.Dial(ctx, path)
}

func noUnix(op, path string) error {
	return &net.OpError{Op: op, Net: "unix", Addr: &net.UnixAddr{Name: path, Net: "unix"}, Err: os.NewSyscallError("socket", syscall.EAFNOSUPPORT)}
}

// getDriverName is csi-lib-utils' rpc.GetDriverName.
func getDriverName(ctx context.Context, conn *grpc.ClientConn) (string, error) {
	rsp, err := csi.NewIdentityClient(conn).GetPluginInfo(ctx, &csi.GetPluginInfoRequest{})
	if err != nil {
		return "", err
	}
	name := rsp.GetName()
	if name == "" {
		return "", errors.New("driver name is empty")
	}
	return name, nil
}

// probe is csi-lib-utils' rpc.Probe: ready unless the driver says it is
// not.
func probe(ctx context.Context, conn *grpc.ClientConn) (bool, error) {
	rsp, err := csi.NewIdentityClient(conn).Probe(ctx, &csi.ProbeRequest{})
	if err != nil {
		return false, err
	}
	r := rsp.GetReady()
	if r == nil {
		return true, nil
	}
	return r.GetValue(), nil
}

// serveHTTP is http.ListenAndServe(addr, mux) on the container's network:
// the port of addr ("localhost:29641", ":9808", "0.0.0.0:9808"). With no
// network that serves, nothing listens, as the other emulated servers do.
func serveHTTP(ctx context.Context, p *program.Proc, addr string, mux http.Handler) error {
	_, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return &net.OpError{Op: "listen", Net: "tcp", Err: err}
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return fmt.Errorf("listen tcp: address %s: invalid port", addr)
	}
	srv, ok := p.Sys.Net.(program.Server)
	if !ok {
		return nil
	}
	return srv.Serve(ctx, "tcp", port, func(rwc io.ReadWriteCloser) { serveConn(rwc, mux) })
}

// serveConn serves one connection with net/http's server.
func serveConn(rwc io.ReadWriteCloser, mux http.Handler) {
	vnet.ServeHTTP(rwc, &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second})
}
