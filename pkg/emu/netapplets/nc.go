package netapplets

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// ncOptions is busybox nc's table (NC_SERVER, NC_EXTRA and
// NC_110_COMPAT, as busybox's defconfig builds it); -e is taken apart
// before, as busybox does: PROG and its arguments follow it.
var ncOptions = Options{List: []Option{
	{Short: 'l', Help: "Listen mode, for inbound connects"},
	{Short: 'k', Help: "With -e, provides persistent server"},
	{Short: 'p', Arg: "PORT", Help: "Local port"},
	{Short: 's', Arg: "ADDR", Help: "Local address", Inert: true},
	{Short: 'w', Arg: "SEC", Help: "Timeout for connects and final net reads"},
	{Short: 'i', Arg: "SEC", Help: "Delay interval for lines sent"},
	{Short: 'n', Help: "Don't do DNS resolution"},
	{Short: 'u', Help: "UDP mode"},
	{Short: 'v', Help: "Verbose"},
	{Short: 'o', Arg: "FILE", Help: "Hex dump traffic"},
	{Short: 'z', Help: "Zero-I/O mode (scanning)"},
}}

const (
	ncTrivial = "[OPTIONS] HOST PORT  - connect\nnc [OPTIONS] -l -p PORT [HOST] [PORT]  - listen"
	ncFull    = "\t-e PROG\tRun PROG after connect (must be last)"
)

// Nc is busybox's nc.
func Nc(ctx context.Context, p *program.Proc) int {
	args, prog := ncSplitExec(p.Args[1:])
	o, err := ncOptions.Parse(args)
	if err != nil {
		bbOptionError(p, err)
		return 1
	}
	if len(o.Args) > 2 {
		busyboxUsage(p, ncTrivial, ncFull, ncOptions)
		return 1
	}
	c := &ncRun{p: p, o: o, prog: prog, network: "tcp"}
	if o.Has("u") {
		c.network = "udp"
	}
	return c.run(ctx)
}

// ncSplitExec takes "-e PROG ARGS" (or "-<flags>e PROG ARGS") off the end
// of the command line.
func ncSplitExec(args []string) ([]string, []string) {
	for i, a := range args {
		if a == "-e" {
			return args[:i], args[i+1:]
		}
		if len(a) > 2 && a[0] == '-' && a[len(a)-1] == 'e' && strings.Trim(a[1:len(a)-1], "nuvlkz") == "" {
			return append(append([]string(nil), args[:i]...), a[:len(a)-1]), args[i+1:]
		}
	}
	return args, nil
}

// bbOptionError words a refused command line as getopt32 does.
func bbOptionError(p *program.Proc, err error) {
	name := program.Name(p.Args[0])
	if pe, ok := err.(*ParseError); ok && pe.Missing {
		fmt.Fprintf(p.Stderr, "%s: option requires an argument -- '%s'\n", name, pe.Letter())
		return
	}
	if pe, ok := err.(*ParseError); ok && strings.HasPrefix(pe.Opt, "--") {
		fmt.Fprintf(p.Stderr, "%s: unrecognized option '%s'\n", name, pe.Opt)
		return
	}
	fmt.Fprintf(p.Stderr, "%s: invalid option -- '%s'\n", name, err.(*ParseError).Letter())
}

type ncRun struct {
	p       *program.Proc
	o       Parsed
	prog    []string
	network string
	wait    time.Duration
	win     bool // netcat 1.12 NT's wording (NcWin32)
}

func (c *ncRun) errorf(format string, args ...any) int {
	fmt.Fprintf(c.p.Stderr, program.Name(c.p.Args[0])+": "+format+"\n", args...)
	return 1
}

func (c *ncRun) run(ctx context.Context) int {
	if v, ok := c.o.Value("w"); ok {
		d, valid := seconds(v)
		if !valid {
			return c.errorf("invalid number '%s'", v)
		}
		c.wait = d
	}
	if v, ok := c.o.Value("p"); ok {
		if n, err := strconv.Atoi(v); err != nil || n <= 0 || n > 65535 {
			return c.errorf("bad local port '%s'", v)
		}
	}
	if c.listens() {
		return c.listen(ctx)
	}
	if len(c.o.Args) == 0 {
		busyboxUsage(c.p, ncTrivial, ncFull, ncOptions)
		return 1
	}
	return c.connect(ctx)
}

func (c *ncRun) listens() bool {
	if c.win {
		return c.o.Has("l") || c.o.Has("L")
	}
	return c.o.Has("l") || c.o.Has("k")
}

// persistent: busybox's -lk, NT's -L.
func (c *ncRun) persistent() bool {
	if c.win {
		return c.o.Has("L")
	}
	return c.o.Has("k")
}

func (c *ncRun) resolve(ctx context.Context, host string) (string, bool) {
	if c.o.Has("n") && net.ParseIP(host) == nil {
		return "", false
	}
	ip, err := lookup(ctx, c.p, host)
	return ip, err == nil
}

func (c *ncRun) connect(ctx context.Context) int {
	host, port := c.o.Args[0], "0"
	if len(c.o.Args) > 1 {
		port = c.o.Args[1]
	}
	ip, ok := c.resolve(ctx, host)
	if (!ok || c.p.Sys.Net == nil) && c.win {
		fmt.Fprintf(c.p.Stderr, "%s: forward host lookup failed: h_errno 11001: HOST_NOT_FOUND\r\n", host)
		return 1
	}
	if !ok || c.p.Sys.Net == nil {
		return c.errorf("bad address '%s'", host)
	}
	dotted := net.JoinHostPort(ip, port)
	dctx, cancel := ClockTimeout(ctx, c.p, c.wait)
	conn, err := c.p.Sys.Net.Dial(dctx, c.network, dotted)
	cancel()
	if err != nil && c.win {
		if c.o.Has("v") {
			fmt.Fprintf(c.p.Stderr, "%s: %s\r\n", c.winTarget(host, ip, port), winsockText(err))
		}
		return 1
	}
	if err != nil {
		if v := c.o.Count("v"); v > 1 || (v == 1 && !isRefused(err)) {
			c.errorf("%s (%s): %s", host, dotted, ConnText(err))
		}
		if c.o.Count("v") > 1 {
			fmt.Fprintln(c.p.Stderr, "sent 0, rcvd 0")
		}
		return 1
	}
	switch {
	case c.o.Has("v") && c.win:
		fmt.Fprintf(c.p.Stderr, "%s open\r\n", c.winTarget(host, ip, port))
	case c.o.Has("v"):
		fmt.Fprintf(c.p.Stderr, "%s (%s) open\n", host, dotted)
	}
	if c.prog != nil {
		return c.exec(ctx, conn)
	}
	if c.o.Has("z") {
		conn.Close()
		return 0
	}
	return c.relay(ctx, conn)
}

func (c *ncRun) listen(ctx context.Context) int {
	port := 0
	if v, ok := c.o.Value("p"); ok {
		port, _ = strconv.Atoi(v)
	}
	if c.p.Sys.Net == nil {
		return c.errorf("bind: %s", ConnText(errNoNet))
	}
	l, err := c.p.Sys.Net.Listen(ctx, c.network, port)
	if err != nil {
		return c.errorf("bind: %s", ConnText(err))
	}
	defer l.Close()
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	switch {
	case c.o.Has("v") && c.win:
		fmt.Fprintf(c.p.Stderr, "listening on [any] %d ...\r\n", port)
	case c.o.Has("v"):
		fmt.Fprintf(c.p.Stderr, "listening on [::]:%d ...\n", port)
	}
	for {
		conn, err := l.Accept()
		if err != nil {
			return 1
		}
		if nc, ok := conn.(net.Conn); ok && c.o.Has("v") {
			remote := nc.RemoteAddr().String()
			fmt.Fprintf(c.p.Stderr, "connect to %s from %s (%s)\n", nc.LocalAddr(), remote, remote)
		}
		if c.persistent() && c.prog != nil {
			go c.exec(ctx, conn)
			continue
		}
		if c.prog != nil {
			return c.exec(ctx, conn)
		}
		return c.relay(ctx, conn)
	}
}

// exec runs PROG with the connection as its stdin and stdout (-e).
func (c *ncRun) exec(ctx context.Context, conn io.ReadWriteCloser) int {
	defer conn.Close()
	q := &program.Proc{Args: c.prog, Env: c.p.Env, Dir: c.p.Dir, Stdin: conn, Stdout: conn, Stderr: c.p.Stderr, Sys: c.p.Sys}
	code, err := c.p.Sys.Exec(ctx, q)
	if err != nil {
		return c.errorf("can't execute '%s': %s", c.prog[0], "No such file or directory")
	}
	return code
}

func (c *ncRun) relay(ctx context.Context, conn io.ReadWriteCloser) int {
	if c.win && c.o.Has("c") {
		conn = crlfConn{conn}
	}
	r := &relay{p: c.p, conn: conn, idle: c.wait, idleTimes: 2, afterEOF: -1}
	if v, ok := c.o.Value("i"); ok {
		d, valid := seconds(v)
		if !valid || d < time.Second || d > 0xffff*time.Second {
			return c.errorf("invalid number '%s'", v)
		}
		r.interval = d
	}
	if name, ok := c.o.Value("o"); ok {
		f, err := c.p.Sys.FS.OpenFile(c.p.Sys.FS.Abs(c.p.Dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return c.errorf("can't open '%s': %s", name, program.ErrorText(err, false))
		}
		defer f.Close()
		r.dump = f
	}
	r.run(ctx)
	if c.o.Count("v") > 1 {
		fmt.Fprintf(c.p.Stderr, "sent %d, rcvd %d\n", r.sent.Load(), r.rcvd.Load())
	}
	return 0
}
