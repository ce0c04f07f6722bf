// Package program is what runs inside an emulated container: a process
// model (Proc, Sys) and the table of programs a container's image offers.
// Nothing here touches the host: a program reads and writes the
// container's virtual filesystem (FS), sleeps on the agent's clock, and
// prints to the streams it is given.
//
// The programs themselves live in subpackages, one per family: sh (the
// POSIX shell, mvdan.cc/sh), applets (busybox/coreutils), agnhost (the
// e2e test image's subcommands), wincmd (cmd.exe) and pwsh (PowerShell).
// They meet only through this package: a shell runs another program by
// calling Sys.Exec, never by importing its package, so the families do not
// import each other.
package program

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winkube/winkube/pkg/emu/etw"
	"github.com/winkube/winkube/pkg/emu/eventlog"
)

// Main is a program's entry point. It returns the process's exit status.
// A program that is stopped (ctx done) returns as soon as it can; its
// status is then ignored by the caller, which knows how it was stopped.
type Main func(ctx context.Context, p *Proc) int

// Proc is one process in an emulated container.
type Proc struct {
	// Args is argv: Args[0] is the name as invoked (a path or a bare
	// name), the rest its arguments.
	Args []string
	// Env is the environment, NAME=value, in order.
	Env []string
	// Dir is the working directory, an absolute path of Sys.FS.
	Dir    string
	Stdin  io.Reader // never nil (an empty reader when stdin is closed)
	Stdout io.Writer
	Stderr io.Writer
	// TTY is set when the process runs on a terminal (kubectl exec -t);
	// Term is then that terminal, whose size the client sets.
	TTY  bool
	Term *Terminal
	Sys  *Sys
}

// Terminal is the terminal of a process run with a TTY: its size in rows
// and columns, which the client changes as its window does.
type Terminal struct{ size atomic.Uint32 }

// DefaultTerminal is the size of a terminal no client has sized: the
// classic 24 by 80.
func DefaultTerminal() *Terminal {
	t := &Terminal{}
	t.SetSize(24, 80)
	return t
}

// Size is the terminal's rows and columns.
func (t *Terminal) Size() (rows, cols uint16) {
	v := t.size.Load()
	return uint16(v >> 16), uint16(v)
}

// SetSize records a new size.
func (t *Terminal) SetSize(rows, cols uint16) { t.size.Store(uint32(rows)<<16 | uint32(cols)) }

// Getenv is the value of an environment variable ("" when unset); on
// Windows names are matched without case.
func (p *Proc) Getenv(name string) string {
	v, _ := p.LookupEnv(name)
	return v
}

// LookupEnv is the value of an environment variable and whether it is set;
// the last assignment of a name wins. On Windows names are matched without
// case.
func (p *Proc) LookupEnv(name string) (string, bool) {
	val, ok := "", false
	for _, kv := range p.Env {
		for i := 0; i < len(kv); i++ {
			if kv[i] != '=' {
				continue
			}
			if kv[:i] == name || (p.Sys != nil && p.Sys.Windows && equalFold(kv[:i], name)) {
				val, ok = kv[i+1:], true
			}
			break
		}
	}
	return val, ok
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Sys is the container a process runs in: its OS, filesystem, identity,
// clock, programs and network.
type Sys struct {
	// Windows selects the Windows personality: C:\ paths with
	// case-insensitive names, the Windows wording of errors, cmd.exe and
	// PowerShell.
	Windows bool
	FS      FS
	Clock   Clock
	// Hostname is what hostname prints (the pod's hostname; on Windows
	// upper-case as COMPUTERNAME).
	Hostname string
	User     User
	// Programs are the programs the image offers, by Name(path).
	Programs map[string]Main
	// Groups are the machine's local groups (Windows; nil elsewhere).
	Groups *LocalGroups
	// Net is the pod's network; nil when the pod has none the emulation
	// models yet (a program that dials then fails as on an unreachable
	// network).
	Net Net
	// Privileges are the capabilities and no_new_privs of a Linux
	// container (zero: the runtime's defaults).
	Privileges Privileges
	// Netns is a Linux container's network namespace as ip shows it;
	// nil when the emulation has none to show (Windows, tests).
	Netns *Netns
	// ClusterDNS answers a DNS message (wire format; tcp: the reply may
	// be as large as TCP allows) from the cluster's Services and pods, as
	// CoreDNS's kubernetes plugin does from the API: what the cluster's
	// DNS server program serves on port 53. Nil outside a cluster.
	ClusterDNS func(query []byte, tcp bool) ([]byte, error)
	// OS is what the OS says about itself (ver, uname, the registry):
	// the node's facts.
	OS OSInfo
	// Machine reports the node's hardware, load, services and containers
	// now, as the node's performance counters and runtime do; nil when
	// the emulation has nothing to report (a program then leaves out
	// what it would have read from them).
	Machine func() MachineStats
	// Sockets are the Unix-domain sockets the container binds and
	// reaches through its mounts (a CSI driver's socket, the kubelet's
	// plugin registry); nil when the node provides none, and a program
	// that needs one then fails as on an OS without AF_UNIX.
	Sockets Sockets
	// GMSA is the Active Directory identity of a Windows container whose
	// pod or container names a GMSA credential spec; nil for a container
	// without one (a workgroup machine). whoami still prints User.
	GMSA *GMSAIdentity

	// eventLog is the container's Windows event log, made at its first
	// use (see EventLog): most containers never log an event.
	eventLogOnce sync.Once
	eventLog     *eventlog.Store
	// etw is the container's Event Tracing for Windows, made at its
	// first use (see ETW).
	etwOnce sync.Once
	etw     *etw.Tracing
}

// ETW is the container's Event Tracing for Windows, which all its
// processes share: the providers IIS registers, the sessions
// LogMonitor's ETW source starts.
func (s *Sys) ETW() *etw.Tracing {
	s.etwOnce.Do(func() { s.etw = etw.New() })
	return s.etw
}

// EventLog is the container's Windows event log, which all its processes
// share (Write-EventLog, eventcreate, LogMonitor). It is made empty at
// the first use, stamped by the container's clock: the Sys is the
// container's, so nothing else need make it.
func (s *Sys) EventLog() *eventlog.Store {
	s.eventLogOnce.Do(func() {
		now := time.Now
		if s.Clock != nil {
			now = s.Clock.Now
		}
		s.eventLog = eventlog.New(now)
	})
	return s.eventLog
}

// GMSAIdentity is what a Windows container runs with when its
// gmsaCredentialSpec names a group managed service account: its processes
// keep the container's user, but the machine talks to the domain as the
// gMSA (nltest's secure channel, klist's tickets).
type GMSAIdentity struct {
	// Account is the gMSA's SAM account name without the trailing $
	// (DomainJoinConfig.MachineAccountName), such as webapp01.
	Account string
	// DNSName and NetBIOSName name the gMSA's domain (DomainJoinConfig's
	// DnsName and NetBiosName).
	DNSName, NetBIOSName string
	// DomainController is the fully qualified name of the domain
	// controller the container reaches; empty when the node cannot reach
	// the spec's domain (it is not the cluster's).
	DomainController string
}

// User is the identity of a container's processes.
type User struct {
	// Linux: the numeric IDs (id, stat, file ownership) and the names
	// the image's /etc/passwd and /etc/group give them ("" when it has
	// none, as id then prints the number alone).
	UID, GID  int64
	Groups    []int64 // supplementary groups, fsGroup and supplementalGroups
	Name      string
	GroupName string
	// Windows: the account, ContainerUser or ContainerAdministrator (or
	// a runAsUserName), as whoami prints it after "user manager\".
	Account string
}

// Clock is the agent's time source; tests step it.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Sleep waits d on the container's clock, or until ctx is done; it
// reports whether the whole duration passed.
func (s *Sys) Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-s.Clock.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}

// ErrNotFound is returned by Lookup for a program the image does not have.
var ErrNotFound = errors.New("executable file not found")

// Lookup finds the program argv0 names: a path or a bare name, with or
// without .exe on Windows.
func (s *Sys) Lookup(argv0 string) (Main, error) {
	if m, ok := s.Programs[Name(argv0)]; ok {
		return m, nil
	}
	return nil, ErrNotFound
}

// Forever is the status a program returns when it has started and now
// only waits to be stopped (pause, a daemon whose work the emulation does
// not model further). Start passes it to the node, which then holds no
// goroutine for the process; Exec, for a shell's child, waits for ctx
// instead, as the shell would wait for its child.
const Forever = -1

// Start runs a container's main process. It returns Forever when the
// program is left running with nothing more to do. A program that panics
// ends as a Go program does (its message on stderr, status 2); the node
// goes on.
func (s *Sys) Start(ctx context.Context, p *Proc) (code int, err error) {
	m, err := s.Lookup(p.Args[0])
	if err != nil {
		return 127, err
	}
	return s.Run(ctx, p, m)
}

// Run is Start with the program given rather than looked up: what the
// node runs in place of one the image has (a stand-in).
func (s *Sys) Run(ctx context.Context, p *Proc, m Main) (code int, err error) {
	if p.Stdin == nil {
		p.Stdin = eofReader{}
	}
	if p.Sys == nil {
		p.Sys = s
	}
	defer func() {
		if r := recover(); r != nil {
			if p.Stderr != nil {
				fmt.Fprintf(p.Stderr, "panic: %v\n", r)
			}
			code, err = 2, nil
		}
	}()
	return m(ctx, p), nil
}

// Exec runs a program to its end in this container, as a child of a
// shell or as an exec from the kubelet API. A program the image does not
// have yields ErrNotFound (the caller words it: sh prints "sh: x: not
// found" and returns 127).
func (s *Sys) Exec(ctx context.Context, p *Proc) (int, error) {
	code, err := s.Start(ctx, p)
	if code == Forever {
		<-ctx.Done()
		return 0, nil
	}
	return code, err
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// Name is the table key of a program path: the base name, lower-case,
// without .exe, with / or \ as separators.
func Name(path string) string {
	i := len(path) - 1
	for i >= 0 && path[i] != '/' && path[i] != '\\' {
		i--
	}
	base := []byte(path[i+1:])
	for j, c := range base {
		if 'A' <= c && c <= 'Z' {
			base[j] = c + 'a' - 'A'
		}
	}
	n := string(base)
	if len(n) > 4 && n[len(n)-4:] == ".exe" {
		n = n[:len(n)-4]
	}
	return n
}

// FS is a container's filesystem as its processes see it. Names are
// absolute paths in the container's own syntax (/etc/hosts;
// C:\etc\hosts or /etc/hosts on Windows, where names match without case);
// Abs makes them so. Errors are *fs.PathError wrapping syscall errnos
// (ENOENT, EROFS, EACCES, EISDIR, ENOTDIR, EEXIST, ENOTEMPTY), so a
// program words them as its OS does (see ErrorText).
type FS interface {
	// Abs joins a name relative to dir and cleans it.
	Abs(dir, name string) string
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	Mkdir(name string, perm fs.FileMode) error
	MkdirAll(name string, perm fs.FileMode) error
	Remove(name string) error
	RemoveAll(name string) error
	Rename(oldname, newname string) error
	Chmod(name string, mode fs.FileMode) error
	Chtimes(name string, mtime time.Time) error
	Symlink(target, name string) error
	Readlink(name string) (string, error)
}

// File is an open file of an FS.
type File interface {
	io.Reader
	io.Writer
	io.Seeker
	io.Closer
	Stat() (fs.FileInfo, error)
}

// FileOwner is implemented by the fs.FileInfo.Sys() of an FS's files: the
// numeric owner of a file (ls -n, stat -c %u %g).
type FileOwner interface {
	Owner() (uid, gid int64)
}

// Net is the network a pod's programs see. Defined here so that programs
// have one interface to dial and listen through; the traffic work fills it
// in (pkg/network). Addresses are "host:port".
type Net interface {
	// LookupHost resolves a name with the pod's DNS settings.
	LookupHost(ctx context.Context, name string) ([]string, error)
	Dial(ctx context.Context, network, address string) (io.ReadWriteCloser, error)
	// Listen serves connections to the pod's IP and port; the listener
	// closes when ctx is done.
	Listen(ctx context.Context, network string, port int) (Listener, error)
}

// Server is a Net that serves a port without a goroutine waiting in
// Accept: handle runs on a goroutine of its own for each connection, so an
// idle server costs nothing (daemons that return Forever use it). The port
// is unbound when ctx is done.
type Server interface {
	Serve(ctx context.Context, network string, port int, handle func(io.ReadWriteCloser)) error
}

// Listener accepts connections made to a program's port.
type Listener interface {
	Accept() (io.ReadWriteCloser, error)
	Close() error
}

// NetDialer dials through the pod network of p for Go libraries that take
// a dial function (an etcd client, an HTTP transport): never a socket of
// the host. The pod network's connections are net.Conns.
func NetDialer(p *Proc) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if p.Sys.Net == nil {
			return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("network is unreachable")}
		}
		c, err := p.Sys.Net.Dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		conn, ok := c.(net.Conn)
		if !ok {
			c.Close()
			return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("the pod network gives no net.Conn for %s", addr)}
		}
		return conn, nil
	}
}
