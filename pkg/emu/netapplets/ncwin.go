package netapplets

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// ncWinOptions is netcat 1.12 NT's table (eternallybored.org's
// netcat-win32, the nc.exe of the Windows e2e test images).
var ncWinOptions = Options{List: []Option{
	{Short: 'd', Help: "detach from console, background mode", Inert: true},
	{Short: 'e', Arg: "prog", Help: "inbound program to exec [dangerous!!]"},
	{Short: 'g', Arg: "gateway", Help: "source-routing hop point[s], up to 8", Inert: true},
	{Short: 'G', Arg: "num", Help: "source-routing pointer: 4, 8, 12, ...", Inert: true},
	{Short: 'h', Help: "this cruft"},
	{Short: 'i', Arg: "secs", Help: "delay interval for lines sent, ports scanned"},
	{Short: 'l', Help: "listen mode, for inbound connects"},
	{Short: 'L', Help: "listen harder, re-listen on socket close"},
	{Short: 'n', Help: "numeric-only IP addresses, no DNS"},
	{Short: 'o', Arg: "file", Help: "hex dump of traffic"},
	{Short: 'p', Arg: "port", Help: "local port number"},
	{Short: 'r', Help: "randomize local and remote ports", Inert: true},
	{Short: 's', Arg: "addr", Help: "local source address", Inert: true},
	{Short: 't', Help: "answer TELNET negotiation", Inert: true},
	{Short: 'c', Help: "send CRLF instead of just LF"},
	{Short: 'u', Help: "UDP mode"},
	{Short: 'v', Help: "verbose [use twice to be more verbose]"},
	{Short: 'w', Arg: "secs", Help: "timeout for connects and final net reads"},
	{Short: 'z', Help: "zero-I/O mode [used for scanning]"},
}}

// ncWinHelp is what -h prints.
func ncWinHelp() string {
	var b strings.Builder
	b.WriteString("[v1.12 NT http://eternallybored.org/misc/netcat/]\nconnect to somewhere:\tnc [-options] hostname port[s] [ports] ... \nlisten for inbound:\tnc -l -p port [options] [hostname] [port]\noptions:\n")
	for _, o := range ncWinOptions.List {
		fmt.Fprintf(&b, "\t-%c %-8s\t%s\n", o.Short, o.Arg, o.Help)
	}
	b.WriteString("port numbers can be individual or ranges: m-n [inclusive]\n")
	return strings.ReplaceAll(b.String(), "\n", "\r\n")
}

// NcWin32 is netcat 1.12 NT, nc.exe in the Windows e2e test images
// (their busybox.exe has no nc): nc 1.10's options, -t among them.
func NcWin32(ctx context.Context, p *program.Proc) int {
	o, err := ncWinOptions.Parse(p.Args[1:])
	if err != nil {
		fmt.Fprintf(p.Stderr, "nc: invalid option -- %s\r\nnc -h for help\r\n", err.(*ParseError).Letter())
		return 1
	}
	if o.Has("h") || (len(o.Args) == 0 && !o.Has("l") && !o.Has("L")) {
		fmt.Fprint(p.Stderr, ncWinHelp())
		return 1
	}
	c := &ncRun{p: p, o: o, network: "tcp", win: true}
	if prog, ok := o.Value("e"); ok {
		c.prog = []string{prog}
	}
	if o.Has("u") {
		c.network = "udp"
	}
	return c.run(ctx)
}

// winOpen and winFailed are nc 1.10's -v lines: "name [ip] port (service)".
func (c *ncRun) winTarget(host, ip, port string) string {
	svc := service(c.p, port, c.network)
	if svc == "" {
		svc = "?"
	}
	name := host
	if net.ParseIP(host) != nil {
		name = "(UNKNOWN)"
		fmt.Fprintf(c.p.Stderr, "%s: inverse host lookup failed: h_errno 11004: NO_DATA\r\n", host)
	}
	return fmt.Sprintf("%s [%s] %s (%s)", name, ip, port, svc)
}

func winsockText(err error) string {
	return strings.ToLower(ConnText(err))
}
