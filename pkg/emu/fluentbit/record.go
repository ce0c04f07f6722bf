package fluentbit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// field is one key of a record's map, which keeps the order its
// producer gave (msgpack maps are ordered).
type field struct {
	key string
	val any // string, int64, uint64, float64, bool, nil, []any, []field, bin
}

// bin is a msgpack bin value (winlog's Data).
type bin []byte

// record is one log event: its tag, time and body.
type record struct {
	tag  string
	time time.Time
	body []field
}

func (r *record) get(key string) (any, bool) {
	for _, f := range r.body {
		if f.key == key {
			return f.val, true
		}
	}
	return nil, false
}

func (r *record) set(key string, val any) {
	for i, f := range r.body {
		if f.key == key {
			r.body[i].val = val
			return
		}
	}
	r.body = append(r.body, field{key, val})
}

// printValue is msgpack-c's msgpack_object_print: strings quoted but not
// escaped, maps as {"k"=>v, ...}, floats with %f.
func printValue(w *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		w.WriteString("nil")
	case bool:
		w.WriteString(strconv.FormatBool(x))
	case int64:
		w.WriteString(strconv.FormatInt(x, 10))
	case uint64:
		w.WriteString(strconv.FormatUint(x, 10))
	case int:
		w.WriteString(strconv.Itoa(x))
	case float64:
		fmt.Fprintf(w, "%f", x)
	case string:
		w.WriteByte('"')
		w.WriteString(x)
		w.WriteByte('"')
	case bin:
		w.WriteByte('"')
		for _, c := range x {
			if c >= 0x20 && c < 0x7f {
				w.WriteByte(c)
			} else {
				fmt.Fprintf(w, "\\x%02x", c)
			}
		}
		w.WriteByte('"')
	case []any:
		w.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.WriteString(", ")
			}
			printValue(w, e)
		}
		w.WriteByte(']')
	case []field:
		w.WriteByte('{')
		for i, f := range x {
			if i > 0 {
				w.WriteString(", ")
			}
			printValue(w, f.key)
			w.WriteString("=>")
			printValue(w, f.val)
		}
		w.WriteByte('}')
	default:
		fmt.Fprintf(w, "%v", x)
	}
}

// writeJSON writes a value as fluent-bit's msgpack-to-JSON does.
func writeJSON(w *bytes.Buffer, v any) {
	switch x := v.(type) {
	case []field:
		w.WriteByte('{')
		for i, f := range x {
			if i > 0 {
				w.WriteByte(',')
			}
			writeJSON(w, f.key)
			w.WriteByte(':')
			writeJSON(w, f.val)
		}
		w.WriteByte('}')
	case []any:
		w.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.WriteByte(',')
			}
			writeJSON(w, e)
		}
		w.WriteByte(']')
	case bin:
		writeJSON(w, string(x))
	case float64:
		// flb_pack's msgpack-to-JSON: %.1f for whole numbers, else %.16g.
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			fmt.Fprintf(w, "%.1f", x)
		} else {
			w.WriteString(strconv.FormatFloat(x, 'g', 16, 64))
		}
	default:
		b, err := json.Marshal(x)
		if err != nil {
			w.WriteString("null")
			return
		}
		// fluent-bit escapes / as \/ and leaves <, > and & as they are.
		b = bytes.ReplaceAll(b, []byte(`\u003c`), []byte("<"))
		b = bytes.ReplaceAll(b, []byte(`\u003e`), []byte(">"))
		b = bytes.ReplaceAll(b, []byte(`\u0026`), []byte("&"))
		w.Write(b)
	}
}

// parseJSON decodes a JSON text keeping the order of object keys; ok is
// false when it is not one JSON value.
func parseJSON(text string) (any, bool) {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

func decodeValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var out []field
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				out = append(out, field{k.(string), v})
			}
			_, err := d.Token()
			if out == nil {
				out = []field{}
			}
			return out, err
		case '[':
			out := []any{}
			for d.More() {
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := d.Token()
			return out, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		if i, err := t.Int64(); err == nil {
			if i >= 0 {
				return uint64(i), nil
			}
			return i, nil
		}
		f, err := t.Float64()
		return f, err
	default:
		return t, nil
	}
}

// formatTime is a record's time as fluent-bit prints it:
// seconds.nanoseconds.
func formatTime(t time.Time) string {
	return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond())
}
