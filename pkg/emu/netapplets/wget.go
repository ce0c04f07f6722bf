package netapplets

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// wgetOptions is busybox wget's table (FEATURE_WGET_LONG_OPTIONS,
// FEATURE_WGET_TIMEOUT, DESKTOP): getopt32long with --name=VALUE.
var wgetOptions = Options{LongEquals: true, List: []Option{
	{Long: "spider", Help: "Only check URL existence: $? is 0 if exists"},
	{Long: "header", Arg: "STR", Help: "Add STR (of form 'header: value') to headers"},
	{Long: "post-data", Arg: "STR", Help: "Send STR using POST method"},
	{Long: "post-file", Arg: "FILE", Help: "Send FILE using POST method"},
	{Long: "no-check-certificate", Help: "Don't validate the server's certificate", Inert: true},
	{Short: 'c', Long: "continue", Help: "Continue retrieval of aborted transfer", Inert: true},
	{Short: 'q', Long: "quiet", Help: "Quiet"},
	{Short: 'P', Long: "directory-prefix", Arg: "DIR", Help: "Save to DIR (default .)"},
	{Short: 'S', Long: "server-response", Help: "Show server response"},
	{Short: 'T', Long: "timeout", Arg: "SEC", Help: "Network read timeout is SEC seconds"},
	{Short: 'O', Long: "output-document", Arg: "FILE", Help: "Save to FILE ('-' for stdout)"},
	{Short: 'o', Long: "output-file", Arg: "LOGFILE", Help: "Log messages to FILE"},
	{Short: 'U', Long: "user-agent", Arg: "STR", Help: "Use STR for User-Agent header"},
	{Short: 'Y', Long: "proxy", Arg: "on/off", Help: "Use proxy", Inert: true},
	// Accepted and ignored, as busybox does.
	{Short: 't', Long: "tries", Arg: "N", Inert: true},
	{Short: 'n', Optional: true, Inert: true}, // -nv, -nc, -nH, -nd
	{Long: "passive-ftp", Inert: true},
	{Long: "no-cache", Inert: true},
	{Long: "no-verbose", Inert: true},
	{Long: "no-clobber", Inert: true},
	{Long: "no-host-directories", Inert: true},
	{Long: "no-parent", Inert: true},
}}

const wgetTrivial = "[-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n\t[--post-data STR | --post-file FILE] [-Y on/off]\n\t[--no-check-certificate] [-P DIR] [-U AGENT] [-T SEC] URL..."

// Wget is busybox's wget over the pod network (http URLs).
func Wget(ctx context.Context, p *program.Proc) int {
	o, err := wgetOptions.Parse(p.Args[1:])
	if err != nil {
		bbOptionError(p, err)
		return 1
	}
	if len(o.Args) == 0 {
		busyboxUsage(p, wgetTrivial, "Retrieve files via HTTP or FTP\n\n\t--spider\tOnly check URL existence: $? is 0 if exists", wgetOptions)
		return 1
	}
	w := &wgetRun{p: p, o: o, log: p.Stderr}
	if f, ok := o.Value("output-file"); ok {
		lf, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, f), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return w.errorf("can't open '%s': %s", f, program.ErrorText(err, false))
		}
		defer lf.Close()
		w.log = lf
	}
	if t, ok := o.Value("timeout"); ok {
		d, valid := seconds(t)
		if !valid {
			return w.errorf("invalid number '%s'", t)
		}
		var cancel context.CancelFunc
		ctx, cancel = ClockTimeout(ctx, p, d)
		defer cancel()
	}
	status := 0
	for _, u := range o.Args {
		if code := w.fetch(ctx, u); code != 0 {
			status = code
		}
	}
	return status
}

type wgetRun struct {
	p   *program.Proc
	o   Parsed
	log io.Writer
}

func (w *wgetRun) errorf(format string, args ...any) int {
	fmt.Fprintf(w.p.Stderr, "wget: "+format+"\n", args...)
	return 1
}

func (w *wgetRun) say(format string, args ...any) {
	if !w.o.Has("quiet") {
		fmt.Fprintf(w.log, format, args...)
	}
}

func (w *wgetRun) fetch(ctx context.Context, arg string) int {
	raw := arg
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" {
		return w.errorf("not an http or ftp url: %s", arg)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "80"
	}
	ip, err := lookup(ctx, w.p, host)
	if err != nil || w.p.Sys.Net == nil {
		return w.errorf("bad address '%s'", host)
	}
	target := net.JoinHostPort(ip, port)
	w.say("Connecting to %s (%s)\n", u.Host, target)
	conn, err := w.p.Sys.Net.Dial(ctx, "tcp", target)
	if err != nil {
		return w.errorf("can't connect to remote host (%s): %s", ip, ConnText(err))
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	code := w.exchange(u, conn)
	if code != 0 && ctx.Err() != nil {
		return w.errorf("download timed out")
	}
	return code
}

func (w *wgetRun) exchange(u *url.URL, conn io.ReadWriter) int {
	body, post, err := w.postBody()
	if err != nil {
		return w.errorf("can't open '%s': %s", body, program.ErrorText(err, false))
	}
	if _, err := io.WriteString(conn, w.requestText(u, body, post)); err != nil {
		return w.errorf("error getting response: %s", ConnText(err))
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return w.errorf("error getting response: %s", ConnText(err))
	}
	defer resp.Body.Close()
	if w.o.Has("server-response") {
		fmt.Fprintf(w.log, "  %s %s\n", resp.Proto, resp.Status)
		for k, vs := range resp.Header {
			for _, v := range vs {
				fmt.Fprintf(w.log, "  %s: %s\n", k, v)
			}
		}
	}
	if resp.StatusCode/100 != 2 {
		return w.errorf("server returned error: %s %s", resp.Proto, resp.Status)
	}
	if w.o.Has("spider") {
		w.say("remote file exists\n")
		return 0
	}
	return w.save(u, resp.Body)
}

// postBody is --post-data or the content of --post-file.
func (w *wgetRun) postBody() (string, bool, error) {
	if d, ok := w.o.Value("post-data"); ok {
		return d, true, nil
	}
	f, ok := w.o.Value("post-file")
	if !ok {
		return "", false, nil
	}
	file, err := w.p.Sys.FS.OpenFile(w.p.Sys.FS.Abs(w.p.Dir, f), os.O_RDONLY, 0)
	if err != nil {
		return f, false, err
	}
	defer file.Close()
	b, err := io.ReadAll(file)
	return string(b), true, err
}

func (w *wgetRun) requestText(u *url.URL, body string, post bool) string {
	agent, ok := w.o.Value("user-agent")
	if !ok {
		agent = "Wget"
	}
	var b strings.Builder
	method := "GET"
	if post {
		method = "POST"
	}
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\n", method, u.RequestURI(), u.Host, agent)
	for _, h := range w.o.Values("header") {
		fmt.Fprintf(&b, "%s\r\n", h)
	}
	b.WriteString("Connection: close\r\n")
	if post {
		fmt.Fprintf(&b, "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n" + body)
	return b.String()
}

func (w *wgetRun) save(u *url.URL, body io.Reader) int {
	dst, set := w.o.Value("output-document")
	if !set {
		dst = path.Base(u.Path)
		if dst == "/" || dst == "." || dst == "" {
			dst = "index.html"
		}
		if dir, ok := w.o.Value("directory-prefix"); ok {
			dst = path.Join(dir, dst)
		}
	}
	var out io.Writer = w.p.Stdout
	if dst != "-" {
		f, err := w.p.Sys.FS.OpenFile(w.p.Sys.FS.Abs(w.p.Dir, dst), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return w.errorf("can't open '%s': %s", dst, program.ErrorText(err, false))
		}
		defer f.Close()
		out = f
		w.say("saving to '%s'\n", dst)
	} else {
		w.say("writing to stdout\n")
	}
	if _, err := io.Copy(out, body); err != nil {
		return w.errorf("error getting response: %s", ConnText(err))
	}
	if dst == "-" {
		w.say("written to stdout\n")
	} else {
		w.say("'%s' saved\n", dst)
	}
	return 0
}
