package redis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// cliUsage is the head of redis-cli's --help with the options this
// redis-cli implements, in its words.
const cliUsage = `redis-cli ` + Version + `

Usage: redis-cli [OPTIONS] [cmd [arg [arg ...]]]
  -h <hostname>      Server hostname (default: 127.0.0.1).
  -p <port>          Server port (default: 6379).
  -a <password>      Password to use when connecting to the server.
                     You can also use the REDISCLI_AUTH environment
                     variable to pass this password more safely
                     (if both are used, this argument takes precedence).
  --user <username>  Used to send ACL style 'AUTH username pass'. Needs -a.
  --pass <password>  Alias of -a for consistency with the new --user option.
  -u <uri>           Server URI.
  -r <repeat>        Execute specified command N times.
  -i <interval>      When -r is used, waits <interval> seconds per command.
  -n <db>            Database number.
  -x                 Read last argument from STDIN (see example below).
  -e                 Return exit error code when command execution fails.
  --raw              Use raw formatting for replies (default when STDOUT is
                     not a tty).
  --no-raw           Force formatted output even when STDOUT is not a tty.
  --no-auth-warning  Don't show warning message when using password on command
                     line interface.
  --help             Output this help and exit.
  --version          Output version and exit.
`

// cli is one redis-cli run: its options and its connection.
type cli struct {
	ctx                    context.Context
	p                      *program.Proc
	host                   string
	port                   int
	user, auth             string
	hasAuth, noAuthWarning bool
	db                     int
	raw                    bool // OUTPUT_RAW rather than OUTPUT_STANDARD
	errcode                bool // -e
	stdinLast              bool // -x
	repeat                 int64
	interval               time.Duration

	conn    io.ReadWriteCloser
	br      *bufio.Reader
	unwatch func() bool
	curr    int // the database the connection has selected
}

// exit is redis-cli's exit(code) from deep inside a run.
type exit struct{ code int }

// CLI is redis-cli: a command given as arguments is sent once (or -r
// times) and its reply printed; without one it reads commands from stdin
// a line at a time, prompting on a terminal. Replies are formatted for a
// terminal when stdout is one (kubectl exec -t) or FAKETTY is set, raw
// otherwise, as redis-cli decides with isatty.
func CLI(ctx context.Context, p *program.Proc) (code int) {
	_, fake := p.LookupEnv("FAKETTY")
	c := &cli{ctx: ctx, p: p, host: "127.0.0.1", port: 6379, raw: !p.TTY && !fake, repeat: 1}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(exit)
			if !ok {
				panic(r)
			}
			code = e.code
		}
		c.close()
	}()
	args := c.parseOptions(p.Args[1:])
	if !c.hasAuth {
		if v, ok := p.LookupEnv("REDISCLI_AUTH"); ok {
			c.auth, c.hasAuth = v, true
		}
	}
	if len(args) == 0 {
		return c.repl()
	}
	if c.stdinLast {
		data, _ := io.ReadAll(p.Stdin)
		args = append(args, string(data))
	}
	c.connect(true)
	if !c.issue(args) {
		return 1
	}
	return 0
}

func (c *cli) fail(format string, a ...any) {
	fmt.Fprintf(c.p.Stderr, format, a...)
	panic(exit{1})
}

// parseOptions is parseOptions of redis-cli.c for the options this
// redis-cli has; the command starts at the first non-option.
func (c *cli) parseOptions(args []string) []string {
	i := 0
	for ; i < len(args); i++ {
		a, last := args[i], i == len(args)-1
		next := func() string { i++; return args[i] }
		switch {
		case a == "-h" && !last:
			c.host = next()
		case a == "-h" || a == "--help":
			io.WriteString(c.p.Stdout, cliUsage)
			panic(exit{0})
		case a == "-v" || a == "--version":
			fmt.Fprintf(c.p.Stdout, "redis-cli %s\n", Version)
			panic(exit{0})
		case a == "-p" && !last:
			c.port = atoi(next())
			if c.port < 0 || c.port > 65535 {
				c.fail("Invalid server port.\n")
			}
		case a == "-x":
			c.stdinLast = true
		case a == "-e":
			c.errcode = true
		case a == "-r" && !last:
			c.repeat, _ = strconv.ParseInt(leadingInt(next()), 10, 64)
		case a == "-i" && !last:
			secs, _ := strconv.ParseFloat(next(), 64)
			c.interval = time.Duration(secs * float64(time.Second))
		case a == "-n" && !last:
			c.db = atoi(next())
		case a == "--no-auth-warning":
			c.noAuthWarning = true
		case (a == "-a" || a == "--pass") && !last:
			c.auth, c.hasAuth = next(), true
		case a == "--user" && !last:
			c.user = next()
		case a == "-u" && !last:
			c.parseURI(next())
		case a == "--raw":
			c.raw = true
		case a == "--no-raw":
			c.raw = false
		case strings.HasPrefix(a, "-"):
			c.fail("Unrecognized option or bad number of args for: '%s'\n", a)
		default:
			return c.warn(args[i:])
		}
	}
	return c.warn(nil)
}

func (c *cli) warn(rest []string) []string {
	if c.hasAuth && !c.noAuthWarning {
		io.WriteString(c.p.Stderr, "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\n")
	}
	return rest
}

// parseURI is parseRedisUri: redis://[[user]:password@]host[:port][/db].
func (c *cli) parseURI(uri string) {
	const scheme = "redis://"
	if strings.HasPrefix(uri, "rediss://") {
		c.fail("Insecure scheme, rediss:// requires TLS support\n") // this redis-cli is built without TLS
	}
	if !strings.HasPrefix(uri, scheme) {
		c.fail("Invalid URI scheme\n")
	}
	u, err := url.Parse(uri)
	if err != nil {
		c.fail("Invalid URI scheme\n")
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			c.user, c.auth, c.hasAuth = u.User.Username(), pw, true
		} else {
			c.auth, c.hasAuth = u.User.Username(), true
		}
	}
	if h := u.Hostname(); h != "" {
		c.host = h
	}
	if p := u.Port(); p != "" {
		c.port = atoi(p)
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		c.db = atoi(db)
	}
}

// atoi is C's atoi: the leading integer, 0 without one.
func atoi(s string) int {
	n, _ := strconv.Atoi(leadingInt(s))
	return n
}

func leadingInt(s string) string {
	s = strings.TrimLeft(s, " \t")
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	return s[:end]
}

func (c *cli) addr() string { return net.JoinHostPort(c.host, strconv.Itoa(c.port)) }

// connect is cliConnect: dial, AUTH and SELECT. A failed dial prints
// "Could not connect to Redis at ..." unless quiet and leaves no
// connection; a refused AUTH or SELECT is printed and leaves the
// connection, as redis-cli goes on with it.
func (c *cli) connect(quiet bool) bool {
	c.close()
	conn, err := c.dial()
	if err != nil {
		if !quiet {
			fmt.Fprintf(c.p.Stderr, "Could not connect to Redis at %s:%d: %s\n", c.host, c.port, err)
		}
		return false
	}
	c.conn, c.br, c.curr = conn, bufio.NewReader(conn), 0
	// A stopped redis-cli (its exec ended) does not stay blocked on a
	// server that never answers.
	c.unwatch = context.AfterFunc(c.ctx, func() { conn.Close() })
	if c.hasAuth {
		cmd := []string{"AUTH", c.auth}
		if c.user != "" {
			cmd = []string{"AUTH", c.user, c.auth}
		}
		r := c.do(cmd)
		if r.kind == '-' {
			fmt.Fprintf(c.p.Stderr, "AUTH failed: %s\n", r.str)
			return false
		}
	}
	if c.db != 0 {
		r := c.do([]string{"SELECT", strconv.Itoa(c.db)})
		if r.kind == '-' {
			fmt.Fprintf(c.p.Stderr, "SELECT %d failed: %s\n", c.db, r.str)
			return false
		}
		c.curr = c.db
	}
	return true
}

// dial connects over the pod network; the error is worded as hiredis's
// errstr: strerror, or getaddrinfo's text for a name that does not
// resolve (the image's glibc).
func (c *cli) dial() (io.ReadWriteCloser, error) {
	if c.p.Sys.Net == nil {
		return nil, errors.New("Connection refused")
	}
	host := c.host
	if net.ParseIP(host) == nil {
		ips, err := c.p.Sys.Net.LookupHost(c.ctx, host)
		if err != nil || len(ips) == 0 {
			return nil, errors.New("Name or service not known")
		}
		host = ips[0]
	}
	conn, err := c.p.Sys.Net.Dial(c.ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(c.port)))
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return nil, errors.New(program.ErrorText(errno, false))
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, errors.New("Connection timed out")
		}
		return nil, err
	}
	return conn, nil
}

func (c *cli) close() {
	if c.conn != nil {
		c.unwatch()
		c.conn.Close()
		c.conn, c.br = nil, nil
	}
}

// do sends cmd and reads its reply; a broken connection ends redis-cli
// as cliReadReply does outside the prompt.
func (c *cli) do(cmd []string) reply {
	r, err := c.roundTrip(cmd)
	if err != nil {
		c.fail("Error: %s\n", ioText(err))
	}
	return r
}

func (c *cli) roundTrip(cmd []string) (reply, error) {
	if _, err := c.conn.Write(encode(cmd)); err != nil {
		return reply{}, err
	}
	return readReply(c.br)
}

// ioText is hiredis's errstr for a failed read or write.
func ioText(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed) {
		return "Server closed the connection"
	}
	if errors.Is(err, errProtocol) {
		return "Protocol error, got \"\\r\" as reply type byte"
	}
	return err.Error()
}

// issue is issueCommandRepeat: connect if not connected, send the
// command repeat times and print each reply. It is false when redis-cli
// could not connect.
func (c *cli) issue(args []string) bool {
	if c.conn == nil && !c.connect(false) {
		return false
	}
	verbatim := verbatimCommand(args)
	for n := c.repeat; n != 0; n-- {
		r := c.do(args)
		if strings.EqualFold(args[0], "select") && r.kind == '+' {
			c.curr = atoi(args[1])
		}
		if r.kind == '-' && c.errcode {
			c.fail("%s\n", r.str)
		}
		io.WriteString(c.p.Stdout, c.format(r, verbatim))
		if n > 1 || n < 0 {
			c.p.Sys.Sleep(c.ctx, c.interval)
		}
		if c.ctx.Err() != nil {
			break
		}
	}
	return true
}

// format is cliFormatReply: a command whose reply is text meant to be
// read as is (INFO, CLIENT LIST, ...) prints verbatim.
func (c *cli) format(r reply, verbatim bool) string {
	switch {
	case verbatim:
		return formatRaw(r)
	case c.raw:
		return formatRaw(r) + "\n"
	}
	return formatTTY(r, "")
}

// verbatimCommand: the commands redis-cli prints raw whatever the output
// mode.
func verbatimCommand(args []string) bool {
	cmd := strings.ToLower(args[0])
	sub := ""
	if len(args) > 1 {
		sub = strings.ToLower(args[1])
	}
	switch cmd {
	case "info", "lolwut":
		return true
	case "client":
		return sub == "list" || sub == "info"
	case "cluster":
		return len(args) == 2 && (sub == "nodes" || sub == "info")
	case "memory":
		return sub == "malloc-stats" || sub == "doctor"
	case "latency":
		return (len(args) == 3 && sub == "graph") || (len(args) == 2 && sub == "doctor")
	}
	return false
}

// repl reads commands a line at a time. On a terminal it prompts with
// the server's address ("127.0.0.1:6379> ", "not connected> " when the
// connection failed). A connection lost is tried again at the next
// command; quit and exit end it.
func (c *cli) repl() int {
	c.connect(false)
	prompt := c.p.TTY // linenoise prompts only on a terminal
	br := bufio.NewReader(c.p.Stdin)
	for {
		if prompt {
			io.WriteString(c.p.Stdout, c.prompt())
		}
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			return 0
		}
		args, ok := splitArgs(strings.TrimRight(line, "\r\n"))
		switch {
		case !ok:
			io.WriteString(c.p.Stdout, "Invalid argument(s)\n")
		case len(args) == 0:
		case strings.EqualFold(args[0], "quit") || strings.EqualFold(args[0], "exit"):
			return 0
		default:
			c.replCommand(args)
		}
		if err != nil || c.ctx.Err() != nil {
			return 0
		}
	}
}

func (c *cli) replCommand(args []string) {
	if c.conn == nil && !c.connect(false) {
		return
	}
	r, err := c.roundTrip(args)
	if err != nil {
		// The server went away: the next command reconnects.
		c.close()
		fmt.Fprintf(c.p.Stderr, "Error: %s\n", ioText(err))
		return
	}
	if strings.EqualFold(args[0], "select") && r.kind == '+' {
		c.curr = atoi(args[1])
	}
	io.WriteString(c.p.Stdout, c.format(r, verbatimCommand(args)))
}

func (c *cli) prompt() string {
	if c.conn == nil {
		return "not connected> "
	}
	if c.curr != 0 {
		return fmt.Sprintf("%s:%d[%d]> ", c.host, c.port, c.curr)
	}
	return fmt.Sprintf("%s:%d> ", c.host, c.port)
}
