// Package dumpapplets holds busybox's binary dumpers: hexdump (and hd),
// xxd and od. hexdump and xxd are, as in busybox, front ends of one
// engine (libbb/dump.c) that runs hexdump(1) format strings: each option
// is a format string added to the dumper, so -C, xxd's columns and a
// user's -e go through the same code, quirks included (a format unit
// prints only its first conversion; %d without a byte count reads 8
// bytes). od is busybox's GNU-style od (od_bloaty.c, built with
// CONFIG_DESKTOP as the e2e and Alpine images are).
package dumpapplets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Format unit flags.
const (
	fIgnore = 1 << iota // %_A: printed only at the end
	fSetrep             // an iteration count was given
)

// Print unit kinds.
const (
	fAddress = 1 << iota
	fBpad
	fC
	fChar
	fDbl
	fInt
	fP
	fStr
	fU
	fUint
	fText
)

// The -v states of get: ALL prints every block; FIRST is before the
// first; WAIT after a printed block; DUP inside a run of duplicates.
const (
	vAll = iota
	vDup
	vFirst
	vWait
)

// pr is a print unit: C printf text with at most one conversion, whose
// letter is at cchar.
type pr struct {
	flags   int
	bcnt    int
	fmt     string
	cchar   int
	nospace bool // the last character is white space, dropped after the last iteration
}

// fu is a format unit: [iterations][/byte count] "format".
type fu struct {
	flags, reps, bcnt int
	fmt               string
	pr                *pr // busybox links only a unit's first print unit
}

type fstr struct {
	fus  []*fu
	bcnt int
}

// maxBlock is the largest block a format may ask for: beyond it the
// emulation says what busybox says when malloc fails.
const maxBlock = 64 << 20

// die is a fatal error (bb_error_msg_and_die): recovered by run.
type die string

// dumper is libbb's dumper_t with its private part.
type dumper struct {
	p       *program.Proc
	out     *bufio.Writer
	sink    *sink
	skip    int64
	length  int // -1: all
	vflag   int
	fss     []*fstr
	odEOF   *string
	xxdEOF  *string
	dispOff int64
	address int64

	args       []string
	endfu      *fu
	savaddress int64
	eaddress   int64
	blocksize  int
	exitval    int
	nextDone   bool
	ateof      bool
	curp, savp []byte
	in         io.Reader // what C reopens as stdin
	inName     string
}

func newDumper(p *program.Proc, out *bufio.Writer, s *sink) *dumper {
	return &dumper{p: p, out: out, sink: s, length: -1, vflag: vFirst, ateof: true, in: p.Stdin, inName: "stdin"}
}

// sink is stdout as a dump writes it: once a write fails (the reader of
// a pipe is gone: SIGPIPE) or the process is stopped, the dump stops.
type sink struct {
	ctx context.Context
	w   io.Writer
	err error
}

func (s *sink) Write(b []byte) (int, error) {
	if s.err == nil {
		s.err = s.ctx.Err()
	}
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
	if s.err != nil {
		return 0, s.err
	}
	return len(b), nil
}

// stopped: the dump has no one to write to any more.
func (s *sink) stopped() bool { return s.err != nil || s.ctx.Err() != nil }

// newOut is a program's buffered stdout over its sink.
func newOut(ctx context.Context, p *program.Proc) (*bufio.Writer, *sink) {
	s := &sink{ctx: ctx, w: p.Stdout}
	return bufio.NewWriter(s), s
}

func (d *dumper) fatal(format string, args ...any) { panic(die(fmt.Sprintf(format, args...))) }

// run runs an applet's body, turning a die into its message and status
// 1 once out (what the body printed) is flushed, as exit does.
func run(p *program.Proc, out *bufio.Writer, body func() int) (code int) {
	defer func() {
		if r := recover(); r != nil {
			msg, ok := r.(die)
			if !ok {
				panic(r)
			}
			out.Flush()
			fmt.Fprintf(p.Stderr, "%s: %s\n", program.Name(p.Args[0]), msg)
			code = 1
		}
	}()
	code = body()
	out.Flush()
	return code
}

func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}
func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// atoi is C's atoi: strtol's value cut to an int.
func atoi(s string) int {
	var n int64
	for i := 0; i < len(s) && isDigit(s[i]); i++ {
		if n > (math.MaxInt64-9)/10 {
			n = math.MaxInt64
			break
		}
		n = n*10 + int64(s[i]-'0')
	}
	return int(int32(n))
}

// add is bb_dump_add: one format string, its units in order.
func (d *dumper) add(format string) {
	f := &fstr{}
	d.fss = append(d.fss, f)
	bad := func() { d.fatal("bad format {%s}", format) }
	s, p := format, 0
	for {
		p = skipSpace(s, p)
		if p >= len(s) {
			return
		}
		u := &fu{reps: 1}
		f.fus = append(f.fus, u)
		if isDigit(s[p]) {
			start := p
			for p < len(s) && isDigit(s[p]) {
				p++
			}
			if !isSpace(at(s, p)) && at(s, p) != '/' {
				bad()
			}
			u.reps, u.flags = atoi(s[start:p]), fSetrep
			p = skipSpace(s, p+1)
		}
		if at(s, p) == '/' {
			p = skipSpace(s, p+1)
		}
		if isDigit(at(s, p)) {
			start := p
			for p < len(s) && isDigit(s[p]) {
				p++
			}
			if !isSpace(at(s, p)) {
				bad()
			}
			u.bcnt = atoi(s[start:p])
			p = skipSpace(s, p+1)
		}
		if at(s, p) != '"' {
			bad()
		}
		end := strings.IndexByte(s[p+1:], '"')
		if end < 0 {
			bad()
		}
		u.fmt = unescape(s[p+1 : p+1+end])
		p += end + 2
	}
}

// unescape is strcpy_and_process_escape_sequences; a NUL ends the string.
func unescape(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b = append(b, s[i])
			continue
		}
		c, n := escape(s[i+1:])
		i += n
		b = append(b, c)
	}
	if k := bytes.IndexByte(b, 0); k >= 0 {
		b = b[:k]
	}
	return string(b)
}

// escape is bb_process_escape_sequence on what follows a backslash: the
// byte and how many characters it used.
func escape(s string) (byte, int) {
	q, base, digits, n := 0, 8, 0, 0
	if at(s, 0) == 'x' {
		q, base, digits = 1, 16, 1
	}
	for {
		c := at(s, q)
		d := int(c) - '0'
		if d < 0 || d >= 10 {
			d = int(c|0x20) - 'a'
			if d >= 0 {
				d += 10
			} else {
				d = 99
			}
		}
		if d >= base {
			if base == 16 {
				digits--
				if digits == 0 {
					return '\\', 0
				}
			}
			break
		}
		if n*base+d > 255 {
			break
		}
		n = n*base + d
		q++
		if digits++; digits >= 3 {
			break
		}
	}
	if digits == 0 {
		const from, to = "abefnrtv\\", "\a\b\x1b\f\n\r\t\v\\"
		if k := strings.IndexByte(from, at(s, q)); k >= 0 && at(s, q) != 0 {
			return to[k], q + 1
		}
		return '\\', q
	}
	return byte(n), q
}

// size is bb_dump_size: the bytes a format string's units consume.
func size(f *fstr) int {
	cur := 0
	for _, u := range f.fus {
		if u.bcnt != 0 {
			cur += u.bcnt * u.reps
			continue
		}
		bcnt, prec, s := 0, 0, u.fmt
		for i := 0; i < len(s); i++ {
			if s[i] != '%' {
				continue
			}
			for i++; i < len(s) && strings.IndexByte("#-+ 0123456789", s[i]) >= 0; i++ {
			}
			if at(s, i) == '.' {
				if i++; isDigit(at(s, i)) {
					prec = atoi(s[i:])
					for i+1 < len(s) && isDigit(s[i+1]) {
						i++
					}
					i++
				}
			}
			c := at(s, i)
			if k := strings.IndexByte("cdiouxXeEfgG", c); k >= 0 && c != 0 {
				bcnt += int("\x01\x04\x04\x04\x04\x04\x04\x08\x08\x08\x08\x08"[k])
			} else if c == 's' {
				bcnt += prec
			} else if c == '_' {
				if i++; strings.IndexByte("cpu", at(s, i)) >= 0 && at(s, i) != 0 {
					bcnt++
				}
			}
		}
		cur += bcnt * u.reps
	}
	return cur
}

// rewrite is busybox's rewrite: each unit's conversions checked and its
// first print unit made; the last unit repeated to fill the block.
func (d *dumper) rewrite(f *fstr) {
	for _, u := range f.fus {
		b := []byte(u.fmt)
		nconv := 0
		var first *pr
		for fmtp := 0; fmtp < len(b); {
			r := &pr{}
			if first == nil {
				first = r
			}
			p1 := bytes.IndexByte(b[fmtp:], '%')
			if p1 < 0 {
				r.fmt, r.flags = string(b[fmtp:]), fText
				break
			}
			p1 += fmtp
			prec := -1
			flagChars := "#-+ 0123456789"
			if u.bcnt != 0 {
				flagChars = ".#-+ 0123456789"
			}
			for p1++; p1 < len(b) && strings.IndexByte(flagChars, b[p1]) >= 0; p1++ {
			}
			if u.bcnt == 0 && p1 < len(b) && b[p1] == '.' {
				if p1++; p1 < len(b) && isDigit(b[p1]) {
					prec = atoi(string(b[p1:]))
					for p1++; p1 < len(b) && isDigit(b[p1]); p1++ {
					}
				}
			}
			p2 := p1 + 1
			bc := func(allowed string) {
				if u.bcnt != 0 {
					k := 0
					for k < len(allowed) && int(allowed[k]) != u.bcnt {
						k++
					}
					if k == len(allowed) {
						d.fatal("bad byte count for conversion character %s", b[p1:])
					}
				}
				r.bcnt = int(allowed[0])
				if u.bcnt != 0 {
					r.bcnt = u.bcnt
				}
			}
			badConv := func() { d.fatal("bad conversion character %%%s", b[min(p1, len(b)):]) }
			c := byte(0)
			if p1 < len(b) {
				c = b[p1]
			}
			intConv := func() {
				k := strings.IndexByte("diouxX", at(string(b), p1))
				if k < 0 || p1 >= len(b) {
					badConv()
				}
				r.flags = fInt
				if k > 1 {
					r.flags = fUint
				}
				bc("\x08\x04\x02\x01")
			}
			switch {
			case c == 0:
				badConv()
			case c == 'c':
				r.flags = fChar
				bc("\x01")
			case c == 'l':
				p2++
				p1++
				if at(string(b), p1) == 'l' {
					p2++
					p1++
				}
				intConv()
			case strings.IndexByte("diouxX", c) >= 0:
				intConv()
			case strings.IndexByte("eEfgG", c) >= 0:
				r.flags = fDbl
				bc("\x08\x04")
			case c == 's':
				r.flags, r.bcnt = fStr, u.bcnt
				if u.bcnt == 0 {
					if prec < 0 {
						d.fatal("%%s needs precision or byte count")
					}
					r.bcnt = prec
				}
			case c == '_':
				p2++
				switch at(string(b), p1+1) {
				case 'A', 'a':
					if b[p1+1] == 'A' {
						d.endfu = u
						u.flags |= fIgnore
					}
					r.flags = fAddress
					p2++
					if x := at(string(b), p1+2); x != 'd' && x != 'o' && x != 'x' {
						badConv()
					}
					b[p1], b[p1+1] = 'l', 'l'
					p1 += 2
				case 'c':
					r.flags = fC
					bc("\x01")
				case 'p':
					r.flags = fP
					b[p1] = 'c'
					bc("\x01")
				case 'u':
					r.flags = fU
					bc("\x01")
				default:
					badConv()
				}
			default:
				badConv()
			}
			p2 = min(p2, len(b))
			p3 := p2
			for p3 < len(b) && b[p3] != '%' {
				p3++
			}
			r.fmt = string(b[fmtp:p1+1]) + string(b[p2:p3])
			r.cchar = p1 - fmtp
			fmtp = p3
			if r.flags&fAddress == 0 && u.bcnt != 0 {
				if nconv++; nconv > 1 {
					d.fatal("byte count with multiple conversion characters")
				}
			}
		}
		u.pr = first
		if u.bcnt == 0 && first != nil {
			u.bcnt = first.bcnt
		}
	}
	for i, u := range f.fus {
		if i == len(f.fus)-1 && f.bcnt < d.blocksize && u.flags&fSetrep == 0 && u.bcnt != 0 {
			u.reps += (d.blocksize - f.bcnt) / u.bcnt
		}
		if u.reps > 1 && u.pr != nil && u.pr.fmt != "" {
			u.pr.nospace = isSpace(u.pr.fmt[len(u.pr.fmt)-1])
		}
	}
}

// dump is bb_dump_dump: sizes, rewriting, then the display.
func (d *dumper) dump(args []string) int {
	for _, f := range d.fss {
		f.bcnt = size(f)
		d.blocksize = max(d.blocksize, f.bcnt)
		if f.bcnt < 0 || f.bcnt > maxBlock {
			d.fatal("out of memory") // xmalloc of the block
		}
	}
	for _, f := range d.fss {
		d.rewrite(f)
	}
	d.args = args
	d.display()
	return d.exitval
}

// perror is bb_simple_perror_msg: "name: what: strerror".
func (d *dumper) perror(what string, err error) {
	fmt.Fprintf(d.p.Stderr, "%s: %s: %s\n", program.Name(d.p.Args[0]), what, program.ErrorText(err, false))
}

// open opens an operand for reading as freopen would: a directory opens
// and fails when read.
func open(p *program.Proc, name string) (io.Reader, error) {
	f, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, name), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err == nil && info.IsDir() {
		f.Close()
		return errReader{syscall.EISDIR}, nil
	}
	return f, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func (d *dumper) next() bool {
	for {
		fname := "stdin"
		if len(d.args) > 0 {
			fname, d.args = d.args[0], d.args[1:]
			if fname != "-" {
				r, err := open(d.p, fname)
				if err != nil {
					d.perror(fname, err)
					d.exitval = 1
					d.nextDone = true
					continue
				}
				d.closeIn()
				d.in, d.inName = r, fname
			}
		} else if d.nextDone {
			return false
		}
		d.nextDone = true
		if d.skip != 0 {
			d.doSkip(fname)
		}
		if d.skip == 0 {
			return true
		}
	}
}

func (d *dumper) closeIn() {
	if c, ok := d.in.(io.Closer); ok && d.in != d.p.Stdin {
		c.Close()
	}
}

func (d *dumper) doSkip(fname string) {
	if f, ok := d.in.(program.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && d.skip >= info.Size() {
			d.skip -= info.Size()
			d.address += info.Size()
			return
		}
	}
	s, ok := d.in.(program.File) // a pipe does not seek
	if !ok {
		d.fatal("%s: %s", fname, program.ErrorText(syscall.ESPIPE, false))
	}
	if _, err := s.Seek(d.skip, io.SeekStart); err != nil {
		d.fatal("%s: %s", fname, program.ErrorText(err, false))
	}
	d.address += d.skip
	d.savaddress = d.address
	d.skip = 0
}

// get is the next block to display, nil at the end; it folds duplicate
// blocks into "*" unless -v.
func (d *dumper) get() []byte {
	bs := d.blocksize
	if d.curp == nil {
		d.address = 0
		// room past the block: a unit may read beyond it, as busybox's
		// %d without a byte count does
		d.curp, d.savp = make([]byte, bs+16), make([]byte, bs+16)
	} else {
		d.curp, d.savp = d.savp, d.curp
		d.savaddress += int64(bs)
		d.address = d.savaddress
	}
	need, nread := bs, 0
	for {
		if d.length == 0 || (d.ateof && !d.next()) {
			if need == bs {
				return nil
			}
			if d.vflag != vAll && d.vflag != vFirst && bytes.Equal(d.curp[:nread], d.savp[:nread]) && d.vflag != vDup {
				d.out.WriteString("*\n")
			}
			clear(d.curp[nread:])
			d.eaddress = d.address + int64(nread)
			return d.curp
		}
		want := need
		if d.length != -1 {
			want = min(d.length, need)
		}
		n, err := io.ReadFull(d.in, d.curp[nread:nread+want])
		if n == 0 {
			if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
				d.perror(d.inName, err)
			}
			d.ateof = true
			continue
		}
		d.ateof = false
		if d.length != -1 {
			d.length -= n
		}
		need -= n
		if need != 0 {
			nread += n
			continue
		}
		if d.vflag == vAll || d.vflag == vFirst || !bytes.Equal(d.curp[:bs], d.savp[:bs]) {
			if d.vflag == vDup || d.vflag == vFirst {
				d.vflag = vWait
			}
			return d.curp
		}
		if d.vflag == vWait {
			d.out.WriteString("*\n")
		}
		d.vflag = vDup
		d.savaddress += int64(bs)
		d.address = d.savaddress
		need, nread = bs, 0
	}
}

// bpad turns a print unit past the end of the data into blanks of its
// width: flags dropped, the conversion made %s of "".
func (r *pr) bpad() {
	r.flags = fBpad
	pct := strings.IndexByte(r.fmt, '%')
	k := pct + 1
	for k < r.cchar && strings.IndexByte(" -0+#", r.fmt[k]) >= 0 {
		k++
	}
	r.fmt = r.fmt[:pct+1] + r.fmt[k:r.cchar] + "s" + r.fmt[r.cchar+1:]
	r.cchar -= k - pct - 1
}

func (d *dumper) display() {
	for bp := d.get(); bp != nil && !d.sink.stopped(); bp = d.get() {
		saveaddress := d.address
		for _, f := range d.fss {
			b := 0
			d.address = saveaddress
			for _, u := range f.fus {
				if u.flags&fIgnore != 0 {
					break
				}
				r := u.pr
				for cnt := u.reps; cnt > 0 && r != nil; cnt-- {
					if d.sink.stopped() {
						return
					}
					if d.eaddress != 0 && d.address >= d.eaddress {
						if d.xxdEOF != nil {
							d.out.WriteString(*d.xxdEOF)
							return
						}
						if d.odEOF != nil {
							d.out.WriteString(*d.odEOF)
							d.end()
							return
						}
						if r.flags&(fText|fBpad) == 0 {
							r.bpad()
						}
					}
					format := r.fmt
					if cnt == 1 && r.nospace {
						format = format[:len(format)-1]
					}
					d.print(r, format, bp, b)
					d.address += int64(r.bcnt)
					b += r.bcnt
				}
			}
		}
	}
	d.end()
}

// end prints the %_A unit with the address after the data.
func (d *dumper) end() {
	if d.endfu == nil || d.endfu.pr == nil {
		return
	}
	if d.eaddress == 0 {
		if d.address == 0 {
			return
		}
		d.eaddress = d.address
	}
	switch r := d.endfu.pr; r.flags {
	case fAddress:
		d.printf(r.fmt, r.cchar, 0, uint64(d.eaddress+d.dispOff))
	case fText:
		d.out.WriteString(r.fmt)
	}
}

func load(bp []byte, b, n int) []byte {
	out := make([]byte, 8)
	if b < len(bp) {
		copy(out, bp[b:min(b+n, len(bp))])
	}
	return out
}

func isPrint(c byte) bool { return c >= 0x20 && c < 0x7f }

var names = strings.Fields("nul soh stx etx eot enq ack bel bs ht lf vt ff cr so si dle dc1 dc2 dc3 dc4 nak syn etb can em sub esc fs gs rs us")

func (d *dumper) print(r *pr, format string, bp []byte, b int) {
	v := load(bp, b, r.bcnt)
	c := v[0]
	switch r.flags {
	case fAddress:
		d.printf(format, r.cchar, 0, uint64(d.address+d.dispOff))
	case fBpad:
		d.printf(format, r.cchar, 0, "")
	case fC:
		const from, to = "\x00\a\b\f\n\r\t\v", "0abfnrtv"
		switch k := strings.IndexByte(from, c); {
		case k >= 0:
			d.printf(format, r.cchar, 's', `\`+to[k:k+1])
		case isPrint(c):
			d.printf(format, r.cchar, 'c', c)
		default:
			d.printf(format, r.cchar, 's', fmt.Sprintf("%03o", c))
		}
	case fChar:
		d.printf(format, r.cchar, 0, c)
	case fDbl:
		if r.bcnt == 4 {
			d.printf(format, r.cchar, 0, float64(math.Float32frombits(binary.LittleEndian.Uint32(v))))
		} else if r.bcnt == 8 {
			d.printf(format, r.cchar, 0, math.Float64frombits(binary.LittleEndian.Uint64(v)))
		}
	case fInt:
		n := int64(int8(c))
		switch r.bcnt {
		case 2:
			n = int64(int16(binary.LittleEndian.Uint16(v)))
		case 4:
			n = int64(int32(binary.LittleEndian.Uint32(v)))
		case 8:
			n = int64(binary.LittleEndian.Uint64(v))
			if !strings.Contains(format[strings.IndexByte(format, '%'):r.cchar], "l") {
				n = int64(int32(n)) // an int conversion takes the low half
			}
		}
		d.printf(format, r.cchar, 0, n)
	case fP:
		if !isPrint(c) {
			c = '.'
		}
		d.printf(format, r.cchar, 0, c)
	case fStr:
		s := bp[min(b, len(bp)):]
		if k := bytes.IndexByte(s, 0); k >= 0 {
			s = s[:k]
		}
		d.printf(format, r.cchar, 0, string(s))
	case fText:
		d.out.WriteString(format)
	case fU:
		switch {
		case c <= 0x1f:
			d.printf(format, r.cchar, 's', names[c])
		case c == 0x7f:
			d.printf(format, r.cchar, 's', "del")
		case c < 0x7f:
			d.printf(format, r.cchar, 'c', c)
		default:
			d.printf(format, r.cchar, 'x', uint64(c))
		}
	case fUint:
		n := uint64(c)
		switch r.bcnt {
		case 2:
			n = uint64(binary.LittleEndian.Uint16(v))
		case 4:
			n = uint64(binary.LittleEndian.Uint32(v))
		}
		d.printf(format, r.cchar, 0, n)
	}
}

// printf is C's printf of a format with one conversion, whose letter at
// cchar is conv when conv is not 0.
func (d *dumper) printf(format string, cchar int, conv byte, arg any) {
	if conv == 0 {
		conv = format[cchar]
	}
	pct := strings.IndexByte(format, '%')
	d.out.WriteString(format[:pct])
	d.out.WriteString(cconv(format[pct+1:cchar], conv, arg))
	if cchar+1 < len(format) {
		d.out.WriteString(format[cchar+1:])
	}
}

// cconv is one C conversion: spec is its flags, width, precision and
// length modifiers; arg an int64, uint64, byte, string or float64.
func cconv(spec string, conv byte, arg any) string {
	var minus, plus, space, zero, alt bool
	i := 0
	for ; i < len(spec); i++ {
		switch spec[i] {
		case '-':
			minus = true
		case '+':
			plus = true
		case ' ':
			space = true
		case '0':
			zero = true
		case '#':
			alt = true
		default:
			goto width
		}
	}
width:
	w := 0
	for ; i < len(spec) && isDigit(spec[i]); i++ {
		w = min(w*10+int(spec[i]-'0'), 1<<16)
	}
	prec, precSet := 0, false
	if i < len(spec) && spec[i] == '.' {
		precSet = true
		for i++; i < len(spec) && isDigit(spec[i]); i++ {
			prec = min(prec*10+int(spec[i]-'0'), 1<<16)
		}
	}
	pad := func(body, prefix string, zeros bool) string {
		n := w - len(body) - len(prefix)
		switch {
		case n <= 0:
			return prefix + body
		case minus:
			return prefix + body + strings.Repeat(" ", n)
		case zeros:
			return prefix + strings.Repeat("0", n) + body
		}
		return strings.Repeat(" ", n) + prefix + body
	}
	switch conv {
	case 'd', 'i', 'o', 'u', 'x', 'X':
		var mag uint64
		neg := false
		switch a := arg.(type) {
		case int64:
			neg, mag = a < 0, uint64(a)
			if neg {
				mag = -mag
			}
		case uint64:
			mag = a
		case byte:
			mag = uint64(a)
		}
		base := map[byte]int{'d': 10, 'i': 10, 'u': 10, 'o': 8, 'x': 16, 'X': 16}[conv]
		digits := strconv.FormatUint(mag, base)
		if conv == 'X' {
			digits = strings.ToUpper(digits)
		}
		if precSet && prec == 0 && mag == 0 {
			digits = ""
		}
		if len(digits) < prec {
			digits = strings.Repeat("0", prec-len(digits)) + digits
		}
		prefix := ""
		switch {
		case conv != 'd' && conv != 'i':
		case neg:
			prefix = "-"
		case plus:
			prefix = "+"
		case space:
			prefix = " "
		}
		if alt && conv == 'o' && !strings.HasPrefix(digits, "0") {
			digits = "0" + digits
		}
		if alt && mag != 0 && (conv == 'x' || conv == 'X') {
			prefix = "0" + string(conv)
		}
		return pad(digits, prefix, zero && !precSet)
	case 'c':
		var c byte
		switch a := arg.(type) {
		case byte:
			c = a
		case int64:
			c = byte(a)
		case uint64:
			c = byte(a)
		}
		return pad(string([]byte{c}), "", false)
	case 's':
		s, _ := arg.(string)
		if precSet && len(s) > prec {
			s = s[:prec]
		}
		return pad(s, "", false)
	case 'e', 'E', 'f', 'F', 'g', 'G':
		f, _ := arg.(float64)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			s := "inf"
			if math.IsNaN(f) {
				s = "nan"
			}
			if conv >= 'A' && conv <= 'Z' {
				s = strings.ToUpper(s)
			}
			prefix := ""
			switch {
			case math.Signbit(f):
				prefix = "-"
			case plus:
				prefix = "+"
			case space:
				prefix = " "
			}
			return pad(s, prefix, false)
		}
		goSpec := "%"
		for _, fl := range []struct {
			on bool
			c  string
		}{{minus, "-"}, {plus, "+"}, {space, " "}, {zero, "0"}, {alt, "#"}} {
			if fl.on {
				goSpec += fl.c
			}
		}
		if !precSet {
			prec = 6
		}
		return fmt.Sprintf(goSpec+"*.*"+string(conv), w, prec, f)
	}
	return ""
}
