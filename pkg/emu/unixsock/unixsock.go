// Package unixsock is the Unix-domain sockets of emulated containers. The
// emulated filesystems hold no sockets, so the names of bound sockets
// live in a Namespace: one per node for the node's own filesystem (what
// hostPath volumes and HostProcess containers see), and one for what a
// container or a pod volume keeps to itself. A View is one container's
// sight of them: its mount points, each a directory of a Namespace, and
// its own Namespace for every other path. Two containers that mount the
// same node directory thus reach the same socket, which is how a CSI
// driver, its node-driver-registrar and the kubelet meet.
//
// Connections are in-memory pipes (grpc's bufconn), so real gRPC runs
// over them; nothing touches the host.
package unixsock

import (
	"context"
	"net"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"

	"google.golang.org/grpc/test/bufconn"

	"github.com/winkube/winkube/pkg/emu/program"
)

// bufSize is each direction's buffer of a connection.
const bufSize = 256 << 10

// Namespace is a set of socket names: the sockets bound under one
// filesystem. Windows namespaces match names without case and take
// either separator; every name is on the system drive.
type Namespace struct {
	windows bool

	mu       sync.Mutex
	socks    map[string]*socket // by key
	watchers map[*watcher]bool
}

type socket struct {
	name string // the path as bound, in the namespace's syntax
	l    *bufconn.Listener
}

// Event is a socket name appearing (Bound) or going away.
type Event struct {
	// Path is the socket's path in the namespace's syntax
	// (C:\var\lib\kubelet\plugins_registry\x-reg.sock on Windows).
	Path  string
	Bound bool
}

type watcher struct {
	dir string // key of the directory
	fn  func(Event)
}

// NewNamespace is an empty namespace; windows selects Windows names.
func NewNamespace(windows bool) *Namespace {
	return &Namespace{windows: windows, socks: map[string]*socket{}, watchers: map[*watcher]bool{}}
}

// Windows reports whether names are Windows paths.
func (n *Namespace) Windows() bool { return n.windows }

// key is the canonical form of a path: slash-separated, rooted, cleaned,
// without the drive and lower-case on Windows.
func key(p string, windows bool) string {
	if windows {
		p = strings.ReplaceAll(p, `\`, "/")
		if len(p) >= 2 && p[1] == ':' {
			p = p[2:]
		}
		p = strings.ToLower(p)
	}
	return path.Clean("/" + p)
}

// display is a path as the namespace's OS writes it.
func display(p string, windows bool) string {
	if !windows {
		return path.Clean("/" + p)
	}
	p = strings.ReplaceAll(p, `\`, "/")
	drive := "C:"
	if len(p) >= 2 && p[1] == ':' {
		drive, p = strings.ToUpper(p[:1])+":", p[2:]
	}
	return drive + strings.ReplaceAll(path.Clean("/"+p), "/", `\`)
}

func opError(op, syscallName, name string, errno syscall.Errno) error {
	return &net.OpError{Op: op, Net: "unix", Addr: &net.UnixAddr{Name: name, Net: "unix"}, Err: os.NewSyscallError(syscallName, errno)}
}

// Listen binds a socket at p. A name already taken (a bound socket or a
// stale one) is EADDRINUSE, as bind(2) says.
func (n *Namespace) Listen(p string) (net.Listener, error) {
	k := key(p, n.windows)
	n.mu.Lock()
	if _, ok := n.socks[k]; ok {
		n.mu.Unlock()
		return nil, opError("listen", "bind", p, syscall.EADDRINUSE)
	}
	s := &socket{name: display(p, n.windows), l: bufconn.Listen(bufSize)}
	n.socks[k] = s
	ws := n.watching(k)
	n.mu.Unlock()
	notify(ws, Event{Path: s.name, Bound: true})
	return &listener{ns: n, key: k, s: s, addr: &net.UnixAddr{Name: p, Net: "unix"}}, nil
}

// Dial connects to the socket bound at p: ENOENT when no socket has the
// name, ECONNREFUSED when its listener is gone.
func (n *Namespace) Dial(ctx context.Context, p string) (net.Conn, error) {
	n.mu.Lock()
	s, ok := n.socks[key(p, n.windows)]
	n.mu.Unlock()
	if !ok {
		return nil, opError("dial", "connect", p, syscall.ENOENT)
	}
	c, err := s.l.DialContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &net.OpError{Op: "dial", Net: "unix", Addr: &net.UnixAddr{Name: p, Net: "unix"}, Err: ctx.Err()}
		}
		return nil, opError("dial", "connect", p, syscall.ECONNREFUSED)
	}
	return &conn{Conn: c, local: &net.UnixAddr{Name: "@", Net: "unix"}, remote: &net.UnixAddr{Name: p, Net: "unix"}}, nil
}

// Remove removes the name p; ENOENT when there is none.
func (n *Namespace) Remove(p string) error {
	k := key(p, n.windows)
	n.mu.Lock()
	s, ok := n.socks[k]
	if ok {
		delete(n.socks, k)
	}
	ws := n.watching(k)
	n.mu.Unlock()
	if !ok {
		return &os.PathError{Op: "remove", Path: p, Err: syscall.ENOENT}
	}
	notify(ws, Event{Path: s.name, Bound: false})
	return nil
}

// Exists reports whether a socket has the name p.
func (n *Namespace) Exists(p string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.socks[key(p, n.windows)]
	return ok
}

// List is the paths of the sockets directly in dir, sorted.
func (n *Namespace) List(dir string) []string {
	d := key(dir, n.windows)
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for k, s := range n.socks {
		if path.Dir(k) == d {
			out = append(out, s.name)
		}
	}
	sort.Strings(out)
	return out
}

// Watch calls fn for every socket name that appears in or goes from dir
// (not its subdirectories), first for those there now, as the kubelet's
// plugin watcher walks its directory and then follows fsnotify's events.
// fn runs on the goroutine that bound or removed the socket and must not
// block. Stop ends the watch.
func (n *Namespace) Watch(dir string, fn func(Event)) (stop func()) {
	w := &watcher{dir: key(dir, n.windows), fn: fn}
	n.mu.Lock()
	n.watchers[w] = true
	now := n.List
	n.mu.Unlock()
	for _, p := range now(dir) {
		fn(Event{Path: p, Bound: true})
	}
	return func() {
		n.mu.Lock()
		delete(n.watchers, w)
		n.mu.Unlock()
	}
}

// watching is the watchers of k's directory; n.mu is held.
func (n *Namespace) watching(k string) []*watcher {
	var out []*watcher
	for w := range n.watchers {
		if path.Dir(k) == w.dir {
			out = append(out, w)
		}
	}
	return out
}

func notify(ws []*watcher, e Event) {
	for _, w := range ws {
		w.fn(e)
	}
}

// unbind removes s's name if it still names s (a Remove and a new Listen
// may have taken it since).
func (n *Namespace) unbind(k string, s *socket) {
	n.mu.Lock()
	cur, ok := n.socks[k]
	if ok && cur == s {
		delete(n.socks, k)
	}
	ws := n.watching(k)
	n.mu.Unlock()
	if ok && cur == s {
		notify(ws, Event{Path: s.name, Bound: false})
	}
}

type listener struct {
	ns   *Namespace
	key  string
	s    *socket
	addr *net.UnixAddr
	once sync.Once
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.s.l.Accept()
	if err != nil {
		return nil, &net.OpError{Op: "accept", Net: "unix", Addr: l.addr, Err: net.ErrClosed}
	}
	return &conn{Conn: c, local: l.addr, remote: &net.UnixAddr{Name: "@", Net: "unix"}}, nil
}

// Close unbinds the socket and removes its name, as Go's UnixListener
// does for a socket it bound.
func (l *listener) Close() error {
	l.once.Do(func() {
		l.s.l.Close()
		l.ns.unbind(l.key, l.s)
	})
	return nil
}

func (l *listener) Addr() net.Addr { return l.addr }

type conn struct {
	net.Conn
	local, remote net.Addr
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

// Mount is one mount point of a container: the container directory Path
// shows the directory Dir of the namespace NS.
type Mount struct {
	Path string
	NS   *Namespace
	Dir  string
}

// View is a container's sight of the sockets: its mounts (a hostPath
// volume: the node's namespace at the volume's path; a HostProcess
// container: the node's namespace at C:\; an emptyDir: the pod volume's
// own namespace at /) and its own namespace for every other path.
type View struct {
	Windows bool
	Mounts  []Mount
	Own     *Namespace
}

var _ program.Sockets = (*View)(nil)

// Resolve is the namespace and the path in it that a container path
// names: the deepest mount that holds it, else the container's own.
func (v *View) Resolve(p string) (*Namespace, string) {
	k := key(p, v.Windows)
	best, bestLen := -1, -1
	for i, m := range v.Mounts {
		mk := key(m.Path, v.Windows)
		if (k == mk || mk == "/" || strings.HasPrefix(k, mk+"/")) && len(mk) > bestLen {
			best, bestLen = i, len(mk)
		}
	}
	if best < 0 {
		return v.Own, p
	}
	m := v.Mounts[best]
	rel := restOf(p, v.Windows, depth(key(m.Path, v.Windows)))
	if rel == "" {
		return m.NS, display(m.Dir, m.NS.windows)
	}
	if m.NS.windows {
		return m.NS, display(m.Dir+"/"+rel, true)
	}
	return m.NS, path.Join(display(m.Dir, false), rel)
}

// depth is the number of components of a key.
func depth(k string) int {
	if k == "/" {
		return 0
	}
	return strings.Count(k, "/")
}

// restOf is p without its drive and its first skip components, in the
// case p has, slash-separated.
func restOf(p string, windows bool, skip int) string {
	if windows {
		p = strings.ReplaceAll(p, `\`, "/")
		if len(p) >= 2 && p[1] == ':' {
			p = p[2:]
		}
	}
	c := strings.Trim(path.Clean("/"+p), "/")
	if c == "" {
		return ""
	}
	parts := strings.Split(c, "/")
	if skip >= len(parts) {
		return ""
	}
	return strings.Join(parts[skip:], "/")
}

func (v *View) own() *Namespace {
	if v.Own == nil {
		v.Own = NewNamespace(v.Windows)
	}
	return v.Own
}

func (v *View) resolve(p string) (*Namespace, string) {
	ns, np := v.Resolve(p)
	if ns == nil {
		ns = v.own()
	}
	return ns, np
}

// Listen binds a socket at the container path p.
func (v *View) Listen(p string) (net.Listener, error) {
	ns, np := v.resolve(p)
	l, err := ns.Listen(np)
	if err != nil {
		return nil, rename(err, p)
	}
	return &viewListener{Listener: l, addr: &net.UnixAddr{Name: p, Net: "unix"}}, nil
}

// Dial connects to the socket at the container path p.
func (v *View) Dial(ctx context.Context, p string) (net.Conn, error) {
	ns, np := v.resolve(p)
	c, err := ns.Dial(ctx, np)
	if err != nil {
		return nil, rename(err, p)
	}
	return c, nil
}

// Remove removes the socket name at the container path p.
func (v *View) Remove(p string) error {
	ns, np := v.resolve(p)
	if err := ns.Remove(np); err != nil {
		return &os.PathError{Op: "remove", Path: p, Err: syscall.ENOENT}
	}
	return nil
}

// Exists reports whether a socket is named p in the container.
func (v *View) Exists(p string) bool {
	ns, np := v.resolve(p)
	return ns.Exists(np)
}

// rename puts the container's path back in an error about the node's.
func rename(err error, p string) error {
	if oe, ok := err.(*net.OpError); ok {
		c := *oe
		c.Addr = &net.UnixAddr{Name: p, Net: "unix"}
		return &c
	}
	return err
}

type viewListener struct {
	net.Listener
	addr *net.UnixAddr
}

func (l *viewListener) Addr() net.Addr { return l.addr }
