package streams

import (
	"context"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func init() {
	for _, t := range []string{"text.utf8encoding", "text.asciiencoding", "text.unicodeencoding"} {
		engine.RegisterConstructor(t, func(_ *engine.Interp, typ string, _ []any) (any, error) {
			e, _ := encodingNamed(strings.TrimSuffix(strings.TrimPrefix(engine.CanonicalType(typ), "text."), "encoding"))
			return e, nil
		})
	}
	engine.RegisterStaticProperty("text.encoding", func(_ *engine.Interp, name string) (any, bool) {
		e, ok := encodingNamed(name)
		return e, ok
	})
	engine.RegisterStatic("text.encoding", getEncoding)
}

// getEncoding is [Text.Encoding]::GetEncoding(name).
func getEncoding(_ context.Context, _ *engine.Interp, name string, args []any) (any, bool, error) {
	if name != "getencoding" {
		return nil, false, nil
	}
	arg0 := ""
	if len(args) > 0 {
		arg0 = values.ToStr(args[0])
	}
	if e, ok := encodingNamed(strings.ReplaceAll(strings.ToLower(arg0), "-", "")); ok {
		return e, true, nil
	}
	if strings.EqualFold(arg0, "us-ascii") {
		return Encodings["ascii"], true, nil
	}
	return nil, true, &values.NotEmulatedError{What: "the encoding " + arg0}
}

// Encoding is a System.Text.Encoding: [Text.Encoding]::UTF8 and its
// kin. Byte arrays are []any of ints, as everywhere in the interpreter.
type Encoding struct {
	values.Dotnet
	name     string // UTF8, ASCII, Unicode
	webName  string
	codePage int
}

// Encodings are System.Text's encodings by short name (utf8, ascii,
// unicode, ...).
var Encodings = map[string]*Encoding{
	"utf8":    {values.Dotnet{Typ: "System.Text.UTF8Encoding"}, "UTF8", "utf-8", 65001},
	"ascii":   {values.Dotnet{Typ: "System.Text.ASCIIEncoding"}, "ASCII", "us-ascii", 20127},
	"unicode": {values.Dotnet{Typ: "System.Text.UnicodeEncoding"}, "Unicode", "utf-16", 1200},
}

// encodingNamed is a static property of [System.Text.Encoding]. Default
// is taken as UTF-8: the same bytes for the ASCII text scripts send.
func encodingNamed(name string) (*Encoding, bool) {
	if name == "default" {
		name = "utf8"
	}
	e, ok := Encodings[name]
	return e, ok
}

func (e *Encoding) GetProp(name string) (any, bool) {
	switch name {
	case "webname", "bodyname", "headername":
		return e.webName, true
	case "encodingname":
		return map[string]string{"UTF8": "Unicode (UTF-8)", "ASCII": "US-ASCII", "Unicode": "Unicode"}[e.name], true
	case "codepage", "windowscodepage":
		return e.codePage, true
	}
	return nil, false
}

func (e *Encoding) CallMethod(_ context.Context, name string, args []any) (any, bool, error) {
	switch name {
	case "getbytes":
		if len(args) == 0 {
			return nil, true, values.Exception("ArgumentNullException", "Value cannot be null.%s", values.ParamName("s"))
		}
		return byteList(e.Encode(values.ToStr(args[0]))), true, nil
	case "getbytecount":
		if len(args) == 0 {
			return 0, true, nil
		}
		return len(e.Encode(values.ToStr(args[0]))), true, nil
	case "getstring":
		b := values.BytesOf(args[:min(len(args), 1)])
		if len(args) >= 3 {
			from, _ := values.ToInt(args[1])
			n, _ := values.ToInt(args[2])
			if from < 0 || n < 0 || from+n > len(b) {
				return nil, true, values.Exception("ArgumentOutOfRangeException", "Index and count must refer to a location within the buffer.%s", values.ParamName("bytes"))
			}
			b = b[from : from+n]
		}
		return e.decode(b), true, nil
	case "getpreamble":
		return []any{}, true, nil
	}
	return nil, false, nil
}

func (e *Encoding) Encode(s string) []byte {
	switch e.name {
	case "ASCII":
		b := make([]byte, 0, len(s))
		for _, r := range s {
			if r > 127 {
				r = '?'
			}
			b = append(b, byte(r))
		}
		return b
	case "Unicode":
		var b []byte
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u), byte(u>>8))
		}
		return b
	}
	return []byte(s)
}

func (e *Encoding) decode(b []byte) string {
	switch e.name {
	case "ASCII":
		r := make([]rune, len(b))
		for k, c := range b {
			if c > 127 {
				c = '?'
			}
			r[k] = rune(c)
		}
		return string(r)
	case "Unicode":
		u := make([]uint16, len(b)/2)
		for k := range u {
			u[k] = uint16(b[2*k]) | uint16(b[2*k+1])<<8
		}
		return string(utf16.Decode(u))
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// byteList is a byte[] as the interpreter holds one.
func byteList(b []byte) []any {
	out := make([]any, len(b))
	for k, c := range b {
		out[k] = int(c)
	}
	return out
}
