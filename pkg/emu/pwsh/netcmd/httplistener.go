package netcmd

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// httpListener is System.Net.HttpListener as http.sys runs it: Start
// binds the ports of its prefixes on the pod network, GetContext hands
// the script one request at a time, and the response goes out when the
// script closes it. The serving itself is in httpserve.go.
type httpListener struct {
	values.Dotnet
	i        *engine.Interp
	prefixes *prefixList
	run      *listenRun // while listening
	closed   bool       // Close or Abort: the object is disposed
	ignore   bool       // IgnoreWriteExceptions
	auth     string     // AuthenticationSchemes
}

func init() {
	engine.RegisterConstructor("net.httplistener", func(i *engine.Interp, _ string, _ []any) (any, error) { return newHTTPListener(i), nil })
}

// newHTTPListener is New-Object System.Net.HttpListener.
func newHTTPListener(i *engine.Interp) *httpListener {
	l := &httpListener{Dotnet: values.Dotnet{Typ: "System.Net.HttpListener"}, i: i, auth: "Anonymous"}
	l.prefixes = &prefixList{Dotnet: values.Dotnet{Typ: "System.Net.HttpListenerPrefixCollection"}, l: l}
	i.AtExit(l.stop) // the process ending closes its listeners
	return l
}

func (l *httpListener) GetProp(name string) (any, bool) {
	switch name {
	case "prefixes":
		return l.prefixes, true
	case "islistening":
		return l.run != nil, true
	case "ignorewriteexceptions":
		return l.ignore, true
	case "authenticationschemes":
		return l.auth, true
	case "realm":
		return nil, true
	case "unsafeconnectionntlmauthentication":
		return false, true
	}
	return nil, false
}

func (l *httpListener) SetProp(name string, v any) error {
	switch strings.ToLower(name) {
	case "ignorewriteexceptions":
		l.ignore = values.ToBool(v)
		return nil
	case "authenticationschemes":
		if !strings.EqualFold(values.ToStr(v), "Anonymous") {
			return &values.NotEmulatedError{What: "HttpListener.AuthenticationSchemes " + values.ToStr(v)}
		}
		l.auth = "Anonymous"
		return nil
	case "prefixes", "islistening":
		return values.ReadOnly(name)
	}
	return values.NoSetter(name)
}

func (l *httpListener) CallMethod(ctx context.Context, name string, args []any) (any, bool, error) {
	if l.closed && name != "close" && name != "abort" && name != "dispose" {
		return nil, true, values.Exception("ObjectDisposedException", "Cannot access a disposed object.\r\nObject name: 'System.Net.HttpListener'.")
	}
	switch name {
	case "start":
		return nil, true, l.start(ctx)
	case "stop":
		l.stop()
		return nil, true, nil
	case "close", "abort", "dispose":
		l.stop()
		l.closed = true
		return nil, true, nil
	case "getcontext":
		c, err := l.getContext(ctx)
		return c, true, err
	}
	return nil, false, nil
}

// start binds each port of the prefixes once; a port another listener
// holds fails as http.sys refuses a conflicting registration.
func (l *httpListener) start(ctx context.Context) error {
	if l.run != nil {
		return nil
	}
	run := newListenRun(ctx, l.i)
	for _, p := range l.prefixes.list {
		if err := run.bind(p); err != nil {
			run.shutdown()
			return err
		}
	}
	l.run = run
	return nil
}

func (l *httpListener) stop() {
	if l.run != nil {
		l.run.shutdown()
		l.run = nil
	}
}

func (l *httpListener) getContext(ctx context.Context) (any, error) {
	if l.run == nil {
		return nil, values.Exception("InvalidOperationException", "Please call the Start() method before calling this method.")
	}
	if len(l.prefixes.list) == 0 {
		return nil, values.Exception("InvalidOperationException", "Please call the AddPrefix() method before calling this method.")
	}
	ex, err := l.run.next(ctx)
	if err != nil {
		return nil, err
	}
	return newListenerContext(ex, l.i, l.ignore), nil
}

// prefix is one URL prefix: http://host:port/path/.
type prefix struct {
	text string // as added
	host string // lower case: a name, an address, or the wildcards * and +
	port int
	path string // lower case, ends in /
}

// parsePrefix checks a prefix as HttpListenerPrefixCollection.Add does.
func parsePrefix(s string, pwsh7 bool) (prefix, error) {
	arg := func(msg string) error {
		if pwsh7 {
			return values.Exception("ArgumentException", "%s (Parameter 'uriPrefix')", msg)
		}
		return values.Exception("ArgumentException", "%s%s", msg, values.ParamName("uriPrefix"))
	}
	lower := strings.ToLower(s)
	rest, ok := strings.CutPrefix(lower, "http://")
	if !ok {
		if strings.HasPrefix(lower, "https://") {
			return prefix{}, &values.NotEmulatedError{What: "an https:// prefix of HttpListener (its certificate binding)"}
		}
		return prefix{}, arg("Only Uri prefixes starting with 'http://' or 'https://' are supported.")
	}
	authority, path, _ := strings.Cut(rest, "/")
	if authority == "" || strings.HasPrefix(authority, ":") {
		return prefix{}, arg("Only Uri prefixes with a valid hostname are supported.")
	}
	if !strings.HasSuffix(s, "/") {
		return prefix{}, arg("Only Uri prefixes ending in '/' are allowed.")
	}
	host, port := authority, "80"
	if h, p, err := net.SplitHostPort(authority); err == nil {
		host, port = h, p
	}
	n, err := strconv.Atoi(port)
	if err != nil || n <= 0 || n > 65535 {
		n = -1 // Start refuses it, as http.sys does
	}
	return prefix{text: s, host: host, port: n, path: "/" + path}, nil
}

// prefixList is the listener's Prefixes.
type prefixList struct {
	values.Dotnet
	l    *httpListener
	list []prefix
}

func (c *prefixList) Items() []any {
	out := make([]any, len(c.list))
	for k, p := range c.list {
		out[k] = p.text
	}
	return out
}

func (c *prefixList) GetProp(name string) (any, bool) {
	if name == "count" {
		return len(c.list), true
	}
	return nil, false
}

func (c *prefixList) find(s string) int {
	for k, p := range c.list {
		if strings.EqualFold(p.text, s) {
			return k
		}
	}
	return -1
}

func (c *prefixList) CallMethod(_ context.Context, name string, args []any) (any, bool, error) {
	s := ""
	if len(args) > 0 {
		s = values.ToStr(args[0])
	}
	switch name {
	case "add":
		p, err := parsePrefix(s, c.l.i.Pwsh7)
		if err != nil || c.find(s) >= 0 {
			return nil, true, err
		}
		if c.l.run != nil { // a started listener registers it at once
			if err := c.l.run.bind(p); err != nil {
				return nil, true, err
			}
		}
		c.list = append(c.list, p)
		return nil, true, nil
	case "remove":
		k := c.find(s)
		if k >= 0 {
			c.list = append(c.list[:k], c.list[k+1:]...)
		}
		return k >= 0, true, nil
	case "contains":
		return c.find(s) >= 0, true, nil
	case "clear":
		c.list = nil
		return nil, true, nil
	}
	return nil, false, nil
}

// bindError words a failed bind as http.sys reports it to .NET.
func bindError(p prefix, err error) error {
	switch {
	case p.port < 0:
		return values.Exception("HttpListenerException", "The parameter is incorrect")
	case errors.Is(err, syscall.EADDRINUSE):
		return values.Exception("HttpListenerException", "Failed to listen on prefix '%s' because it conflicts with an existing registration on the machine.", p.text)
	}
	return values.Exception("HttpListenerException", "%s", err.Error())
}
