package winexe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// curlOpts are the curl flags the emulation follows.
type curlOpts struct {
	url, output, writeOut, method string
	silent, showErr, fail, head   bool
	include, insecure             bool
	maxTime, connectTimeout       time.Duration
}

// Curl is curl (curl.exe on Windows): an HTTP request through the pod's
// network. Its messages end lines as the OS's C runtime does; the header
// lines of -i are the protocol's CRLF everywhere.
func Curl(ctx context.Context, p *program.Proc) int {
	eol := lineEnd(p.Sys)
	o, err := curlArgs(p.Args[1:])
	if err != nil {
		fmt.Fprintf(p.Stderr, "curl: %v%scurl: try 'curl --help' for more information%s", err, eol, eol)
		return 2
	}
	if o.url == "" {
		fmt.Fprint(p.Stderr, "curl: no URL specified"+eol+"curl: try 'curl --help' for more information"+eol)
		return 2
	}
	method := o.method
	if o.head {
		method = "HEAD"
	}
	start := p.Sys.Clock.Now()
	resp, err := winutil.Get(ctx, p.Sys, winutil.Request{Method: method, URL: o.url, Insecure: o.insecure,
		Timeout: o.maxTime, ConnectTimeout: o.connectTimeout})
	if ctx.Err() != nil {
		return 1
	}
	if err != nil {
		code, msg := curlError(err, o, p.Sys.Clock.Now().Sub(start))
		if !o.silent || o.showErr {
			fmt.Fprintf(p.Stderr, "curl: (%d) %s%s", code, msg, eol)
		}
		return code
	}
	if o.fail && resp.StatusCode >= 400 {
		if !o.silent || o.showErr {
			fmt.Fprintf(p.Stderr, "curl: (22) The requested URL returned error: %d%s", resp.StatusCode, eol)
		}
		return 22
	}
	var out io.Writer = p.Stdout
	if o.output != "" && o.output != "-" {
		f, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, o.output), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			fmt.Fprintf(p.Stderr, "curl: (23) Failure writing output to destination%s", eol)
			return 23
		}
		defer f.Close()
		out = f
	}
	if o.head || o.include {
		io.WriteString(out, headerText(resp))
	}
	if !o.head {
		out.Write(resp.Body)
	}
	if o.writeOut != "" {
		io.WriteString(p.Stdout, strings.NewReplacer(`%{http_code}`, strconv.Itoa(resp.StatusCode), `%{response_code}`, strconv.Itoa(resp.StatusCode),
			`%{size_download}`, strconv.Itoa(len(resp.Body)), `\n`, "\n", `\r`, "\r", `\t`, "\t").Replace(o.writeOut))
	}
	return 0
}

// lineEnd is how a program's text lines end: CRLF on Windows, where the
// C runtime writes stderr in text mode, LF elsewhere.
func lineEnd(sys *program.Sys) string {
	if sys.Windows {
		return nl
	}
	return "\n"
}

func headerText(r *winutil.Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s%s", r.Proto, r.Status, nl)
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range r.Header[k] {
			fmt.Fprintf(&b, "%s: %s%s", k, v, nl)
		}
	}
	b.WriteString(nl)
	return b.String()
}

func curlError(err error, o curlOpts, took time.Duration) (int, string) {
	host := winutil.Host(o.url)
	port := winutil.Port(o.url)
	ms := took.Milliseconds()
	switch {
	case errors.Is(err, winutil.ErrURL):
		return 3, "URL rejected: Bad hostname"
	case errors.Is(err, winutil.ErrResolve):
		return 6, "Could not resolve host: " + host
	case errors.Is(err, winutil.ErrTimeout) && o.maxTime > 0 && took >= o.maxTime:
		return 28, fmt.Sprintf("Operation timed out after %d milliseconds with 0 bytes received", ms)
	case errors.Is(err, winutil.ErrTimeout):
		return 28, fmt.Sprintf("Failed to connect to %s port %s after %d ms: Timeout was reached", host, port, ms)
	case errors.Is(err, winutil.ErrTLS):
		return 60, "SSL certificate problem: unable to get local issuer certificate"
	}
	return 7, fmt.Sprintf("Failed to connect to %s port %s after %d ms: Couldn't connect to server", host, port, ms)
}

// curlArgs reads curl's flags; short ones may be bundled (-sSf).
func curlArgs(args []string) (curlOpts, error) {
	var o curlOpts
	for k := 0; k < len(args); k++ {
		a := args[k]
		value := func() (string, error) {
			if k+1 >= len(args) {
				return "", fmt.Errorf("option %s: requires parameter", a)
			}
			k++
			return args[k], nil
		}
		seconds := func() (time.Duration, error) {
			v, err := value()
			if err != nil {
				return 0, err
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("option %s: expected a proper numerical parameter", a)
			}
			return time.Duration(f * float64(time.Second)), nil
		}
		var err error
		switch a {
		case "--silent":
			o.silent = true
		case "--show-error":
			o.showErr = true
		case "--fail", "--fail-with-body":
			o.fail = true
		case "--head":
			o.head = true
		case "--include":
			o.include = true
		case "--insecure":
			o.insecure = true
		case "--output":
			o.output, err = value()
		case "--write-out":
			o.writeOut, err = value()
		case "--request":
			o.method, err = value()
		case "--max-time":
			o.maxTime, err = seconds()
		case "--connect-timeout":
			o.connectTimeout, err = seconds()
		case "--location", "--verbose", "--ipv4", "--compressed", "--no-progress-meter":
		default:
			if !strings.HasPrefix(a, "-") || a == "-" {
				o.url = a
				continue
			}
			if strings.HasPrefix(a, "--") {
				return o, fmt.Errorf("option %s: is unknown", a)
			}
			err = o.shortFlags(a, value, seconds)
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

func (o *curlOpts) shortFlags(a string, value func() (string, error), seconds func() (time.Duration, error)) error {
	var err error
	for _, c := range a[1:] {
		switch c {
		case 's':
			o.silent = true
		case 'S':
			o.showErr = true
		case 'f':
			o.fail = true
		case 'I':
			o.head = true
		case 'i':
			o.include = true
		case 'k':
			o.insecure = true
		case 'L', 'v', '4', '6':
		case 'o':
			o.output, err = value()
		case 'w':
			o.writeOut, err = value()
		case 'X':
			o.method, err = value()
		case 'm':
			o.maxTime, err = seconds()
		default:
			return fmt.Errorf("option -%c: is unknown", c)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
