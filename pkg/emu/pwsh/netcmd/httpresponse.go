package netcmd

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/streams"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// listenerResponse is an HttpListenerResponse. The body is kept until
// Close (or OutputStream.Close), which sends status line, headers and
// body in one piece: Content-Length is ContentLength64 when set, else
// what was written.
type listenerResponse struct {
	values.Dotnet
	ex        *exchange
	i         *engine.Interp
	status    int
	desc      string // StatusDescription when set
	headers   *values.NameValues
	length    int // ContentLength64; -1 until set
	keepAlive bool
	chunked   bool
	encoding  any
	body      bytes.Buffer
	sent      bool
	out       *outputStream
	ignore    bool // the listener's IgnoreWriteExceptions
}

func newListenerResponse(ex *exchange, i *engine.Interp) *listenerResponse {
	r := &listenerResponse{Dotnet: values.Dotnet{Typ: "System.Net.HttpListenerResponse"}, ex: ex, i: i, status: 200,
		headers: values.NewNameValues(true), length: -1, keepAlive: true}
	r.out = &outputStream{Dotnet: values.Dotnet{Typ: "System.Net.HttpResponseStream"}, r: r}
	return r
}

func (r *listenerResponse) GetProp(name string) (any, bool) {
	header := func(n string) any {
		if v, ok := r.headers.Get(n); ok {
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
		return values.NewRecord("System.Version", "1.1", "Major", 1, "Minor", 1), true
	case "cookies":
		return []any{}, true
	}
	return nil, false
}

func (r *listenerResponse) SetProp(name string, v any) error {
	lower := strings.ToLower(name)
	if r.sent && lower != "statusdescription" {
		return values.SetterError(name, &values.DotnetException{Typ: "InvalidOperationException", Msg: "Cannot be changed after headers are sent."})
	}
	switch lower {
	case "statuscode":
		n, ok := values.ToInt(v)
		if !ok || n < 100 || n > 999 {
			return values.SetterError(name, &values.DotnetException{Typ: "ProtocolViolationException", Msg: "The status code must be exactly three digits."})
		}
		r.status = n
	case "statusdescription":
		r.desc = values.ToStr(v)
	case "contenttype", "redirectlocation":
		h := map[string]string{"contenttype": "Content-Type", "redirectlocation": "Location"}[lower]
		if s := values.ToStr(v); s == "" {
			r.headers.Remove(h)
		} else {
			r.headers.Set(h, s)
		}
	case "contentlength64":
		n, ok := values.ToInt(v)
		if !ok || n < 0 {
			return values.SetterError(name, &values.DotnetException{Typ: "ArgumentOutOfRangeException", Msg: "The value must be greater than or equal to zero."})
		}
		r.length = n
	case "contentencoding":
		r.encoding = v
	case "keepalive":
		r.keepAlive = values.ToBool(v)
	case "sendchunked":
		r.chunked = values.ToBool(v)
	case "headers", "outputstream", "cookies", "protocolversion":
		return values.ReadOnly(name)
	default:
		return values.NoSetter(name)
	}
	return nil
}

func (r *listenerResponse) CallMethod(_ context.Context, name string, args []any) (any, bool, error) {
	arg := func(k int) string {
		if k < len(args) {
			return values.ToStr(args[k])
		}
		return ""
	}
	switch name {
	case "close", "dispose":
		if len(args) > 0 && !r.sent { // Close(byte[] responseEntity, bool willBlock)
			b := values.BytesOf(args[:1])
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
		r.headers.Set(arg(0), arg(1))
		return nil, true, nil
	case "appendheader":
		r.headers.Add(arg(0), arg(1))
		return nil, true, nil
	case "redirect":
		r.headers.Set("Location", arg(0))
		r.status, r.desc = 302, "Found"
		return nil, true, nil
	}
	return nil, false, nil
}

// Write adds to the body, within ContentLength64 when it is set.
func (r *listenerResponse) Write(b []byte) error {
	if r.sent {
		return values.Exception("ObjectDisposedException", "Cannot access a disposed object.\r\nObject name: 'System.Net.HttpListenerResponse'.")
	}
	if r.length >= 0 && r.body.Len()+len(b) > r.length {
		return values.Exception("ProtocolViolationException", "Bytes to be written to the stream exceed the Content-Length bytes size specified.")
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
	for _, n := range r.headers.Names {
		switch strings.ToLower(n) {
		case "content-length", "transfer-encoding", "date", "connection", "keep-alive":
			continue
		case "server":
			v, _ := r.headers.Get(n)
			server = v + " " + serverHeader
			continue
		}
		for _, v := range r.headers.Vals[strings.ToLower(n)] {
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
		return values.Exception("HttpListenerException", "An operation was attempted on a nonexistent network connection")
	}
	return nil
}

func (r *listenerResponse) now() string {
	if r.i.Sys.Clock == nil {
		return ""
	}
	return r.i.Sys.Clock.Now().UTC().Format(http.TimeFormat)
}

// outputStream is the response's OutputStream; closing it sends the
// response, as in .NET.
type outputStream struct {
	values.Dotnet
	r *listenerResponse
}

func (s *outputStream) Write(b []byte) error { return s.r.Write(b) }
func (s *outputStream) Read([]byte) (int, error) {
	return 0, values.Exception("NotSupportedException", "The stream does not support reading.")
}
func (s *outputStream) Close() error { return s.r.finish() }

func (s *outputStream) GetProp(name string) (any, bool) {
	switch name {
	case "canwrite":
		return !s.r.sent, true
	case "canread", "canseek", "cantimeout":
		return false, true
	}
	return nil, false
}

func (s *outputStream) CallMethod(ctx context.Context, name string, args []any) (any, bool, error) {
	return streams.StreamMethod(s, name, args)
}
