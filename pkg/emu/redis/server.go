// Package redis is the redis image's programs: redis-server, which serves
// the RESP protocol on the pod network with github.com/alicebob/miniredis
// as its data store and command set, and redis-cli, its client with
// redis-cli's output formats. Their messages (start-up log, config
// errors, error replies, connection errors) are redis 7.2's.
package redis

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Version is the redis release the programs speak as.
const Version = "7.2.6"

// Table is the programs of this package by program.Name.
func Table() map[string]program.Main {
	return map[string]program.Main{"redis-server": Server, "redis-cli": CLI}
}

const serverUsage = `Usage: ./redis-server [/path/to/redis.conf] [options] [-]
       ./redis-server - (read config from stdin)
       ./redis-server -v or --version
       ./redis-server -h or --help
       ./redis-server --test-memory <megabytes>
       ./redis-server --check-system

Examples:
       ./redis-server (run the server with default conf)
       echo 'maxmemory 128mb' | ./redis-server -
       ./redis-server /etc/redis/6379.conf
       ./redis-server --port 7777
       ./redis-server --port 7777 --replicaof 127.0.0.1 8888
       ./redis-server /etc/myredis.conf --loglevel verbose -
       ./redis-server /etc/myredis.conf --loglevel verbose

Sentinel mode:
       ./redis-server /etc/sentinel.conf --sentinel
`

// Server is redis-server: it reads its config, logs redis's start-up
// lines (its log goes to stdout, as in the official image), binds its
// port on the pod network and returns program.Forever, holding no
// goroutine while no client is connected. The port is freed when the
// process is stopped (ctx done).
func Server(ctx context.Context, p *program.Proc) int {
	if len(p.Args) > 1 {
		switch p.Args[1] {
		case "-v", "--version":
			fmt.Fprintf(p.Stdout, "Redis server v=%s sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=7b9f1a8b5d6e3a4c\n", Version)
			return 0
		case "-h", "--help":
			io.WriteString(p.Stderr, serverUsage)
			return 1
		}
	}
	lg := logger{p}
	cfg, err := configure(p)
	switch e := err.(type) {
	case nil:
	case *logError:
		lg.log('C', '#', e.msg)
		return 1
	case *fatalError:
		fmt.Fprintf(p.Stderr, "\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\nReading the configuration file, at line %d\n>>> '%s'\n%s\n", Version, e.line, e.text, e.reason)
		return 1
	}
	lg.log('C', '*', "oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo")
	lg.log('C', '*', "Redis version="+Version+", bits=64, commit=00000000, modified=0, pid=1, just started")
	if len(p.Args) == 1 {
		lg.log('C', '#', "Warning: no config file specified, using the default config. In order to specify a config file use "+p.Args[0]+" /path/to/redis.conf")
	} else {
		lg.log('C', '*', "Configuration loaded")
	}
	lg.log('M', '*', "monotonic clock: POSIX clock_gettime")
	lg.log('M', '*', fmt.Sprintf("Running mode=standalone, port=%d.", cfg.port))
	if !listen(ctx, p, cfg, lg) {
		lg.log('M', '#', fmt.Sprintf("Failed listening on port %d (tcp), aborting.", cfg.port))
		return 1
	}
	lg.log('M', '*', "Server initialized")
	if cfg.port != 0 {
		lg.log('M', '*', "Ready to accept connections tcp")
	}
	return program.Forever
}

// logger writes redis's log lines: "pid:role date level message", role C
// before the server is initialised and M (master) after it.
type logger struct{ p *program.Proc }

func (l logger) log(role, level byte, msg string) {
	t := l.p.Sys.Clock.Now().UTC().Format("02 Jan 2006 15:04:05.000")
	fmt.Fprintf(l.p.Stdout, "1:%c %s %c %s\n", role, t, level, msg)
}

// LoopbackServer is a network that can serve a port on the pod's
// loopback alone (redis's "bind 127.0.0.1").
type LoopbackServer interface {
	ServeLoopback(ctx context.Context, network string, port int, handle func(io.ReadWriteCloser)) error
}

// listen binds the port on the addresses of the bind directive, as
// initListeners does; it logs and reports false where redis aborts. Port
// 0 listens on no TCP port. A network that cannot serve (none modelled)
// leaves the server waiting with nothing bound.
func listen(ctx context.Context, p *program.Proc, cfg *config, lg logger) bool {
	srv, ok := p.Sys.Net.(program.Server)
	if !ok || cfg.port == 0 {
		return true
	}
	bind := cfg.bind
	if bind == nil {
		bind = []string{"*", "-::*"}
	}
	all, loop := false, false
	podIP := ""
	if n, ok := p.Sys.Net.(interface{ PodIP() string }); ok {
		podIP = n.PodIP()
	}
	for _, a := range bind {
		addr := strings.TrimPrefix(a, "-")
		switch ip, err := netip.ParseAddr(addr); {
		case addr == "*" || addr == "::*" || (err == nil && ip.IsUnspecified()) || (err == nil && ip.String() == podIP):
			// The emulated network binds a port on every address of the
			// pod at once: one for the pod's address binds them all.
			all = true
		case addr == "localhost" || (err == nil && ip.IsLoopback()):
			loop = true
		case strings.HasPrefix(a, "-"):
			// An optional address the pod does not have is skipped.
		default:
			lg.log('M', '#', fmt.Sprintf("Warning: Could not create server TCP listening socket %s:%d: bind: Cannot assign requested address", addr, cfg.port))
			return false
		}
	}
	in := &instance{ctx: ctx, clock: p.Sys.Clock, pass: cfg.requirepass}
	var err error
	switch lsrv, canLoop := p.Sys.Net.(LoopbackServer); {
	case all || (loop && !canLoop):
		err = srv.Serve(ctx, "tcp", cfg.port, in.handle)
	case loop:
		err = lsrv.ServeLoopback(ctx, "tcp", cfg.port, in.handle)
	default:
		return true
	}
	if err != nil {
		shown := "*"
		if !all {
			shown = "127.0.0.1"
		}
		lg.log('M', '#', fmt.Sprintf("Warning: Could not create server TCP listening socket %s:%d: bind: %s", shown, cfg.port, program.ErrorText(err, false)))
		return false
	}
	return true
}

// instance is one redis-server's data and command set. The miniredis
// store is made at the first command, not at start-up or at a bare
// connection (a tcpSocket probe), so that an idle server costs only its
// listener.
type instance struct {
	ctx   context.Context
	clock program.Clock
	pass  string

	mu sync.Mutex
	m  *miniredis.Miniredis
}

// handle serves one connection: a client that sends nothing and closes
// (a probe) is let go; any other is served by miniredis on goroutines of
// its own until either end closes.
func (in *instance) handle(c io.ReadWriteCloser) {
	nc, ok := c.(net.Conn)
	if !ok {
		c.Close()
		return
	}
	br := bufio.NewReader(nc)
	if _, err := br.Peek(1); err != nil {
		nc.Close()
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	srv := in.serverLocked()
	if srv == nil {
		nc.Close()
		return
	}
	srv.ServeConn(&peekedConn{Conn: nc, r: br})
}

// serverLocked is the instance's RESP server, made on first use; nil once
// the process is stopped.
func (in *instance) serverLocked() *server.Server {
	if in.ctx.Err() != nil {
		return nil
	}
	if in.m != nil {
		return in.m.Server()
	}
	m := miniredis.NewMiniRedis()
	// Dial starts miniredis without a listener of its own: the emulated
	// network hands it its connections (ServeConn).
	c, err := m.Dial()
	if err != nil {
		return nil
	}
	c.Close()
	m.RequireAuth(in.pass)
	// Keys expire on the container's clock.
	m.SetTime(in.clock.Now())
	m.ClockTTL(true)
	srv := m.Server()
	srv.SetPreHook(func(c *server.Peer, cmd string, args ...string) bool {
		m.SetTime(in.clock.Now())
		return in.redisWording(srv, c, cmd, args)
	})
	in.m = m
	context.AfterFunc(in.ctx, in.close)
	return srv
}

// close ends the server with its process: its clients are disconnected.
func (in *instance) close() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.m != nil {
		in.m.Close()
	}
}

// redisWording answers, in redis 7.2's words, where miniredis words it
// otherwise: an unknown command (checked before authentication, as
// redis does) and a wrong password. It reports whether it answered.
func (in *instance) redisWording(srv *server.Server, c *server.Peer, cmd string, args []string) bool {
	if !srv.IsRegisteredCommand(cmd) {
		c.WriteError(unknownCommand(cmd, args))
		return true
	}
	if cmd == "AUTH" && in.pass != "" && (len(args) == 1 || len(args) == 2) {
		user, pw := "default", args[0]
		if len(args) == 2 {
			user, pw = args[0], args[1]
		}
		if user != "default" || pw != in.pass {
			c.WriteError("WRONGPASS invalid username-password pair or user is disabled.")
			return true
		}
	}
	return false
}

// unknownCommand is commandCheckExistence's error: the command's name
// and its first arguments, 128 bytes at most of each. The name is shown
// lower-case: miniredis hands the hook the upper-cased name, and clients
// mostly send lower case.
func unknownCommand(cmd string, args []string) string {
	var b strings.Builder
	for _, a := range args {
		if b.Len() >= 128 {
			break
		}
		fmt.Fprintf(&b, "'%s' ", trunc(a, 128-b.Len()))
	}
	msg := fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", trunc(strings.ToLower(cmd), 128), b.String())
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// peekedConn is a connection whose first bytes were read ahead.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(b []byte) (int, error) { return c.r.Read(b) }
