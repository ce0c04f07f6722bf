package node

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/winkube/winkube/pkg/emu/program"
)

// noNet is the network of a pod's programs until the emulation models
// traffic: names other than localhost do not resolve, a dial to the
// pod's loopback is refused (nothing listens there) and any other address
// is unreachable, and a program may listen, but nothing ever connects.
// Nothing here touches the host's network.
type noNet struct{}

var _ program.Net = noNet{}

func (noNet) LookupHost(_ context.Context, name string) ([]string, error) {
	if strings.EqualFold(strings.TrimSuffix(name, "."), "localhost") {
		return []string{"127.0.0.1"}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (noNet) Dial(_ context.Context, network, address string) (io.ReadWriteCloser, error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	errno := syscall.ENETUNREACH
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		errno = syscall.ECONNREFUSED
	}
	return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("connect: %w", errno)}
}

func (noNet) Listen(ctx context.Context, _ string, _ int) (program.Listener, error) {
	return &idleListener{ctx: ctx, closed: make(chan struct{})}, nil
}

// idleListener accepts nothing until it is closed or its program stops.
type idleListener struct {
	ctx    context.Context
	closed chan struct{}
}

func (l *idleListener) Accept() (io.ReadWriteCloser, error) {
	select {
	case <-l.ctx.Done():
	case <-l.closed:
	}
	return nil, net.ErrClosed
}

func (l *idleListener) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}
