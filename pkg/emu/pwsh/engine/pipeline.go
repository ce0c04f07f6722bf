package engine

import (
	"bytes"
	"context"
	"io"
	"strings"
	"unicode/utf16"

	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// runPipeline runs the elements of a pipeline in turn, each taking the
// output of the one before as input; the last one writes to emit.
func (i *Interp) runPipeline(ctx context.Context, pl *lang.PipelineStmt, emit func(any)) error {
	outer := i.failed
	i.failed = false
	defer func() {
		i.ok = !i.failed
		i.failed = outer || i.failed
	}()
	var input []any
	for k, el := range pl.Elems {
		var out []any
		sink := func(v any) { out = append(out, v) }
		if k == len(pl.Elems)-1 {
			sink = emit
		}
		if len(pl.Elems) == 1 && el.Expr != nil {
			if _, ok := el.Expr.(*lang.IncExpr); ok {
				sink = func(any) {} // $i++ as a statement prints nothing
			}
		}
		if err := i.withRedirects(ctx, el.Redirs, sink, func(sink func(any)) error {
			return i.runElement(ctx, el, input, k > 0, sink, pl)
		}); err != nil {
			return err
		}
		input = out
	}
	return nil
}

func (i *Interp) runElement(ctx context.Context, el *lang.Element, input []any, piped bool, emit func(any), pl *lang.PipelineStmt) error {
	if el.Expr != nil {
		v, err := i.eval(ctx, el.Expr)
		if err != nil {
			if re, ok := err.(*values.RuntimeError); ok && re.Rec.Src == nil {
				re.Rec.Src, re.Rec.Pos, re.Rec.End = i.Src, pl.Pos, pl.End
			}
			return err
		}
		if _, isHash := v.(*values.Hashtable); isHash {
			emit(v)
			return nil
		}
		if v == nil {
			// $null is one object in a pipeline ($null | % { 1 }
			// runs once; @($null).Count is 1), unlike @(). A variable
			// holding what an empty pipeline gave (AutomationNull in
			// PowerShell: $x = Get-ChildItem *.none) gives nothing; the
			// interpreter keeps no AutomationNull, so a variable's
			// $null counts as that.
			if ve, ok := el.Expr.(*lang.VarExpr); !ok || strings.EqualFold(ve.Name, "null") {
				emit(nil)
			}
			return nil
		}
		for _, item := range values.ToList(v) {
			emit(item)
		}
		return nil
	}
	return i.invoke(ctx, el.Cmd, input, piped, emit)
}

// withRedirects runs f with the element's output and error streams sent
// where > >> 2> 2>&1 *> say.
func (i *Interp) withRedirects(ctx context.Context, rs []lang.Redirect, sink func(any), f func(func(any)) error) error {
	if len(rs) == 0 {
		return f(sink)
	}
	oldErr, oldHost := i.ErrOut, i.HostOut
	defer func() { i.ErrOut, i.HostOut = oldErr, oldHost }()
	out := sink
	var files []func() error
	for _, r := range rs {
		stream := "1"
		op := r.Op
		if op[0] != '>' {
			stream, op = op[:1], op[1:]
		}
		if strings.HasPrefix(op, ">&") { // 2>&1: errors join the output
			if stream == "2" || stream == "*" {
				o := out
				i.ErrOut = func(rec *values.ErrorRecord) { o(rec) }
			}
			continue
		}
		target, err := i.eval(ctx, r.Target)
		if err != nil {
			return err
		}
		var w func(any)
		if target == nil {
			w = func(any) {}
		} else {
			path := i.Abs(values.ToStr(target))
			var buf []any
			w = func(v any) { buf = append(buf, v) }
			appendTo := op == ">>"
			files = append(files, func() error { return i.OutFile(path, buf, appendTo, "") })
		}
		switch stream {
		case "1":
			out = w
		case "2":
			i.ErrOut = func(rec *values.ErrorRecord) { w(rec) }
		case "*":
			out = w
			i.ErrOut = func(rec *values.ErrorRecord) { w(rec) }
			i.HostOut = io.Discard
		case "6":
			i.HostOut = io.Discard
		}
	}
	err := f(out)
	for _, write := range files {
		if werr := write(); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// OutFile writes values as text to a file, as Out-File and > do:
// UTF-16 in Windows PowerShell, UTF-8 in PowerShell 7.
func (i *Interp) OutFile(path string, vals []any, appendTo bool, encoding string) error {
	var b bytes.Buffer
	f := i.NewFormatter(&b)
	f.ErrWriter = func(rec *values.ErrorRecord) { rec.Write(&b, i.Pwsh7) }
	for _, v := range vals {
		f.Write(v)
	}
	f.Flush()
	data := i.Encode(b.String(), encoding, appendTo && i.FileExists(path))
	if err := i.WriteFile(path, data, appendTo); err != nil {
		return i.fileError(err, path, "Out-File")
	}
	return nil
}

func (i *Interp) FileExists(path string) bool {
	_, err := i.Sys.FS.Stat(path)
	return err == nil
}

// Encode turns text into file bytes; the default is Out-File's.
func (i *Interp) Encode(s, encoding string, noBOM bool) []byte {
	enc := strings.ToLower(encoding)
	if enc == "" {
		enc = "unicode"
		if i.Pwsh7 {
			enc = "utf8nobom"
		}
	}
	switch enc {
	case "unicode", "utf16", "utf-16":
		var b []byte
		if !noBOM {
			b = []byte{0xff, 0xfe}
		}
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u), byte(u>>8))
		}
		return b
	case "utf8", "utf-8", "utf8bom":
		// 5.1's UTF8 writes a BOM; PowerShell 7's utf8 is utf8NoBOM
		// and utf8BOM asks for one (about_Character_Encoding).
		if (!i.Pwsh7 || enc == "utf8bom") && !noBOM {
			return append([]byte{0xef, 0xbb, 0xbf}, s...)
		}
	case "bigendianunicode":
		var b []byte
		if !noBOM {
			b = []byte{0xfe, 0xff}
		}
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u>>8), byte(u))
		}
		return b
	}
	return []byte(s)
}

// DecodeText reads file bytes by their byte order mark.
func DecodeText(b []byte) string {
	switch {
	case len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe:
		u := make([]uint16, 0, len(b)/2)
		for k := 2; k+1 < len(b); k += 2 {
			u = append(u, uint16(b[k])|uint16(b[k+1])<<8)
		}
		return string(utf16.Decode(u))
	case len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff:
		u := make([]uint16, 0, len(b)/2)
		for k := 2; k+1 < len(b); k += 2 {
			u = append(u, uint16(b[k])<<8|uint16(b[k+1]))
		}
		return string(utf16.Decode(u))
	case len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf:
		return string(b[3:])
	}
	return string(b)
}
