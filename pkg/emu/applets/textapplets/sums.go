package textapplets

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Md5sum is the md5sum applet.
func Md5sum(ctx context.Context, p *program.Proc) int { return sum(p, md5.New) }

// Sha256sum is the sha256sum applet.
func Sha256sum(ctx context.Context, p *program.Proc) int { return sum(p, sha256.New) }

// sum prints "HASH  NAME" per operand ("-" for stdin).
func sum(p *program.Proc, h func() hash.Hash) int {
	o, ok := kit.Getopt(p, p.Args[1:], "cbtsw")
	if !ok {
		return 1
	}
	if o.Has('c') {
		return checkSums(p, o, h)
	}
	return kit.EachInput(p, o.Args, func(n string, r io.Reader) error {
		d := h()
		if _, err := io.Copy(d, r); err != nil {
			return err
		}
		_, err := io.WriteString(p.Stdout, hex.EncodeToString(d.Sum(nil))+"  "+n+"\n")
		if err != nil {
			return kit.ErrOutput
		}
		return nil
	})
}

// checkSums is -c: each "HASH  NAME" (or "HASH *NAME") line of the list
// is checked and reported "NAME: OK" or "NAME: FAILED" (-s: status
// only; -w: warn of a line in no such format), as busybox does.
func checkSums(p *program.Proc, o kit.Opts, h func() hash.Hash) int {
	total, failed := 0, 0
	status := kit.EachInput(p, o.Args[:min(len(o.Args), 1)], func(_ string, list io.Reader) error {
		return kit.Lines(list, func(line string) error {
			line = strings.TrimSuffix(line, "\n")
			total++
			want, name, found := strings.Cut(line, "  ")
			if !found {
				want, name, found = strings.Cut(line, " *")
			}
			if !found {
				if o.Has('w') {
					kit.Errorf(p, "invalid format")
				}
				failed++
				return nil
			}
			got := ""
			kit.EachInput(p, []string{name}, func(_ string, r io.Reader) error {
				d := h()
				if _, err := io.Copy(d, r); err != nil {
					return err
				}
				got = hex.EncodeToString(d.Sum(nil))
				return nil
			})
			verdict := "OK"
			if got == "" || got != want {
				verdict = "FAILED"
				failed++
			}
			if !o.Has('s') {
				fmt.Fprintf(p.Stdout, "%s: %s\n", name, verdict)
			}
			return nil
		})
	})
	if failed > 0 && !o.Has('s') {
		kit.Errorf(p, "WARNING: %d of %d computed checksums did NOT match", failed, total)
	}
	if failed > 0 {
		return 1
	}
	return status
}

// Base64 is the base64 applet.
func Base64(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "dw:i")
	if !ok {
		return 1
	}
	wrap := 76
	if v, set := o.Val['w']; set {
		n, err := strconv.Atoi(v)
		if err != nil {
			kit.Errorf(p, "invalid number '%s'", v)
			return 1
		}
		wrap = n
	}
	w := kit.NewOut(p.Stdout)
	status := kit.EachInput(p, o.Args, func(_ string, r io.Reader) error {
		if o.Has('d') {
			// Decoding ignores newlines (and with -i other junk).
			clean := &filterReader{r: r, keep: func(c byte) bool {
				return c != '\n' && c != '\r' && (!o.Has('i') || isB64(c))
			}}
			_, err := io.Copy(w, base64.NewDecoder(base64.StdEncoding, clean))
			if err != nil && err != kit.ErrOutput {
				kit.Errorf(p, "invalid input")
				return kit.ErrOutput
			}
			return err
		}
		lw := &wrapWriter{w: w, width: wrap}
		enc := base64.NewEncoder(base64.StdEncoding, lw)
		if _, err := io.Copy(enc, r); err != nil {
			return err
		}
		enc.Close()
		if lw.col > 0 || wrap == 0 {
			w.WriteString("\n")
		}
		return nil
	})
	if w.Flush() != nil {
		return 1
	}
	return status
}

func isB64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

type filterReader struct {
	r    io.Reader
	keep func(byte) bool
}

func (f *filterReader) Read(b []byte) (int, error) {
	for {
		n, err := f.r.Read(b)
		k := 0
		for _, c := range b[:n] {
			if f.keep(c) {
				b[k] = c
				k++
			}
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}

// wrapWriter breaks base64 output into lines of width.
type wrapWriter struct {
	w     io.Writer
	width int
	col   int
}

func (l *wrapWriter) Write(b []byte) (int, error) {
	total := len(b)
	for len(b) > 0 {
		if l.width <= 0 {
			_, err := l.w.Write(b)
			return total, err
		}
		n := min(l.width-l.col, len(b))
		if _, err := l.w.Write(b[:n]); err != nil {
			return 0, err
		}
		b, l.col = b[n:], l.col+n
		if l.col == l.width {
			if _, err := l.w.Write([]byte("\n")); err != nil {
				return 0, err
			}
			l.col = 0
		}
	}
	return total, nil
}

var awkPrint = regexp.MustCompile(`^\s*\{\s*print\s*((?:\$[0-9]+|NF|\$NF|"[^"]*")(?:\s*,?\s*(?:\$[0-9]+|\$NF|NF|"[^"]*"))*)?\s*;?\s*\}\s*$`)

// Awk runs only `{print $N, ...}` (with -F); anything else is refused:
// a real awk interpreter is out of the emulation's scope.
func Awk(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "+F:v:f:")
	if !ok {
		return 1
	}
	if len(o.Args) == 0 || o.Has('f') || o.Has('v') || !awkPrint.MatchString(o.Args[0]) {
		kit.Errorf(p, "unsupported program (winkube emulation)")
		return 1
	}
	items := regexp.MustCompile(`\$[0-9]+|\$NF|NF|"[^"]*"|,`).FindAllString(awkPrint.FindStringSubmatch(o.Args[0])[1], -1)
	sep, custom := o.Val['F']
	if sep == "t" {
		sep = "\t"
	}
	w := kit.NewOut(p.Stdout)
	status := kit.EachInput(p, o.Args[1:], func(_ string, r io.Reader) error {
		return kit.Lines(r, func(line string) error {
			text := strings.TrimSuffix(line, "\n")
			var fields []string
			if custom && sep != " " {
				fields = strings.Split(text, sep)
			} else {
				fields = strings.Fields(text)
			}
			var b strings.Builder
			comma := false
			if len(items) == 0 {
				b.WriteString(text)
			}
			for _, it := range items {
				if it == "," {
					comma = true
					continue
				}
				if comma {
					b.WriteString(" ")
					comma = false
				}
				b.WriteString(awkValue(it, text, fields))
			}
			return w.WriteString(b.String() + "\n")
		})
	})
	if w.Flush() != nil {
		return 1
	}
	return status
}

func awkValue(it, text string, fields []string) string {
	switch {
	case strings.HasPrefix(it, `"`):
		return strings.Trim(it, `"`)
	case it == "NF":
		return strconv.Itoa(len(fields))
	case it == "$NF":
		if len(fields) == 0 {
			return ""
		}
		return fields[len(fields)-1]
	}
	n, _ := strconv.Atoi(it[1:])
	if n == 0 {
		return text
	}
	if n <= len(fields) {
		return fields[n-1]
	}
	return ""
}
