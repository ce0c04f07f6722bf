package netcmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// maxBody bounds the request body a connection reads before handing the
// request to the script (the script reads it from memory).
const maxBody = 16 << 20

// listenRun is one Start..Stop of an HttpListener: the bound ports, a
// goroutine accepting on each and one per open connection, which parse
// requests and queue them for GetContext. A connection serves its next
// request (keep-alive) once the script has closed the response to the
// last one. shutdown ends every goroutine; so does the program's ctx,
// after which shutdown still runs when the script ends.
type listenRun struct {
	ctx    context.Context
	cancel context.CancelFunc
	net    program.Net // nil: the pod has no network; GetContext waits
	now    func() time.Time
	reqs   chan *exchange
	wg     sync.WaitGroup
	unhook func() bool

	mu       sync.Mutex
	done     bool
	ports    map[int]program.Listener
	prefixes map[int][]prefix
	conns    map[io.Closer]bool
}

func newListenRun(ctx context.Context, i *engine.Interp) *listenRun {
	r := &listenRun{net: i.Sys.Net, now: time.Now, reqs: make(chan *exchange),
		ports: map[int]program.Listener{}, prefixes: map[int][]prefix{}, conns: map[io.Closer]bool{}}
	if i.Sys.Clock != nil {
		r.now = i.Sys.Clock.Now
	}
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.unhook = context.AfterFunc(r.ctx, r.closeAll)
	return r
}

// bind adds a prefix; the first prefix of a port binds it.
func (r *listenRun) bind(p prefix) error {
	if p.port < 0 {
		return bindError(p, nil)
	}
	r.mu.Lock()
	_, bound := r.ports[p.port]
	if bound || r.net == nil {
		r.prefixes[p.port] = append(r.prefixes[p.port], p)
		if !bound {
			r.ports[p.port] = nil // no network: the port counts as bound, nothing accepts
		}
		r.mu.Unlock()
		return nil
	}
	r.mu.Unlock()
	l, err := r.net.Listen(r.ctx, "tcp", p.port)
	if err != nil {
		return bindError(p, err)
	}
	r.mu.Lock()
	r.ports[p.port] = l
	r.prefixes[p.port] = append(r.prefixes[p.port], p)
	r.mu.Unlock()
	r.wg.Add(1)
	go r.accept(l, p.port)
	return nil
}

// shutdown unbinds the ports, drops the connections and waits for
// their goroutines.
func (r *listenRun) shutdown() {
	r.cancel()
	r.closeAll()
	r.wg.Wait()
}

func (r *listenRun) closeAll() {
	r.mu.Lock()
	r.done = true
	var all []io.Closer
	for _, l := range r.ports {
		if l != nil {
			all = append(all, l)
		}
	}
	for c := range r.conns {
		all = append(all, c)
	}
	r.mu.Unlock()
	for _, c := range all {
		c.Close()
	}
}

func (r *listenRun) accept(l program.Listener, port int) {
	defer r.wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		if r.done {
			r.mu.Unlock()
			c.Close()
			return
		}
		r.conns[c] = true
		r.wg.Add(1)
		r.mu.Unlock()
		go r.serve(c, port)
	}
}

// next is the next request of any connection, for GetContext.
func (r *listenRun) next(ctx context.Context) (*exchange, error) {
	select {
	case ex := <-r.reqs:
		return ex, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.ctx.Done():
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, values.Exception("HttpListenerException", "The I/O operation has been aborted because of either a thread exit or an application request")
	}
}

// serve reads the requests of one connection in turn.
func (r *listenRun) serve(c io.ReadWriteCloser, port int) {
	defer r.wg.Done()
	defer func() {
		c.Close()
		r.mu.Lock()
		delete(r.conns, c)
		r.mu.Unlock()
	}()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			if err != io.EOF && r.ctx.Err() == nil && !isClosed(err) {
				c.Write(r.sysError(400, "Bad Request", "HTTP Error 400. The request is badly formed."))
			}
			return
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
		if err != nil {
			return
		}
		if len(body) > maxBody {
			c.Write(r.sysError(413, "Request Entity Too Large", "HTTP Error 413. The request entity is too large."))
			return
		}
		ex := newExchange(req, body, c, port)
		ex.stopped = r.ctx.Done()
		if status := r.route(ex); status != 0 {
			if _, err := c.Write(r.routeError(status)); err != nil || status == 400 || req.Close {
				return
			}
			continue
		}
		select {
		case r.reqs <- ex:
		case <-r.ctx.Done():
			return
		}
		var out reply
		select {
		case out = <-ex.reply:
		case <-r.ctx.Done():
			return
		}
		_, err = c.Write(out.data)
		ex.werr = err
		close(ex.written)
		if err != nil || out.close {
			return
		}
	}
}

func isClosed(err error) bool {
	return strings.Contains(err.Error(), "closed")
}

// route finds the prefix a request falls under, as http.sys matches
// them: by host (+ any, then a name, then * any) and path. It returns
// 0, or the status http.sys answers itself: 400 for a host no prefix
// names (a listener on http://localhost:80/ refuses a Host of the pod
// IP), 404 for a path outside every prefix.
func (r *listenRun) route(ex *exchange) int {
	host := strings.ToLower(ex.req.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	path := strings.ToLower(ex.req.URL.Path)
	r.mu.Lock()
	defer r.mu.Unlock()
	hostOK := false
	for _, p := range r.prefixes[ex.port] {
		if p.host != "+" && p.host != "*" && strings.Trim(p.host, "[]") != host {
			continue
		}
		hostOK = true
		if strings.HasPrefix(path, p.path) || path+"/" == p.path {
			return 0
		}
	}
	if !hostOK {
		return 400
	}
	return 404
}

func (r *listenRun) routeError(status int) []byte {
	if status == 400 {
		return r.sysError(400, "Bad Request - Invalid Hostname", "HTTP Error 400. The request hostname is invalid.")
	}
	return r.sysError(404, "Not Found", "HTTP Error 404. The requested resource is not found.")
}

// sysError is a response http.sys makes itself, without the program.
func (r *listenRun) sysError(status int, title, text string) []byte {
	head, _, _ := strings.Cut(title, " - ")
	body := "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01//EN\"\"http://www.w3.org/TR/html4/strict.dtd\">\r\n" +
		"<HTML><HEAD><TITLE>" + head + "</TITLE>\r\n" +
		"<META HTTP-EQUIV=\"Content-Type\" Content=\"text/html; charset=us-ascii\"></HEAD>\r\n" +
		"<BODY><h2>" + title + "</h2>\r\n<hr><p>" + text + "</p>\r\n</BODY></HTML>\r\n"
	h := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: text/html; charset=us-ascii\r\nServer: %s\r\nDate: %s\r\nConnection: close\r\nContent-Length: %d\r\n\r\n",
		status, http.StatusText(status), serverHeader, r.now().UTC().Format(http.TimeFormat), len(body))
	return []byte(h + body)
}

// serverHeader is what http.sys names itself.
const serverHeader = "Microsoft-HTTPAPI/2.0"

// exchange is one request on its way to the script and its response on
// the way back.
type exchange struct {
	req           *http.Request
	body          []byte
	port          int
	local, remote *net.TCPAddr
	reply         chan reply    // one response, sent by Close
	written       chan struct{} // closed when it is written, werr says how
	werr          error
	stopped       <-chan struct{} // the listener's end
}

type reply struct {
	data  []byte
	close bool // the connection ends after it
}

func newExchange(req *http.Request, body []byte, c io.ReadWriteCloser, port int) *exchange {
	ex := &exchange{req: req, body: body, port: port, reply: make(chan reply, 1), written: make(chan struct{}),
		local: &net.TCPAddr{IP: net.IPv4zero, Port: port}, remote: &net.TCPAddr{IP: net.IPv4zero}}
	if nc, ok := c.(net.Conn); ok {
		if a, ok := nc.LocalAddr().(*net.TCPAddr); ok {
			ex.local = a
		}
		if a, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
			ex.remote = a
		}
	}
	return ex
}
