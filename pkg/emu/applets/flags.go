package applets

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"strings"
	"syscall"

	"github.com/winkube/winkube/pkg/emu/program"
)

var (
	errIsDir  = syscall.EISDIR
	errNotDir = syscall.ENOTDIR
	// errStop ends an applet's input loop early without an error (head
	// has what it needs, grep -q matched).
	errStop = errors.New("stop")
	// errOutput means stdout failed (a closed pipe): stop quietly.
	errOutput = errors.New("write error")
)

func isDirErr(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == "read" && errors.Is(err, syscall.EISDIR)
}

// opts is a parsed command line: flags seen (with their values) and
// operands.
type opts struct {
	set  map[byte]int      // how many times each flag was given
	val  map[byte]string   // the last value of a flag taking one
	vals map[byte][]string // every value, in order
	args []string
}

func (o opts) has(c byte) bool { return o.set[c] > 0 }

// getopt parses args as busybox's getopt32 does: spec lists the flag
// letters, a ':' after one that takes a value; flags and operands may
// mix (GNU permutation) unless spec starts with '+', and "--" ends flags.
// A bad flag is reported as busybox does and ok is false.
func getopt(p *program.Proc, args []string, spec string) (o opts, ok bool) {
	o = opts{set: map[byte]int{}, val: map[byte]string{}, vals: map[byte][]string{}}
	inOrder := strings.HasPrefix(spec, "+")
	spec = strings.TrimPrefix(spec, "+")
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.args = append(o.args, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			if inOrder {
				o.args = append(o.args, args[i:]...)
				break
			}
			o.args = append(o.args, a)
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			k := strings.IndexByte(spec, c)
			if k < 0 || c == ':' {
				errorf(p, "invalid option -- '%c'", c)
				return o, false
			}
			o.set[c]++
			if k+1 < len(spec) && spec[k+1] == ':' {
				v := a[j+1:]
				if v == "" {
					if i+1 >= len(args) {
						errorf(p, "option requires an argument -- '%c'", c)
						return o, false
					}
					i++
					v = args[i]
				}
				o.val[c] = v
				o.vals[c] = append(o.vals[c], v)
				break
			}
		}
	}
	return o, true
}

// out is a buffered stdout that remembers its first error, so that a
// producer stops once the reader is gone.
type out struct {
	w   *bufio.Writer
	err error
}

func newOut(w io.Writer) *out { return &out{w: bufio.NewWriterSize(w, 32*1024)} }

func (o *out) WriteString(s string) error {
	if o.err == nil {
		_, o.err = o.w.WriteString(s)
	}
	if o.err != nil {
		return errOutput
	}
	return nil
}

func (o *out) Write(b []byte) (int, error) {
	if o.err == nil {
		_, o.err = o.w.Write(b)
	}
	if o.err != nil {
		return 0, errOutput
	}
	return len(b), nil
}

func (o *out) Flush() error {
	if o.err == nil {
		o.err = o.w.Flush()
	}
	if o.err != nil {
		return errOutput
	}
	return nil
}
