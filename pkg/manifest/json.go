package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// parseJSON reads a .json file: one object, an array of objects, or a
// stream of them. JSON goes through encoding/json rather than the YAML
// parser because valid JSON is not always valid YAML (tabs, for one).
// A syntax error ends the file, since a JSON stream cannot resynchronise.
func parseJSON(file string, data []byte) ([]Object, []error) {
	src := source{file: file} // --fix rewrites YAML only
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var objs []Object
	lines := lineCounter{data: data}
	for doc := 0; ; doc++ {
		line := lines.at(skipSpace(data, int(dec.InputOffset())))
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return objs, []error{jsonError(file, data, dec, err)}
		}
		o, errs := jsonObjects(src, line, doc, v)
		objs = append(objs, o...)
		if len(errs) > 0 {
			return objs, errs
		}
	}
}

// jsonObjects converts one top-level JSON value. Elements of a top-level
// array all report the array's line: encoding/json does not track lines
// per element, and the array is what the user sees at that spot.
func jsonObjects(src source, line, doc int, v any) ([]Object, []error) {
	items := []any{v}
	arr, isArray := v.([]any)
	if isArray {
		items = arr
	}
	var objs []Object
	var errs []error
	for i, item := range items {
		m, ok := fixNumbers(item).(map[string]any)
		if !ok {
			errs = append(errs, &InputError{File: src.file, Line: line, Err: errors.New("JSON value is not an object")})
			continue
		}
		at := place{line: line, doc: doc}
		if isArray {
			at.root = fmt.Sprintf("[%d]", i)
		}
		o, err := flatten(src, at, m)
		objs = append(objs, o...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return objs, errs
}

// fixNumbers turns json.Number into int64 or float64, the number types
// unstructured objects may hold.
func fixNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, err := strconv.ParseFloat(string(t), 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return int64(f)
		}
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = fixNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = fixNumbers(e)
		}
	}
	return v
}

// jsonError names the line of a JSON syntax error.
func jsonError(file string, data []byte, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		off = int64(len(data))
	}
	return &InputError{File: file, Line: lineAt(data, int(off)), Err: fmt.Errorf("json: %w", err)}
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// lineCounter finds lines of increasing offsets without rescanning the
// file from the start each time.
type lineCounter struct {
	data      []byte
	off, line int
}

func (c *lineCounter) at(off int) int {
	off = min(max(off, c.off), len(c.data))
	if c.line == 0 {
		c.line = 1
	}
	c.line += bytes.Count(c.data[c.off:off], []byte("\n"))
	c.off = off
	return c.line
}

// skipSpace returns the offset of the first non-space byte at or after off.
func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n':
			off++
		default:
			return off
		}
	}
	return off
}
