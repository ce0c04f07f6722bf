// Package streams is .NET's System.IO stream readers and writers and
// System.Text's encodings as scripts use them ([Text.Encoding]::UTF8,
// New-Object IO.StreamReader over a request's InputStream). It
// registers the types with the engine when imported.
package streams

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func init() {
	for _, t := range []string{"io.streamreader", "io.streamwriter"} {
		engine.RegisterConstructor(t, func(_ *engine.Interp, typ string, args []any) (any, error) {
			s, ok := engine.FirstArg(args).(stream)
			if !ok {
				return nil, &values.NotEmulatedError{What: "a " + typ + " over anything but an HttpListener stream"}
			}
			enc := Encodings["utf8"]
			if len(args) > 1 {
				if e, ok := args[1].(*Encoding); ok {
					enc = e
				}
			}
			if engine.CanonicalType(typ) == "io.streamreader" {
				return newStreamReader(s, enc), nil
			}
			return newStreamWriter(s, enc), nil
		})
	}
}

// stream is a System.IO.Stream the interpreter can read or write: a
// request's InputStream, a response's OutputStream.
type stream interface {
	values.NetObject
	Read(b []byte) (int, error) // io.Reader's contract
	Write(b []byte) error
	Close() error
}

// StreamMethod is the Stream methods scripts call.
func StreamMethod(s stream, name string, args []any) (any, bool, error) {
	switch name {
	case "write":
		if len(args) != 3 {
			return nil, true, overloadError("Write", len(args))
		}
		b, off, n, err := bufferArgs(args)
		if err != nil {
			return nil, true, err
		}
		return nil, true, s.Write(b[off : off+n])
	case "writebyte":
		return nil, true, s.Write(values.BytesOf(args[:1]))
	case "read":
		if len(args) != 3 {
			return nil, true, overloadError("Read", len(args))
		}
		buf, _ := args[0].([]any)
		_, off, n, err := bufferArgs(args)
		if err != nil {
			return nil, true, err
		}
		tmp := make([]byte, n)
		got, rerr := s.Read(tmp)
		if rerr != nil && rerr != io.EOF {
			return nil, true, rerr
		}
		for k := 0; k < got; k++ {
			buf[off+k] = int(tmp[k])
		}
		return got, true, nil
	case "readbyte":
		b := make([]byte, 1)
		if n, _ := s.Read(b); n == 0 {
			return -1, true, nil
		}
		return int(b[0]), true, nil
	case "copyto":
		dst, ok := args[0].(stream)
		if !ok {
			return nil, true, overloadError("CopyTo", len(args))
		}
		b, err := readAll(s)
		if err != nil {
			return nil, true, err
		}
		return nil, true, dst.Write(b)
	case "flush":
		return nil, true, nil
	case "close", "dispose":
		return nil, true, s.Close()
	}
	return nil, false, nil
}

// bufferArgs checks (byte[] buffer, int offset, int count) as .NET does.
func bufferArgs(args []any) ([]byte, int, int, error) {
	if args[0] == nil {
		return nil, 0, 0, values.Exception("ArgumentNullException", "Value cannot be null.%s", values.ParamName("buffer"))
	}
	b := values.BytesOf(args[:1])
	off, _ := values.ToInt(args[1])
	n, _ := values.ToInt(args[2])
	if off < 0 || n < 0 || off+n > len(b) {
		return nil, 0, 0, values.Exception("ArgumentOutOfRangeException", "Specified argument was out of the range of valid values.%s", values.ParamName("size"))
	}
	return b, off, n, nil
}

func readAll(s stream) ([]byte, error) {
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := s.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF || n == 0 && err == nil {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// overloadError is PowerShell's answer to a .NET method called with an
// argument count it has no overload for.
func overloadError(method string, n int) error {
	return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: fmt.Sprintf("Cannot find an overload for %q and the argument count: \"%d\".", method, n),
		Category: "NotSpecified", Reason: "MethodException", Fqid: "MethodCountCouldNotFindBest"}}
}

// MemStream is a read-only stream over bytes in memory (a request body).
type MemStream struct {
	values.Dotnet
	Data []byte
	pos  int
}

func (s *MemStream) Read(b []byte) (int, error) {
	if s.pos >= len(s.Data) {
		return 0, io.EOF
	}
	n := copy(b, s.Data[s.pos:])
	s.pos += n
	return n, nil
}

func (s *MemStream) Write([]byte) error {
	return values.Exception("NotSupportedException", "The stream does not support writing.")
}
func (s *MemStream) Close() error { return nil }

func (s *MemStream) GetProp(name string) (any, bool) {
	switch name {
	case "canread":
		return true, true
	case "canwrite", "canseek", "cantimeout":
		return false, true
	case "length":
		return len(s.Data), true
	case "position":
		return s.pos, true
	}
	return nil, false
}

func (s *MemStream) CallMethod(_ context.Context, name string, args []any) (any, bool, error) {
	return StreamMethod(s, name, args)
}

// streamReader is System.IO.StreamReader over a stream.
type streamReader struct {
	values.Dotnet
	s    stream
	enc  *Encoding
	text []rune // decoded and not yet read; read fills it at once
	read bool
}

func newStreamReader(s stream, enc *Encoding) *streamReader {
	return &streamReader{Dotnet: values.Dotnet{Typ: "System.IO.StreamReader"}, s: s, enc: enc}
}

func (r *streamReader) fill() error {
	if r.read {
		return nil
	}
	r.read = true
	b, err := readAll(r.s)
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		b = b[3:]
	}
	r.text = []rune(r.enc.decode(b))
	return err
}

func (r *streamReader) GetProp(name string) (any, bool) {
	switch name {
	case "endofstream":
		r.fill()
		return len(r.text) == 0, true
	case "basestream":
		return r.s, true
	case "currentencoding":
		return r.enc, true
	}
	return nil, false
}

func (r *streamReader) CallMethod(_ context.Context, name string, _ []any) (any, bool, error) {
	switch name {
	case "readtoend", "readline", "read", "peek":
	case "close", "dispose":
		return nil, true, r.s.Close()
	default:
		return nil, false, nil
	}
	if err := r.fill(); err != nil {
		return nil, true, err
	}
	switch name {
	case "readtoend":
		s := string(r.text)
		r.text = nil
		return s, true, nil
	case "readline":
		if len(r.text) == 0 {
			return nil, true, nil
		}
		s := string(r.text)
		line, rest, _ := strings.Cut(s, "\n")
		r.text = []rune(rest)
		return strings.TrimSuffix(line, "\r"), true, nil
	}
	if len(r.text) == 0 {
		return -1, true, nil
	}
	c := int(r.text[0])
	if name == "read" {
		r.text = r.text[1:]
	}
	return c, true, nil
}

// streamWriter is System.IO.StreamWriter over a stream: text is kept
// until Flush or Close (or every write with AutoFlush), so a response
// closed before its writer loses the text, as in .NET.
type streamWriter struct {
	values.Dotnet
	s         stream
	enc       *Encoding
	buf       strings.Builder
	autoFlush bool
	newLine   string
}

func newStreamWriter(s stream, enc *Encoding) *streamWriter {
	return &streamWriter{Dotnet: values.Dotnet{Typ: "System.IO.StreamWriter"}, s: s, enc: enc, newLine: "\r\n"}
}

func (w *streamWriter) GetProp(name string) (any, bool) {
	switch name {
	case "autoflush":
		return w.autoFlush, true
	case "newline":
		return w.newLine, true
	case "basestream":
		return w.s, true
	case "encoding":
		return w.enc, true
	}
	return nil, false
}

func (w *streamWriter) SetProp(name string, v any) error {
	switch strings.ToLower(name) {
	case "autoflush":
		w.autoFlush = values.ToBool(v)
		return nil
	case "newline":
		w.newLine = values.ToStr(v)
		return nil
	}
	return values.NoSetter(name)
}

func (w *streamWriter) Flush() error {
	if w.buf.Len() == 0 {
		return nil
	}
	b := w.enc.Encode(w.buf.String())
	w.buf.Reset()
	return w.s.Write(b)
}

func (w *streamWriter) CallMethod(_ context.Context, name string, args []any) (any, bool, error) {
	text := ""
	if len(args) > 0 {
		text = values.ToStr(args[0])
	}
	if len(args) > 1 {
		text = dotnet.FormatOp(text, args[1:])
	}
	switch name {
	case "write", "writeline":
		w.buf.WriteString(text)
		if name == "writeline" {
			w.buf.WriteString(w.newLine)
		}
		if w.autoFlush {
			return nil, true, w.Flush()
		}
		return nil, true, nil
	case "flush":
		return nil, true, w.Flush()
	case "close", "dispose":
		if err := w.Flush(); err != nil {
			return nil, true, err
		}
		return nil, true, w.s.Close()
	}
	return nil, false, nil
}
