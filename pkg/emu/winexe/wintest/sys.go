package wintest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/nodeos"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Clock moves forward by d whenever it is waited on for d, so sleeps
// take no real time and Now tells how long a program waited. When
// Deadline is set, a wait reaching it calls Stop (a test's ctx cancel)
// instead of returning.
type Clock struct {
	mu       sync.Mutex
	now      time.Time
	Deadline time.Time
	Stop     func()
}

// NewClock starts at a fixed date.
func NewClock() *Clock {
	return &Clock{now: time.Date(2024, 3, 5, 14, 7, 0, 0, time.UTC)}
}

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if !c.Deadline.IsZero() && !c.now.Add(d).Before(c.Deadline) {
		c.now = c.Deadline
		c.Stop()
		return ch // never fires: the caller sees ctx done
	}
	c.now = c.now.Add(d)
	ch <- c.now
	return ch
}

// Net is a stub network: Hosts maps names to addresses (which answer
// ICMP echoes), and Serve answers a dial to an address with a canned
// reply.
type Net struct {
	Hosts map[string][]string
	Serve map[string]string // address -> bytes the server sends
	IP    string
}

func (n *Net) PodIP() string { return n.IP }

func (n *Net) LookupHost(ctx context.Context, name string) ([]string, error) {
	if a, ok := n.Hosts[strings.ToLower(name)]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

func (n *Net) Dial(ctx context.Context, network, address string) (io.ReadWriteCloser, error) {
	if network == "icmp" {
		// Any address a host name maps to answers echoes.
		for _, addrs := range n.Hosts {
			for _, a := range addrs {
				if a == address {
					return &conn{r: strings.NewReader("")}, nil
				}
			}
		}
		return nil, errors.New("network is unreachable")
	}
	reply, ok := n.Serve[address]
	if !ok {
		return nil, errors.New("connection refused")
	}
	return &conn{r: strings.NewReader(reply)}, nil
}

func (n *Net) Listen(ctx context.Context, network string, port int) (program.Listener, error) {
	return nil, errors.New("not supported")
}

type conn struct {
	r *strings.Reader
	w bytes.Buffer
}

func (c *conn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c *conn) Write(b []byte) (int, error) { return c.w.Write(b) }
func (c *conn) Close() error                { return nil }

// Release is the Windows Server release the test containers' node runs.
const Release = "2022"

// Sys is a Windows container with an empty C:\ and the given programs, on
// a node of Release.
func Sys(programs map[string]program.Main) *program.Sys {
	c := NewClock()
	return &program.Sys{
		OS:       nodeos.Of(nodeos.Release(Release, "win-node")),
		Windows:  true,
		FS:       NewFS(c),
		Clock:    c,
		Hostname: "WIN-POD",
		User:     program.User{Account: "ContainerUser"},
		Programs: programs,
	}
}

// Run runs m with args and stdin in sys, in C:\, and returns its
// stdout, stderr and status.
func Run(ctx context.Context, sys *program.Sys, m program.Main, stdin string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	p := &program.Proc{
		Args:   args,
		Env:    []string{"COMPUTERNAME=WIN-POD", "USERNAME=ContainerUser", `PATH=C:\Windows\system32;C:\Windows`},
		Dir:    `C:\`,
		Stdin:  strings.NewReader(stdin),
		Stdout: &out,
		Stderr: &errb,
		Sys:    sys,
	}
	code := m(ctx, p)
	return out.String(), errb.String(), code
}
