package applets

import (
	"context"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// nc: -z host port probes, -l [-p] port serves one connection, host port
// connects; the connection is copied to and from stdio. With no Net it
// fails (1) as on an unreachable network.
func nc(ctx context.Context, p *program.Proc) int {
	o, ok := getopt(p, p.Args[1:], "zlp:w:vunk")
	if !ok {
		return 1
	}
	if p.Sys.Net == nil {
		if len(o.args) > 0 && !o.has('l') {
			errorf(p, "bad address '%s'", o.args[0])
		}
		return 1
	}
	network := "tcp"
	if o.has('u') {
		network = "udp"
	}
	if w, set := o.val['w']; set {
		secs, _ := strconv.Atoi(w)
		var cancel context.CancelFunc
		ctx, cancel = clockTimeout(ctx, p, time.Duration(secs)*time.Second)
		defer cancel()
	}
	if o.has('l') {
		port := o.val['p']
		if port == "" && len(o.args) > 0 {
			port = o.args[len(o.args)-1]
		}
		return ncListen(ctx, p, network, port)
	}
	if len(o.args) < 2 {
		errorf(p, "missing host or port")
		return 1
	}
	addrs, err := lookup(ctx, p, o.args[0])
	if err != nil {
		errorf(p, "bad address '%s'", o.args[0])
		return 1
	}
	conn, err := p.Sys.Net.Dial(ctx, network, net.JoinHostPort(addrs[0], o.args[1]))
	if err != nil {
		if o.has('v') {
			errorf(p, "%s (%s:%s): %s", o.args[0], addrs[0], o.args[1], connText(err))
		}
		return 1
	}
	if o.has('z') {
		conn.Close()
		return 0
	}
	return ncCopy(ctx, p, conn)
}

func ncListen(ctx context.Context, p *program.Proc, network, port string) int {
	n, err := strconv.Atoi(port)
	if err != nil {
		errorf(p, "bad port '%s'", port)
		return 1
	}
	l, err := p.Sys.Net.Listen(ctx, network, n)
	if err != nil {
		errorf(p, "bind: %s", connText(err))
		return 1
	}
	defer l.Close()
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	conn, err := l.Accept()
	if err != nil {
		return 1
	}
	return ncCopy(ctx, p, conn)
}

// ncCopy copies the connection to stdout until it ends (or ctx is done),
// and stdin to the connection meanwhile. The stdin copy ends with the
// connection, or with stdin's next read when it is blocked there.
func ncCopy(ctx context.Context, p *program.Proc, conn io.ReadWriteCloser) int {
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	go io.Copy(conn, p.Stdin)
	io.Copy(p.Stdout, conn)
	return 0
}
