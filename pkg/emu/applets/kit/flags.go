package kit

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
	ErrNotDir = syscall.ENOTDIR
	// ErrStop ends an applet's input loop early without an error (head
	// has what it needs, grep -q matched).
	ErrStop = errors.New("stop")
	// ErrOutput means stdout failed (a closed pipe): stop quietly.
	ErrOutput = errors.New("write error")
)

func isDirErr(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == "read" && errors.Is(err, syscall.EISDIR)
}

// Opts is a parsed command line: flags seen (with their values) and
// operands.
type Opts struct {
	set  map[byte]int      // how many times each flag was given
	Val  map[byte]string   // the last value of a flag taking one
	Vals map[byte][]string // every value, in order
	Args []string
}

// Has reports whether flag c was given.
func (o Opts) Has(c byte) bool { return o.set[c] > 0 }

// Getopt parses args as busybox's getopt32 does: spec lists the flag
// letters, a ':' after one that takes a value; flags and operands may
// mix (GNU permutation) unless spec starts with '+', and "--" ends flags.
// A bad flag is reported as busybox does and ok is false.
func Getopt(p *program.Proc, args []string, spec string) (o Opts, ok bool) {
	o = Opts{set: map[byte]int{}, Val: map[byte]string{}, Vals: map[byte][]string{}}
	inOrder := strings.HasPrefix(spec, "+")
	spec = strings.TrimPrefix(spec, "+")
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.Args = append(o.Args, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			if inOrder {
				o.Args = append(o.Args, args[i:]...)
				break
			}
			o.Args = append(o.Args, a)
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			k := strings.IndexByte(spec, c)
			if k < 0 || c == ':' {
				Errorf(p, "invalid option -- '%c'", c)
				return o, false
			}
			o.set[c]++
			if k+1 < len(spec) && spec[k+1] == ':' {
				v := a[j+1:]
				if v == "" {
					if i+1 >= len(args) {
						Errorf(p, "option requires an argument -- '%c'", c)
						return o, false
					}
					i++
					v = args[i]
				}
				o.Val[c] = v
				o.Vals[c] = append(o.Vals[c], v)
				break
			}
		}
	}
	return o, true
}

// Out is a buffered stdout that remembers its first error, so that a
// producer stops once the reader is gone.
type Out struct {
	w   *bufio.Writer
	Err error
}

// NewOut buffers w.
func NewOut(w io.Writer) *Out { return &Out{w: bufio.NewWriterSize(w, 32*1024)} }

// WriteString writes s unless an earlier write failed.
func (o *Out) WriteString(s string) error {
	if o.Err == nil {
		_, o.Err = o.w.WriteString(s)
	}
	if o.Err != nil {
		return ErrOutput
	}
	return nil
}

// Write writes b unless an earlier write failed.
func (o *Out) Write(b []byte) (int, error) {
	if o.Err == nil {
		_, o.Err = o.w.Write(b)
	}
	if o.Err != nil {
		return 0, ErrOutput
	}
	return len(b), nil
}

// Flush writes out the buffer; it returns the first error met.
func (o *Out) Flush() error {
	if o.Err == nil {
		o.Err = o.w.Flush()
	}
	if o.Err != nil {
		return ErrOutput
	}
	return nil
}
