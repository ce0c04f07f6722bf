package netcmds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// ConnectSetup declares the flags of its subcommand and returns its body.
func ConnectSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var timeout time.Duration
	var protocol, udpData, sctpData string
	fs.DurationVar(&timeout, "timeout", 0, "Maximum time before returning an error")
	fs.StringVar(&protocol, "protocol", "tcp", "The protocol to use to perform the connection, can be tcp, udp or sctp")
	fs.StringVar(&udpData, "udp-data", "hostname", "The UDP payload send to the server")
	fs.StringVar(&sctpData, "sctp-data", "hostname", "The SCTP payload send to the server")
	return func(ctx context.Context, a *kit.App, args []string) int {
		c := &connector{p: a.P, dest: args[0], timeout: timeout}
		switch protocol {
		case "", "tcp":
			return c.tcp(ctx)
		case "udp":
			return c.udp(ctx, udpData)
		case "sctp":
			return c.fail("OTHER: dial sctp %s: protocol not supported", c.dest)
		}
		// fmt.Fprint of two strings: no space between them.
		fmt.Fprint(a.P.Stderr, "Unsupported protocol\n", protocol)
		return 1
	}
}

// connector is one "agnhost connect": it prints a fixed prefix the
// network policy tests check (UNKNOWN, DNS, TIMEOUT, REFUSED, OTHER) and
// exits 1 on failure, 0 on success, silently.
type connector struct {
	p       *program.Proc
	dest    string
	timeout time.Duration
}

func (c *connector) fail(format string, args ...any) int {
	fmt.Fprintf(c.p.Stderr, format+"\n", args...)
	return 1
}

func (c *connector) tcp(ctx context.Context) int {
	host, port, err := net.SplitHostPort(c.dest)
	if err != nil {
		return c.fail("UNKNOWN: %v", err)
	}
	if err := c.resolve(ctx, "tcp", host, port); err != "" {
		return c.fail("DNS: %s", err)
	}
	if c.p.Sys.Net == nil {
		return c.fail("OTHER: dial tcp %s: connect: network is unreachable", c.dest)
	}
	conn, err := c.dial(ctx, "tcp")
	switch {
	case err == nil:
		conn.Close()
		return 0
	case isTimeout(err):
		return c.fail("TIMEOUT")
	case isRefused(err):
		return c.fail("REFUSED")
	}
	return c.fail("OTHER: %v", err)
}

func (c *connector) udp(ctx context.Context, data string) int {
	host, port, err := net.SplitHostPort(c.dest)
	if err != nil {
		return c.fail("DNS: %v", err)
	}
	if err := c.resolve(ctx, "udp", host, port); err != "" {
		return c.fail("DNS: %s", err)
	}
	if c.p.Sys.Net == nil {
		return c.fail("OTHER: dial udp %s: connect: network is unreachable", c.dest)
	}
	conn, err := c.dial(ctx, "udp")
	if err != nil {
		return c.fail("OTHER: %v", err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, data+"\n"); err != nil {
		return c.udpError(err)
	}
	buf := make([]byte, 1024)
	n, err := readWithin(ctx, c.p.Sys.Clock, conn, buf, c.timeout)
	if err != nil {
		return c.udpError(err)
	}
	if n == 0 {
		return c.fail("OTHER: No data received from the server. Cannot guarantee the server received the request.")
	}
	return 0
}

func (c *connector) udpError(err error) int {
	switch {
	case isTimeout(err):
		return c.fail("TIMEOUT: read udp %s: i/o timeout", c.dest)
	case isRefused(err):
		return c.fail("REFUSED: %v", err)
	}
	return c.fail("OTHER: %v", err)
}

// resolve checks the port and the host name as net.ResolveTCPAddr does;
// it returns the error text, "" when they resolve.
func (c *connector) resolve(ctx context.Context, network, host, port string) string {
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Sprintf("lookup %s/%s: unknown port", network, port)
	}
	if host == "" || net.ParseIP(host) != nil {
		return ""
	}
	if c.p.Sys.Net == nil {
		if ns := nameserver(c.p); ns != "" {
			return fmt.Sprintf("lookup %s on %s:53: dial udp %s:53: connect: network is unreachable", host, ns, ns)
		}
		return fmt.Sprintf("lookup %s: no such host", host)
	}
	if _, err := c.p.Sys.Net.LookupHost(ctx, host); err != nil {
		return err.Error()
	}
	return ""
}

// dial connects within the timeout (none when 0).
func (c *connector) dial(ctx context.Context, network string) (io.ReadWriteCloser, error) {
	if c.timeout > 0 {
		var stop func()
		ctx, stop = clockTimeout(ctx, c.p.Sys.Clock, c.timeout)
		defer stop()
	}
	conn, err := c.p.Sys.Net.Dial(ctx, network, c.dest)
	if err != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return nil, context.DeadlineExceeded
	}
	return conn, err
}

// nameserver is the first nameserver of the container's resolv.conf.
func nameserver(p *program.Proc) string {
	data, err := kit.ReadFile(p, "/etc/resolv.conf")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "nameserver" {
			return f[1]
		}
	}
	return ""
}

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &te) && te.Timeout())
}

func isRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused")
}

// clockTimeout is context.WithTimeout on the container's clock; stop
// releases its goroutine and must be called.
func clockTimeout(ctx context.Context, clock program.Clock, d time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-clock.After(d):
			cancel(context.DeadlineExceeded)
		case <-quit:
		}
	}()
	return ctx, func() {
		close(quit)
		<-done
		cancel(nil)
	}
}

// readWithin reads once, giving up after d (never when 0) or when ctx is
// done; giving up closes c so that the read returns.
func readWithin(ctx context.Context, clock program.Clock, c io.ReadCloser, buf []byte, d time.Duration) (int, error) {
	type result struct {
		n   int
		err error
	}
	got := make(chan result, 1)
	go func() {
		n, err := c.Read(buf)
		got <- result{n, err}
	}()
	var expire <-chan time.Time
	if d > 0 {
		expire = clock.After(d)
	}
	select {
	case r := <-got:
		return r.n, r.err
	case <-expire:
		c.Close()
		<-got
		return 0, context.DeadlineExceeded
	case <-ctx.Done():
		c.Close()
		<-got
		return 0, ctx.Err()
	}
}
