package netapplets

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// ncBSDOptions is netcat-openbsd's table (Debian's port, which Alpine
// packages): nc(1)'s options, without -e, which it does not have.
var ncBSDOptions = Options{List: []Option{
	{Short: '4', Help: "Use IPv4", Inert: true},
	{Short: '6', Help: "Use IPv6", Inert: true},
	{Short: 'b', Help: "Allow broadcast", Inert: true},
	{Short: 'C', Help: "Send CRLF as line-ending"},
	{Short: 'D', Help: "Enable the debug socket option", Inert: true},
	{Short: 'd', Help: "Detach from stdin"},
	{Short: 'F', Help: "Pass socket fd", Inert: true},
	{Short: 'h', Help: "This help text"},
	{Short: 'I', Arg: "length", Help: "TCP receive buffer length", Inert: true},
	{Short: 'i', Arg: "interval", Help: "Delay interval for lines sent, ports scanned"},
	{Short: 'k', Help: "Keep inbound sockets open for multiple connects"},
	{Short: 'l', Help: "Listen mode, for inbound connects"},
	{Short: 'M', Arg: "ttl", Help: "Outgoing TTL / Hop Limit", Inert: true},
	{Short: 'm', Arg: "minttl", Help: "Minimum incoming TTL / Hop Limit", Inert: true},
	{Short: 'N', Help: "Shutdown the network socket after EOF on stdin", Inert: true},
	{Short: 'n', Help: "Suppress name/port resolutions"},
	{Short: 'O', Arg: "length", Help: "TCP send buffer length", Inert: true},
	{Short: 'P', Arg: "proxyuser", Help: "Username for proxy authentication", Inert: true},
	{Short: 'p', Arg: "port", Help: "Specify local port for remote connects"},
	{Short: 'q', Arg: "secs", Help: "quit after EOF on stdin and delay of secs"},
	{Short: 'r', Help: "Randomize remote ports", Inert: true},
	{Short: 'S', Help: "Enable the TCP MD5 signature option", Inert: true},
	{Short: 's', Arg: "sourceaddr", Help: "Local source address", Inert: true},
	{Short: 'T', Arg: "keyword", Help: "TOS value", Inert: true},
	{Short: 't', Help: "Answer TELNET negotiation", Inert: true},
	{Short: 'U', Help: "Use UNIX domain socket"},
	{Short: 'u', Help: "UDP mode"},
	{Short: 'V', Arg: "rtable", Help: "Specify alternate routing table", Inert: true},
	{Short: 'v', Help: "Verbose"},
	{Short: 'W', Arg: "recvlimit", Help: "Terminate after receiving a number of packets", Inert: true},
	{Short: 'w', Arg: "timeout", Help: "Timeout for connects and final net reads"},
	{Short: 'X', Arg: "proto", Help: "Proxy protocol: \"4\", \"5\" (SOCKS) or \"connect\"", Inert: true},
	{Short: 'x', Arg: "addr[:port]", Help: "Specify proxy address and port", Inert: true},
	{Short: 'Z', Help: "DCCP mode", Inert: true},
	{Short: 'z', Help: "Zero-I/O mode [used for scanning]"},
}}

const ncBSDUsage = `usage: nc [-46CDdFhklNnrStUuvZz] [-I length] [-i interval] [-M ttl]
	  [-m minttl] [-O length] [-P proxy_username] [-p source_port]
	  [-q seconds] [-s sourceaddr] [-T keyword] [-V rtable] [-W recvlimit]
	  [-w timeout] [-X proxy_protocol] [-x proxy_address[:port]]
	  [destination] [port]
`

// NcOpenBSD is netcat-openbsd's nc, the one agnhost's Alpine image
// installs (the e2e tests' nc -v -t -w 2 HOST PORT).
func NcOpenBSD(ctx context.Context, p *program.Proc) int {
	o, err := ncBSDOptions.Parse(p.Args[1:])
	if err != nil {
		pe := err.(*ParseError)
		if pe.Missing {
			fmt.Fprintf(p.Stderr, "%s: option requires an argument: %s\n", p.Args[0], pe.Letter())
		} else {
			fmt.Fprintf(p.Stderr, "%s: unrecognized option: %s\n", p.Args[0], pe.Letter())
		}
		fmt.Fprint(p.Stderr, ncBSDUsage)
		return 1
	}
	if o.Has("h") {
		fmt.Fprint(p.Stderr, "OpenBSD netcat (Debian patchlevel 1.226-1)\n"+ncBSDUsage+"\tCommand Summary:\n")
		for _, opt := range ncBSDOptions.List {
			fmt.Fprintf(p.Stderr, "\t\t-%c %s\t%s\n", opt.Short, opt.Arg, opt.Help)
		}
		return 1
	}
	c := &bsdRun{p: p, o: o, network: "tcp", afterEOF: -1}
	if o.Has("u") {
		c.network = "udp"
	}
	return c.run(ctx)
}

type bsdRun struct {
	p        *program.Proc
	o        Parsed
	network  string
	wait     time.Duration
	afterEOF time.Duration
	interval time.Duration
}

func (c *bsdRun) errx(format string, args ...any) int {
	fmt.Fprintf(c.p.Stderr, "nc: "+format+"\n", args...)
	return 1
}

// numbers reads -w, -q and -i as strtonum does.
func (c *bsdRun) numbers() (string, bool) {
	for _, n := range []struct {
		key, what string
		to        *time.Duration
		min       int64
	}{{"w", "timeout", &c.wait, 0}, {"q", "quit timer", &c.afterEOF, -1 << 31}, {"i", "interval", &c.interval, 0}} {
		v, ok := c.o.Value(n.key)
		if !ok {
			continue
		}
		i, err := strconv.ParseInt(v, 10, 32)
		switch {
		case err != nil:
			return fmt.Sprintf("%s %s: %s", n.what, "invalid", v), false
		case i < n.min:
			return fmt.Sprintf("%s %s: %s", n.what, "too small", v), false
		}
		*n.to = time.Duration(i) * time.Second
	}
	return "", true
}

func (c *bsdRun) run(ctx context.Context) int {
	if msg, ok := c.numbers(); !ok {
		return c.errx("%s", msg)
	}
	args := c.o.Args
	if c.o.Has("U") {
		if len(args) == 0 {
			fmt.Fprint(c.p.Stderr, ncBSDUsage)
			return 1
		}
		return c.errx("unix connect failed: No such file or directory")
	}
	if c.o.Has("l") {
		return c.listen(ctx)
	}
	if len(args) != 2 {
		fmt.Fprint(c.p.Stderr, ncBSDUsage)
		return 1
	}
	return c.connect(ctx, args[0], args[1])
}

func (c *bsdRun) connect(ctx context.Context, host, port string) int {
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return c.errx("port number invalid: %s", port)
	}
	ip := host
	if net.ParseIP(host) == nil {
		var err error
		if c.o.Has("n") {
			return c.errx("getaddrinfo for host \"%s\" port %s: %s", host, port, "Name does not resolve")
		}
		if ip, err = lookup(ctx, c.p, host); err != nil {
			return c.errx("getaddrinfo for host \"%s\" port %s: %s", host, port, "Name does not resolve")
		}
	}
	if c.p.Sys.Net == nil {
		return c.failed(host, ip, port, errNoNet)
	}
	dctx, cancel := ClockTimeout(ctx, c.p, c.wait)
	conn, err := c.p.Sys.Net.Dial(dctx, c.network, net.JoinHostPort(ip, port))
	cancel()
	if err != nil {
		return c.failed(host, ip, port, err)
	}
	if c.o.Has("v") {
		svc := service(c.p, port, c.network)
		if svc == "" || c.o.Has("n") {
			svc = "*"
		}
		fmt.Fprintf(c.p.Stderr, "Connection to %s %s port [%s/%s] succeeded!\n", host, port, c.network, svc)
	}
	if c.o.Has("z") {
		conn.Close()
		return 0
	}
	c.relay(ctx, conn)
	return 0
}

func (c *bsdRun) failed(host, ip, port string, err error) int {
	if c.o.Has("v") {
		where := host
		if ip != host && !c.o.Has("n") {
			where = fmt.Sprintf("%s (%s)", host, ip)
		}
		fmt.Fprintf(c.p.Stderr, "nc: connect to %s port %s (%s) failed: %s\n", where, port, c.network, ConnText(err))
	}
	return 1
}

func (c *bsdRun) listen(ctx context.Context) int {
	port, _ := c.o.Value("p")
	if n := len(c.o.Args); n > 0 {
		port = c.o.Args[n-1]
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return c.errx("port number invalid: %s", port)
	}
	if c.p.Sys.Net == nil {
		return c.errx("Address already in use")
	}
	l, err := c.p.Sys.Net.Listen(ctx, c.network, n)
	if err != nil {
		return c.errx("%s", ConnText(err))
	}
	defer l.Close()
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	if c.o.Has("v") {
		fmt.Fprintf(c.p.Stderr, "Listening on 0.0.0.0 %d\n", n)
	}
	for {
		conn, err := l.Accept()
		if err != nil {
			return 1
		}
		if c.o.Has("v") {
			if nc, ok := conn.(net.Conn); ok {
				h, p, _ := net.SplitHostPort(nc.RemoteAddr().String())
				fmt.Fprintf(c.p.Stderr, "Connection received on %s %s\n", h, p)
			}
		}
		c.relay(ctx, conn)
		if !c.o.Has("k") || ctx.Err() != nil {
			return 0
		}
	}
}

func (c *bsdRun) relay(ctx context.Context, conn io.ReadWriteCloser) {
	if c.o.Has("C") {
		conn = crlfConn{conn}
	}
	r := &relay{p: c.p, conn: conn, idle: c.wait, idleTimes: 1, afterEOF: c.afterEOF,
		interval: c.interval, noStdin: c.o.Has("d")}
	r.run(ctx)
}

// crlfConn sends each line ending as CRLF (-C).
type crlfConn struct{ io.ReadWriteCloser }

func (c crlfConn) Write(b []byte) (int, error) {
	s := strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n", "\r\n")
	if _, err := io.WriteString(c.ReadWriteCloser, s); err != nil {
		return 0, err
	}
	return len(b), nil
}
