package engine

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
)

// listenerResponse is an HttpListenerResponse. The body is kept until
// Close (or OutputStream.Close), which sends status line, headers and
// body in one piece: Content-Length is ContentLength64 when set, else
// what was written.
type listenerResponse struct {
	dotnet
	ex        *exchange
	i         *Interp
	status    int
	desc      string // StatusDescription when set
	headers   *nameValues
	length    int // ContentLength64; -1 until set
	keepAlive bool
	chunked   bool
	encoding  any
	body      bytes.Buffer
	sent      bool
	out       *outputStream
	ignore    bool // the listener's IgnoreWriteExceptions
}

func newListenerResponse(ex *exchange, i *Interp) *listenerResponse {
	r := &listenerResponse{dotnet: dotnet{"System.Net.HttpListenerResponse"}, ex: ex, i: i, status: 200,
		headers: newNameValues(true), length: -1, keepAlive: true}
	r.out = &outputStream{dotnet: dotnet{"System.Net.HttpResponseStream"}, r: r}
	return r
}

func (r *listenerResponse) getProp(name string) (any, bool) {
	header := func(n string) any {
		if v, ok := r.headers.get(n); ok {
			return v
		}
		return nil
	}
	switch name {
	case "statuscode":
		return r.status, true
	case "statusdescription":
		if r.desc == "" {
			return http.StatusText(r.status), true
		}
		return r.desc, true
	case "contenttype":
		return header("Content-Type"), true
	case "redirectlocation":
		return header("Location"), true
	case "contentlength64":
		return max(r.length, 0), true
	case "contentencoding":
		return r.encoding, true
	case "headers":
		return r.headers, true
	case "keepalive":
		return r.keepAlive, true
	case "sendchunked":
		return r.chunked, true
	case "outputstream":
		return r.out, true
	case "protocolversion":
		return newRecord("System.Version", "1.1", "Major", 1, "Minor", 1), true
	case "cookies":
		return []any{}, true
	}
	return nil, false
}

func (r *listenerResponse) setProp(name string, v any) error {
	lower := strings.ToLower(name)
	if r.sent && lower != "statusdescription" {
		return setterError(name, &dotnetException{"InvalidOperationException", "Cannot be changed after headers are sent."})
	}
	switch lower {
	case "statuscode":
		n, ok := toInt(v)
		if !ok || n < 100 || n > 999 {
			return setterError(name, &dotnetException{"ProtocolViolationException", "The status code must be exactly three digits."})
		}
		r.status = n
	case "statusdescription":
		r.desc = toStr(v)
	case "contenttype", "redirectlocation":
		h := map[string]string{"contenttype": "Content-Type", "redirectlocation": "Location"}[lower]
		if s := toStr(v); s == "" {
			r.headers.remove(h)
		} else {
			r.headers.set(h, s)
		}
	case "contentlength64":
		n, ok := toInt(v)
		if !ok || n < 0 {
			return setterError(name, &dotnetException{"ArgumentOutOfRangeException", "The value must be greater than or equal to zero."})
		}
		r.length = n
	case "contentencoding":
		r.encoding = v
	case "keepalive":
		r.keepAlive = toBool(v)
	case "sendchunked":
		r.chunked = toBool(v)
	case "headers", "outputstream", "cookies", "protocolversion":
		return readOnly(name)
	default:
		return noSetter(name)
	}
	return nil
}

func (r *listenerResponse) callMethod(_ context.Context, name string, args []any) (any, bool, error) {
	arg := func(k int) string {
		if k < len(args) {
			return toStr(args[k])
		}
		return ""
	}
	switch name {
	case "close", "dispose":
		if len(args) > 0 && !r.sent { // Close(byte[] responseEntity, bool willBlock)
			b := bytesOf(args[:1])
			r.length = len(b)
			r.body.Write(b)
		}
		return nil, true, r.finish()
	case "abort":
		if !r.sent {
			r.sent = true
			r.ex.reply <- reply{close: true}
		}
		return nil, true, nil
	case "addheader":
		r.headers.set(arg(0), arg(1))
		return nil, true, nil
	case "appendheader":
		r.headers.add(arg(0), arg(1))
		return nil, true, nil
	case "redirect":
		r.headers.set("Location", arg(0))
		r.status, r.desc = 302, "Found"
		return nil, true, nil
	}
	return nil, false, nil
}

// write adds to the body, within ContentLength64 when it is set.
func (r *listenerResponse) write(b []byte) error {
	if r.sent {
		return exception("ObjectDisposedException", "Cannot access a disposed object.\r\nObject name: 'System.Net.HttpListenerResponse'.")
	}
	if r.length >= 0 && r.body.Len()+len(b) > r.length {
		return exception("ProtocolViolationException", "Bytes to be written to the stream exceed the Content-Length bytes size specified.")
	}
	r.body.Write(b)
	return nil
}

// finish sends the response once and waits until it is written, as
// .NET's Close does; the connection then serves its next request unless
// either side asked to close it, or the body fell short of
// ContentLength64 (the client would wait for the rest). A client gone
// fails it, unless the listener ignores write exceptions.
func (r *listenerResponse) finish() error {
	if r.sent {
		return nil
	}
	r.sent = true
	body := r.body.Bytes()
	closing := !r.keepAlive || r.ex.req.Close || r.length > len(body)
	var b strings.Builder
	desc := r.desc
	if desc == "" {
		desc = http.StatusText(r.status)
	}
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", r.status, desc)
	server := serverHeader
	for _, n := range r.headers.names {
		switch strings.ToLower(n) {
		case "content-length", "transfer-encoding", "date", "connection", "keep-alive":
			continue
		case "server":
			v, _ := r.headers.get(n)
			server = v + " " + serverHeader
			continue
		}
		for _, v := range r.headers.vals[strings.ToLower(n)] {
			fmt.Fprintf(&b, "%s: %s\r\n", n, v)
		}
	}
	if r.chunked {
		b.WriteString("Transfer-Encoding: chunked\r\n")
	} else {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", max(r.length, len(body)))
	}
	fmt.Fprintf(&b, "Server: %s\r\nDate: %s\r\n", server, r.now())
	if closing {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	if r.ex.req.Method != http.MethodHead && r.status != 204 && r.status != 304 {
		if r.chunked {
			if len(body) > 0 {
				fmt.Fprintf(&b, "%x\r\n%s\r\n", len(body), body)
			}
			b.WriteString("0\r\n\r\n")
		} else {
			b.Write(body)
		}
	}
	r.ex.reply <- reply{data: []byte(b.String()), close: closing}
	select {
	case <-r.ex.written:
	case <-r.ex.stopped: // the container stops: the script ends anyway
		return nil
	}
	if r.ex.werr != nil && !r.ignore {
		return exception("HttpListenerException", "An operation was attempted on a nonexistent network connection")
	}
	return nil
}

func (r *listenerResponse) now() string {
	if r.i.sys.Clock == nil {
		return ""
	}
	return r.i.sys.Clock.Now().UTC().Format(http.TimeFormat)
}

// outputStream is the response's OutputStream; closing it sends the
// response, as in .NET.
type outputStream struct {
	dotnet
	r *listenerResponse
}

func (s *outputStream) write(b []byte) error { return s.r.write(b) }
func (s *outputStream) read([]byte) (int, error) {
	return 0, exception("NotSupportedException", "The stream does not support reading.")
}
func (s *outputStream) close() error { return s.r.finish() }

func (s *outputStream) getProp(name string) (any, bool) {
	switch name {
	case "canwrite":
		return !s.r.sent, true
	case "canread", "canseek", "cantimeout":
		return false, true
	}
	return nil, false
}

func (s *outputStream) callMethod(ctx context.Context, name string, args []any) (any, bool, error) {
	return streamMethod(s, name, args)
}
