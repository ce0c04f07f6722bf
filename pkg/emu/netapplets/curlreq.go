package netapplets

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

var errReadData = errors.New("(26) Failed to open/read local data from file/application")

// request is the HTTP request the options describe for one URL.
func (c *curlRun) request(raw string) (winutil.Request, error) {
	req := winutil.Request{URL: raw, Insecure: c.o.Has("insecure"), Header: http.Header{}}
	data, hasData, err := c.postData()
	if err != nil {
		return req, err
	}
	switch {
	case hasData && c.o.Has("get"):
		req.URL = appendQuery(raw, data)
	case hasData:
		req.Method, req.Body = "POST", []byte(data)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if err := c.uploads(&req); err != nil {
		return req, err
	}
	c.headerOptions(req.Header)
	for _, h := range c.o.Values("header") {
		addHeader(req.Header, h)
	}
	if c.o.Has("head") {
		req.Method = "HEAD"
	}
	if m, ok := c.o.Value("request"); ok {
		req.Method = m
	}
	c.resolveOverride(&req)
	return req, nil
}

// postData joins -d and its kin with '&', as curl does.
func (c *curlRun) postData() (string, bool, error) {
	var parts []string
	for _, k := range []string{"data", "data-ascii", "data-binary", "data-raw", "data-urlencode", "json"} {
		for _, v := range c.o.Values(k) {
			s, err := c.dataValue(k, v)
			if err != nil {
				return "", false, err
			}
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "&"), len(parts) > 0, nil
}

func (c *curlRun) dataValue(key, v string) (string, error) {
	switch key {
	case "data-raw":
		return v, nil
	case "data-urlencode":
		if name, content, ok := strings.Cut(v, "="); ok {
			return name + "=" + url.QueryEscape(content), nil
		}
		return url.QueryEscape(v), nil
	}
	if !strings.HasPrefix(v, "@") {
		return v, nil
	}
	b, err := c.readFile(v[1:])
	if err != nil {
		return "", errReadData
	}
	if key == "data" || key == "data-ascii" {
		b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r"), nil), []byte("\n"), nil)
	}
	return string(b), nil
}

func (c *curlRun) readFile(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(c.p.Stdin)
	}
	f, err := c.p.Sys.FS.OpenFile(c.p.Sys.FS.Abs(c.p.Dir, name), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// uploads are -T (PUT a file) and -F (a multipart form).
func (c *curlRun) uploads(req *winutil.Request) error {
	if f, ok := c.o.Value("upload-file"); ok {
		b, err := c.readFile(f)
		if err != nil {
			return errReadData
		}
		req.Method, req.Body = "PUT", b
	}
	forms := c.o.Values("form")
	if len(forms) == 0 {
		return nil
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range forms {
		name, content, _ := strings.Cut(f, "=")
		if strings.HasPrefix(content, "@") {
			b, err := c.readFile(content[1:])
			if err != nil {
				return errReadData
			}
			part, _ := w.CreateFormFile(name, content[1:])
			part.Write(b)
			continue
		}
		w.WriteField(name, content)
	}
	w.Close()
	req.Method, req.Body = "POST", buf.Bytes()
	req.Header.Set("Content-Type", w.FormDataContentType())
	return nil
}

// headerOptions are the options that set one header each.
func (c *curlRun) headerOptions(h http.Header) {
	if v, ok := c.o.Value("user-agent"); ok {
		h.Set("User-Agent", v)
	}
	if v, ok := c.o.Value("referer"); ok {
		h.Set("Referer", v)
	}
	if v, ok := c.o.Value("user"); ok {
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(v)))
	}
	if v, ok := c.o.Value("cookie"); ok && strings.Contains(v, "=") {
		h.Set("Cookie", v)
	}
	if v, ok := c.o.Value("range"); ok {
		h.Set("Range", "bytes="+v)
	}
	if c.o.Has("json") {
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json")
	}
}

// addHeader is -H: "Name: value" sets, "Name:" removes, "Name;" sends
// it empty.
func addHeader(h http.Header, line string) {
	if name, ok := strings.CutSuffix(line, ";"); ok && !strings.Contains(name, ":") {
		h[http.CanonicalHeaderKey(name)] = []string{" "}
		return
	}
	name, value, ok := strings.Cut(line, ":")
	if !ok {
		return
	}
	h[http.CanonicalHeaderKey(strings.TrimSpace(name))] = []string{strings.TrimSpace(value)}
}

// resolveOverride is --resolve HOST:PORT:ADDR: the URL's host connects
// to ADDR while the request still names HOST.
func (c *curlRun) resolveOverride(req *winutil.Request) {
	u, err := url.Parse(req.URL)
	if err != nil {
		return
	}
	port := winutil.Port(req.URL)
	for _, r := range c.o.Values("resolve") {
		f := strings.SplitN(strings.TrimPrefix(r, "+"), ":", 3)
		if len(f) == 3 && f[0] == u.Hostname() && f[1] == port {
			if req.Header.Get("Host") == "" {
				req.Header.Set("Host", u.Host)
			}
			u.Host = f[2] + ":" + port
			req.URL = u.String()
		}
	}
}

func appendQuery(raw, data string) string {
	if strings.Contains(raw, "?") {
		return raw + "&" + data
	}
	return raw + "?" + data
}

// writeOut is -w: the format with its %{variables} filled in.
func (c *curlRun) writeOut(resp *winutil.Response, rawURL string, code int, errmsg string) {
	format, ok := c.o.Value("write-out")
	if !ok {
		return
	}
	if f, isFile := strings.CutPrefix(format, "@"); isFile {
		b, err := c.readFile(f)
		if err != nil {
			return
		}
		format = string(b)
	}
	vars := c.variables(resp, rawURL, code, errmsg)
	var w io.Writer = c.p.Stdout
	for len(format) > 0 {
		var lit string
		lit, format = expandNext(format, vars, resp, &w, c)
		io.WriteString(w, lit)
	}
}

// expandNext takes one literal piece or variable off the front of format.
func expandNext(format string, vars map[string]string, resp *winutil.Response, w *io.Writer, c *curlRun) (string, string) {
	switch {
	case strings.HasPrefix(format, "%%"):
		return "%", format[2:]
	case strings.HasPrefix(format, `\`) && len(format) > 1:
		esc := map[byte]string{'n': "\n", 'r': "\r", 't': "\t", '\\': `\`}
		if s, ok := esc[format[1]]; ok {
			return s, format[2:]
		}
		return `\`, format[1:]
	case strings.HasPrefix(format, "%header{"), strings.HasPrefix(format, "%{"):
		end := strings.IndexByte(format, '}')
		if end < 0 {
			return format, ""
		}
		return c.variable(format[:end+1], vars, resp, w), format[end+1:]
	}
	return format[:1], format[1:]
}

func (c *curlRun) variable(tok string, vars map[string]string, resp *winutil.Response, w *io.Writer) string {
	if name, ok := strings.CutPrefix(tok, "%header{"); ok {
		if resp == nil {
			return ""
		}
		return resp.Header.Get(strings.TrimSuffix(name, "}"))
	}
	name := tok[2 : len(tok)-1]
	switch name {
	case "stdout":
		*w = c.p.Stdout
		return ""
	case "stderr":
		*w = c.stderr
		return ""
	}
	v, ok := vars[name]
	if !ok {
		fmt.Fprintf(c.stderr, "curl: unknown --write-out variable: '%s'%s", name, c.eol)
	}
	return v
}
