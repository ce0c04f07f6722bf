package netapplets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// curlVersion is the curl the images ship, as its User-Agent names it.
const curlVersion = "8.4.0"

// Curl is curl (curl.exe on Windows): HTTP requests through the pod's
// network. Its messages end lines as the OS's C runtime does; the header
// lines of -i are the protocol's CRLF everywhere.
func Curl(ctx context.Context, p *program.Proc) int {
	c := &curlRun{p: p, ctx: ctx, eol: "\n", stderr: p.Stderr}
	if p.Sys.Windows {
		c.eol = "\r\n"
	}
	o, err := curlOptions.Parse(p.Args[1:])
	if err != nil {
		return c.usageError(err)
	}
	c.o = o
	if code, done := c.informational(); done {
		return code
	}
	if f, ok := o.Value("stderr"); ok && f != "-" {
		w, err := c.create(f)
		if err == nil {
			defer w.Close()
			c.stderr = w
		}
	} else if ok {
		c.stderr = p.Stdout
	}
	urls := append(append([]string(nil), o.Values("url")...), o.Args...)
	if len(urls) == 0 {
		fmt.Fprint(c.stderr, "curl: no URL specified"+c.eol+"curl: try 'curl --help' for more information"+c.eol)
		return 2
	}
	code := 0
	for _, u := range urls {
		code = c.transfer(ctx, u)
	}
	return code
}

type curlRun struct {
	p      *program.Proc
	ctx    context.Context
	o      Parsed
	eol    string
	stderr io.Writer
	took   time.Duration // the current transfer's time, for -w
	redirs int
	final  string // the last URL fetched (%{url_effective})
}

func (c *curlRun) usageError(err error) int {
	pe := err.(*ParseError)
	msg := "is unknown"
	if pe.Missing {
		msg = "requires parameter"
	}
	fmt.Fprintf(c.stderr, "curl: option %s: %s%scurl: try 'curl --help' for more information%s", pe.Opt, msg, c.eol, c.eol)
	return 2
}

// informational answers -h and -V, which transfer nothing.
func (c *curlRun) informational() (int, bool) {
	switch {
	case c.o.Has("help"):
		fmt.Fprint(c.p.Stdout, "Usage: curl [options...] <url>"+c.eol)
		for _, opt := range curlOptions.List {
			short := "    "
			if opt.Short != 0 {
				short = fmt.Sprintf(" -%c,", opt.Short)
			}
			fmt.Fprintf(c.p.Stdout, "%s --%s %s  %s%s", short, opt.Long, opt.Arg, opt.Help, c.eol)
		}
		return 0, true
	case c.o.Has("version"):
		fmt.Fprintf(c.p.Stdout, "curl %s%sProtocols: http https%s", curlVersion, c.eol, c.eol)
		return 0, true
	}
	return 0, false
}

// fail prints curl's "(code) message" unless -s without -S.
func (c *curlRun) fail(code int, msg string) int {
	if !c.o.Has("silent") || c.o.Has("show-error") {
		fmt.Fprintf(c.stderr, "curl: (%d) %s%s", code, msg, c.eol)
	}
	return code
}

// seconds reads a fractional-seconds option.
func (c *curlRun) seconds(key string) (time.Duration, error) {
	v, ok := c.o.Value(key)
	if !ok {
		return 0, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("option --%s: expected a proper numerical parameter", key)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// transfer fetches one URL, retrying and following as told, and writes
// what it got.
func (c *curlRun) transfer(ctx context.Context, raw string) int {
	req, err := c.request(raw)
	if err != nil {
		fmt.Fprintf(c.stderr, "curl: %v%s", err, c.eol)
		if errors.Is(err, errReadData) {
			return 26
		}
		return 2
	}
	start := c.p.Sys.Clock.Now()
	resp, code, msg := c.withRetries(ctx, req)
	c.took = c.p.Sys.Clock.Now().Sub(start)
	if ctx.Err() != nil {
		return 1
	}
	if code != 0 {
		c.writeOut(nil, req.URL, code, msg)
		return c.fail(code, msg)
	}
	code = c.output(resp, req.URL)
	c.writeOut(resp, req.URL, code, "")
	return code
}

// withRetries is --retry around follow.
func (c *curlRun) withRetries(ctx context.Context, req winutil.Request) (*winutil.Response, int, string) {
	retries, _ := strconv.Atoi(firstOf(c.o, "retry", "0"))
	delay, _ := c.seconds("retry-delay")
	backoff := delay == 0
	if backoff {
		delay = time.Second
	}
	for {
		resp, code, msg := c.follow(ctx, req)
		if retries <= 0 || !c.transient(resp, code) || ctx.Err() != nil {
			return resp, code, msg
		}
		if !c.o.Has("silent") {
			fmt.Fprintf(c.stderr, "Warning: Problem : %s. Will retry in %d seconds. %d retries left.%s", retryReason(resp, code), int(delay.Seconds()), retries, c.eol)
		}
		if !c.p.Sys.Sleep(ctx, delay) {
			return resp, code, msg
		}
		retries--
		if backoff {
			delay *= 2
		}
	}
}

func firstOf(o Parsed, key, def string) string {
	if v, ok := o.Value(key); ok {
		return v
	}
	return def
}

// transient is curl's idea of a problem worth retrying.
func (c *curlRun) transient(resp *winutil.Response, code int) bool {
	switch {
	case c.o.Has("retry-all-errors"):
		return code != 0 || (resp != nil && resp.StatusCode >= 400)
	case code == 28:
		return true
	case code == 7:
		return c.o.Has("retry-connrefused")
	case resp != nil:
		switch resp.StatusCode {
		case 408, 429, 500, 502, 503, 504:
			return true
		}
	}
	return false
}

func retryReason(resp *winutil.Response, code int) string {
	if code == 28 {
		return "timeout"
	}
	if resp != nil {
		return "HTTP error"
	}
	return "connection refused"
}

// follow makes the request and, with -L, the ones its redirects name.
func (c *curlRun) follow(ctx context.Context, req winutil.Request) (*winutil.Response, int, string) {
	maxTime, _ := c.seconds("max-time")
	req.Timeout = maxTime
	req.ConnectTimeout, _ = c.seconds("connect-timeout")
	limit, _ := strconv.Atoi(firstOf(c.o, "max-redirs", "50"))
	c.redirs = 0
	for {
		start := c.p.Sys.Clock.Now()
		c.final = req.URL
		c.verbose(req, nil)
		resp, err := winutil.Get(ctx, c.p.Sys, req)
		if err != nil {
			code, msg := curlError(err, req.URL, maxTime, c.p.Sys.Clock.Now().Sub(start))
			return nil, code, msg
		}
		c.verbose(req, resp)
		loc := resp.Header.Get("Location")
		if !c.o.Has("location") || loc == "" || resp.StatusCode/100 != 3 {
			return resp, 0, ""
		}
		if limit >= 0 && c.redirs >= limit {
			return resp, 47, fmt.Sprintf("Maximum (%d) redirects followed", limit)
		}
		c.redirs++
		base, _ := url.Parse(req.URL)
		next, err := base.Parse(loc)
		if err != nil {
			return resp, 3, "URL rejected: Malformed input to a URL function"
		}
		req.URL = next.String()
		if resp.StatusCode <= 303 && req.Method == "POST" && !c.o.Has("request") {
			req.Method, req.Body = "GET", nil
		}
	}
}

// output writes the answer where -o/-O/-D/-i say, and words -f.
func (c *curlRun) output(resp *winutil.Response, rawURL string) int {
	if d, ok := c.o.Value("dump-header"); ok {
		if code := c.writeTo(d, []byte(headerText(resp))); code != 0 {
			return code
		}
	}
	if c.o.Has("fail") && resp.StatusCode >= 400 {
		return c.fail(22, fmt.Sprintf("The requested URL returned error: %d", resp.StatusCode))
	}
	var body []byte
	if c.o.Has("head") || c.o.Has("include") {
		body = []byte(headerText(resp))
	}
	if !c.o.Has("head") {
		body = append(body, resp.Body...)
	}
	if code := c.writeTo(c.target(rawURL), body); code != 0 {
		return code
	}
	if c.o.Has("fail-with-body") && resp.StatusCode >= 400 {
		return c.fail(22, fmt.Sprintf("The requested URL returned error: %d", resp.StatusCode))
	}
	return 0
}

// target is the output file -o or -O names, "-" for stdout.
func (c *curlRun) target(rawURL string) string {
	name, ok := c.o.Value("output")
	if !ok && c.o.Has("remote-name") {
		u, _ := url.Parse(rawURL)
		if u != nil {
			name = path.Base(u.Path)
		}
	}
	if name == "" {
		return "-"
	}
	if dir, ok := c.o.Value("output-dir"); ok && name != "-" && !path.IsAbs(name) {
		name = path.Join(dir, name)
	}
	return name
}

func (c *curlRun) writeTo(name string, data []byte) int {
	if name == "-" {
		c.p.Stdout.Write(data)
		return 0
	}
	f, err := c.create(name)
	if err != nil {
		return c.fail(23, "Failure writing output to destination")
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return c.fail(23, "Failure writing output to destination")
	}
	return 0
}

func (c *curlRun) create(name string) (io.WriteCloser, error) {
	fs := c.p.Sys.FS
	full := fs.Abs(c.p.Dir, name)
	if c.o.Has("create-dirs") {
		fs.MkdirAll(path.Dir(strings.ReplaceAll(full, `\`, "/")), 0o755)
	}
	return fs.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
}

// verbose is -v's trace: the request sent (resp nil) or the answer.
func (c *curlRun) verbose(req winutil.Request, resp *winutil.Response) {
	if !c.o.Has("verbose") {
		return
	}
	if resp != nil {
		for _, l := range strings.Split(strings.TrimSuffix(headerText(resp), "\r\n"), "\r\n") {
			fmt.Fprintf(c.stderr, "< %s%s", l, c.eol)
		}
		return
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return
	}
	method := req.Method
	if method == "" {
		method = "GET"
	}
	fmt.Fprintf(c.stderr, "> %s %s HTTP/1.1%s> Host: %s%s>%s", method, u.RequestURI(), c.eol, u.Host, c.eol, c.eol)
}

func headerText(r *winutil.Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\r\n", r.Proto, r.Status)
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range r.Header[k] {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n")
	return b.String()
}

func curlError(err error, rawURL string, maxTime, took time.Duration) (int, string) {
	host, port := winutil.Host(rawURL), winutil.Port(rawURL)
	ms := took.Milliseconds()
	switch {
	case errors.Is(err, winutil.ErrURL):
		return 3, "URL rejected: Bad hostname"
	case errors.Is(err, winutil.ErrResolve):
		return 6, "Could not resolve host: " + host
	case errors.Is(err, winutil.ErrTimeout) && maxTime > 0 && took >= maxTime:
		return 28, fmt.Sprintf("Operation timed out after %d milliseconds with 0 bytes received", ms)
	case errors.Is(err, winutil.ErrTimeout):
		return 28, fmt.Sprintf("Failed to connect to %s port %s after %d ms: Timeout was reached", host, port, ms)
	case errors.Is(err, winutil.ErrTLS):
		return 60, "SSL certificate problem: unable to get local issuer certificate"
	}
	return 7, fmt.Sprintf("Failed to connect to %s port %s after %d ms: Couldn't connect to server", host, port, ms)
}
