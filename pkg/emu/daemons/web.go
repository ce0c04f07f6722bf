package daemons

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// site is a web server image's static site: its document root in the
// container's filesystem, where the image's default page is (the catalog
// puts it there) and where a mounted ConfigMap is served from.
type site struct {
	port     int               // 80 for the web servers
	server   string            // the Server header
	fixed    map[string]string // path → text body (health endpoints)
	root     string
	index    []string // a directory's index files, in the server's order
	notFound func(path string) string
	// forbidden is the page for a directory with no index file (the
	// server lists no directories); nil: the 404 page.
	forbidden string
	// logged, when set, is told of each request served (IIS's ETW
	// logging).
	logged func(p *program.Proc, c io.ReadWriteCloser, req *http.Request, status int, sent int64, started time.Time)
}

var (
	nginxSite = site{
		port: 80, server: "nginx/1.27.3", root: "/usr/share/nginx/html", index: []string{"index.html", "index.htm"},
		notFound: func(string) string {
			return "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.27.3</center>\r\n</body>\r\n</html>\r\n"
		},
		forbidden: "<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n<hr><center>nginx/1.27.3</center>\r\n</body>\r\n</html>\r\n",
	}
	httpdSite = site{
		port: 80, server: "Apache/2.4.62 (Unix)", root: "/usr/local/apache2/htdocs", index: []string{"index.html"},
		notFound: func(p string) string {
			return "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n</body></html>\n"
		},
	}
	iisSite = site{
		port: 80, server: "Microsoft-IIS/10.0", root: `C:\inetpub\wwwroot`, index: []string{"Default.htm", "Default.asp", "index.htm", "index.html", "iisstart.htm", "default.aspx"},
		logged: iisRequestLogged,
		notFound: func(string) string {
			return "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\">\r\n<html><head><title>404 - File or directory not found.</title></head>\r\n<body><h2>404 - File or directory not found.</h2>\r\n<h3>The resource you are looking for might have been removed, had its name changed, or is temporarily unavailable.</h3></body></html>\r\n"
		},
		// IIS's 403.14 (directory browsing disabled) as a remote client
		// sees it: the custom error page of 403.
		forbidden: "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\">\r\n<html><head><title>403 - Forbidden: Access is denied.</title></head>\r\n<body><h2>403 - Forbidden: Access is denied.</h2>\r\n<h3>You do not have permission to view this directory or page using the credentials that you supplied.</h3></body></html>\r\n",
	}
)

// CoreDNS's health (:8080/health) and ready (:8181/ready) plugins, which
// its liveness and readiness probes ask.
var (
	corednsHealth = site{port: 8080, fixed: map[string]string{"/health": "OK"}, notFound: func(string) string { return "404 page not found\n" }}
	corednsReady  = site{port: 8181, fixed: map[string]string{"/ready": "OK"}, notFound: func(string) string { return "404 page not found\n" }}
)

// serveSite binds s.port of the pod for s. With no network that can
// serve without a waiting goroutine, the server only waits.
func serveSite(ctx context.Context, p *program.Proc, s site) {
	srv, ok := p.Sys.Net.(program.Server)
	if !ok {
		return
	}
	err := srv.Serve(ctx, "tcp", s.port, func(c io.ReadWriteCloser) { s.serveConn(p, c) })
	if err != nil {
		fmt.Fprintf(p.Stderr, "bind() to 0.0.0.0:%d failed (%s)\n", s.port, program.ErrorText(err, p.Sys.Windows))
	}
}

// serveConn answers HTTP/1.x requests on c until the client closes it or
// asks to.
func (s site) serveConn(p *program.Proc, c io.ReadWriteCloser) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		started := p.Sys.Clock.Now()
		_, _ = io.Copy(io.Discard, req.Body)
		resp := s.respond(p, req)
		if s.logged != nil {
			s.logged(p, c, req, resp.StatusCode, resp.ContentLength, started)
		}
		resp.Close = req.Close || !req.ProtoAtLeast(1, 1)
		if err := resp.Write(c); err != nil || resp.Close {
			return
		}
	}
}

// respond serves a file of the document root, the image's welcome page
// at "/", or the server's 404 page.
func (s site) respond(p *program.Proc, req *http.Request) *http.Response {
	name := path.Clean("/" + req.URL.Path)
	if text, ok := s.fixed[name]; ok {
		return s.response(p, req, http.StatusOK, []byte(text), "text/plain; charset=utf-8")
	}
	var body []byte
	var ctype string
	found, dir := false, false
	if s.root != "" {
		body, ctype, found, dir = s.file(p, name)
	}
	status := http.StatusOK
	switch {
	case !found && dir && s.forbidden != "":
		status, body, ctype = http.StatusForbidden, []byte(s.forbidden), "text/html"
	case !found:
		status, body, ctype = http.StatusNotFound, []byte(s.notFound(name)), "text/html"
	}
	return s.response(p, req, status, body, ctype)
}

func (s site) response(p *program.Proc, req *http.Request, status int, body []byte, ctype string) *http.Response {
	h := http.Header{}
	if s.server != "" {
		h.Set("Server", s.server)
	}
	h.Set("Content-Type", ctype)
	h.Set("Date", p.Sys.Clock.Now().UTC().Format(http.TimeFormat))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	resp := &http.Response{
		StatusCode: status, ProtoMajor: 1, ProtoMinor: 1, Request: req, Header: h,
		ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body)),
	}
	if req.Method == http.MethodHead {
		resp.Body = http.NoBody
	}
	return resp
}

// file reads name under the root; a directory serves its index file.
// dir says name is a directory (found or not, its index).
func (s site) file(p *program.Proc, name string) (body []byte, ctype string, found, dir bool) {
	full := p.Sys.FS.Abs(s.root, "."+name)
	if fi, err := p.Sys.FS.Stat(full); err == nil && fi.IsDir() {
		d := full
		dir = true
		for _, index := range s.index {
			if full = p.Sys.FS.Abs(d, index); s.exists(p, full) {
				break
			}
		}
	}
	f, err := p.Sys.FS.OpenFile(full, os.O_RDONLY, 0)
	if err != nil {
		return nil, "", false, dir
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		return nil, "", false, dir
	}
	b, err := io.ReadAll(io.LimitReader(f, 8<<20))
	if err != nil {
		return nil, "", false, dir
	}
	ctype = mime.TypeByExtension(path.Ext(strings.ReplaceAll(full, `\`, "/")))
	if ctype == "" {
		ctype = http.DetectContentType(b)
	}
	return b, ctype, true, dir
}

func (s site) exists(p *program.Proc, name string) bool {
	fi, err := p.Sys.FS.Stat(name)
	return err == nil && !fi.IsDir()
}
