package dumpapplets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"

	"github.com/winkube/winkube/pkg/emu/netapplets"
	"github.com/winkube/winkube/pkg/emu/program"
)

// odOptions is busybox od's getopt32long string
// "A:N:abcdDfhHiIj:lLoOBt:*vxXsS:w:+" with its long options; -w takes its
// value only in the same word.
var odOptions = netapplets.Options{LongEquals: true, List: []netapplets.Option{
	{Short: 'A', Long: "address-radix", Arg: "RADIX"}, {Short: 'N', Long: "read-bytes", Arg: "SIZE"},
	{Short: 'a'}, {Short: 'b'}, {Short: 'c'}, {Short: 'd'}, {Short: 'D'}, {Short: 'f'}, {Short: 'h'},
	{Short: 'H'}, {Short: 'i'}, {Short: 'I'}, {Short: 'j', Long: "skip-bytes", Arg: "SKIP"}, {Short: 'l'},
	{Short: 'L'}, {Short: 'o'}, {Short: 'O'}, {Short: 'B'}, {Short: 't', Long: "format", Arg: "TYPE"},
	{Short: 'v', Long: "output-duplicates"}, {Short: 'x'}, {Short: 'X'}, {Short: 's'},
	{Short: 'S', Arg: "MINSTR"}, {Long: "strings", Arg: "MINSTR", Optional: true},
	{Short: 'w', Long: "width", Arg: "WIDTH", Optional: true},
}}

const odUsage = `[-abcdfhilovxs] [-t TYPE] [-A RADIX] [-N SIZE] [-j SKIP] [-S MINSTR] [-w WIDTH] [FILE]...

Print FILEs (or stdin) unambiguously, as octal bytes by default`

// tspec is one output type: how wide a datum is and how it prints.
type tspec struct {
	conv    byte // d o u x, f (float), a (named character), c (character)
	size    int
	width   int
	prec    int
	trailer bool // z: the bytes as text after the line
}

type od struct {
	p        *program.Proc
	out      *bufio.Writer
	sink     *sink
	specs    []tspec
	files    []string
	in       io.Reader
	inName   string
	status   int
	perBlock int
	radix    byte // 'o', 'u', 'x'; 0 for none
	padLen   int
	dups     bool // -v
}

// Od is busybox's od (the CONFIG_DESKTOP one: -t, -A, -N, -j, -w, -S).
func Od(ctx context.Context, p *program.Proc) int {
	if help(p, odUsage) {
		return 0
	}
	out, sk := newOut(ctx, p)
	return run(p, out, func() int {
		o, err := odOptions.Parse(p.Args[1:])
		if err != nil {
			return optionError(p, err, odUsage)
		}
		g := &od{p: p, out: out, sink: sk, perBlock: 32, radix: 'o', padLen: 7, dups: o.Has("output-duplicates")}
		if a, ok := o.Value("address-radix"); ok {
			k := strings.IndexByte("doxn", at(a, 0))
			if k < 0 || a == "" {
				g.fatal("bad output address radix '%c' (must be [doxn])", at(a, 0))
			}
			g.radix, g.padLen = "uox\x00"[k], []int{7, 7, 6, 72}[k] // -A n: the byte after busybox's table
		}
		var skip, maxBytes uint64
		if v, ok := o.Value("read-bytes"); ok {
			maxBytes = xstrtou(v, 0, 0, 1<<64-1, bkm)
		}
		for _, f := range []struct {
			on   bool
			spec string
		}{{o.Has("a"), "a"}, {o.Has("b"), "oC"}, {o.Has("c"), "c"}, {o.Has("d"), "u2"}, {o.Has("D"), "uI"},
			{o.Has("f"), "fF"}, {o.Has("h") || o.Has("x"), "x2"}, {o.Has("H") || o.Has("X"), "xI"},
			{o.Has("i"), "dI"}, {o.Has("I") || o.Has("l") || o.Has("L"), "dL"}} {
			if f.on {
				g.decode(f.spec)
			}
		}
		if v, ok := o.Value("skip-bytes"); ok {
			skip = xstrtou(v, 0, 0, 1<<64-1, bkm)
		}
		if o.Has("o") || o.Has("B") {
			g.decode("o2")
		}
		if o.Has("O") {
			g.decode("oI")
		}
		for _, t := range o.Values("format") {
			g.decode(t)
		}
		if o.Has("s") {
			g.decode("d2")
		}
		strMin, strs := uint64(3), false
		for _, key := range []string{"S", "strings"} {
			if v, ok := o.Value(key); ok {
				strs = true
				if v != "" || key == "S" {
					strMin = xstrtou(v, 0, 0, 1<<32-1, bkm)
				}
			}
		}
		end := skip + maxBytes
		if o.Has("read-bytes") && end < skip {
			g.fatal("SKIP + SIZE is too large")
		}
		if len(g.specs) == 0 {
			g.decode("o2")
		}
		g.files = o.Args
		if len(g.files) == 0 {
			g.files = []string{"-"}
		}
		g.openNext()
		g.skip(skip)
		if g.in == nil {
			return 1
		}
		lcm := 1
		for _, s := range g.specs {
			lcm = lcm * s.size / gcd(lcm, s.size)
		}
		if w, ok := o.Value("width"); ok {
			if w != "" {
				g.perBlock = int(xstrtou(w, 10, 0, 1<<31-1, nil))
			}
			if g.perBlock == 0 || g.perBlock%lcm != 0 {
				g.out.Flush()
				fmt.Fprintf(p.Stderr, "od: warning: invalid width %d; using %d instead\n", g.perBlock, lcm)
				g.perBlock = lcm
			}
		} else {
			g.perBlock = lcm
			if lcm < 16 {
				g.perBlock *= 16 / lcm
			}
		}
		if strs {
			g.strings(skip, end, o.Has("read-bytes"), strMin)
		} else {
			g.dump(skip, end, o.Has("read-bytes"), lcm)
		}
		return g.status
	})
}

func gcd(u, v int) int {
	for v != 0 {
		u, v = v, u%v
	}
	return u
}

func (g *od) fatal(format string, args ...any) { panic(die(fmt.Sprintf(format, args...))) }

// decode is decode_format_string: one -t argument, one or more types.
func (g *od) decode(orig string) {
	for s := orig; s != ""; {
		t := tspec{conv: s[0]}
		s = s[1:]
		switch t.conv {
		case 'd', 'o', 'u', 'x':
			t.size = 4
			if k := strings.IndexByte("CSIL", at(s, 0)); k >= 0 && s != "" {
				t.size, s = []int{1, 2, 4, 8}[k], s[1:]
			} else if isDigit(at(s, 0)) {
				n, rest, ok := strtou(s, 0)
				if !ok || (rest != "" && isAlnum(rest[0])) {
					n = 1<<32 - 1
				}
				if n != 1 && n != 2 && n != 4 && n != 8 {
					g.fatal("invalid type string '%s'; %d-byte %s type is not supported", orig, n, "integral")
				}
				t.size, s = int(n), rest
			}
			col := map[byte]int{'d': 0, 'o': 1, 'u': 2, 'x': 3}[t.conv]
			t.width = [][]int{{1: 4, 2: 6, 4: 11, 8: 20}, {1: 3, 2: 6, 4: 11, 8: 22},
				{1: 3, 2: 5, 4: 10, 8: 20}, {1: 2, 2: 4, 4: 8, 8: 16}}[col][t.size]
		case 'f':
			t.size = 8
			if k := strings.IndexByte("FDL", at(s, 0)); k >= 0 && s != "" {
				t.size, s = []int{4, 8, 16}[k], s[1:]
			} else if isDigit(at(s, 0)) {
				n, rest, ok := strtou(s, 0)
				if !ok || (rest != "" && isAlnum(rest[0])) {
					n = 1<<32 - 1
				}
				if n != 4 && n != 8 && n != 16 {
					g.fatal("invalid type string '%s'; %d-byte %s type is not supported", orig, n, "floating point")
				}
				t.size, s = int(n), rest
			}
			// FLT_DIG and LDBL_DIG as od_bloaty.c defines them
			t.prec = map[int]int{4: 7, 8: 15, 16: 15}[t.size]
			t.width = t.prec + 8
		case 'a', 'c':
			t.size, t.width = 1, 3
		default:
			g.fatal("invalid character '%c' in type string '%s'", t.conv, orig)
		}
		if at(s, 0) == 'z' {
			t.trailer, s = true, s[1:]
		}
		g.specs = append(g.specs, t)
	}
}

// openNext opens the next operand that opens, warning of the others.
func (g *od) openNext() {
	for len(g.files) > 0 {
		name := g.files[0]
		g.files = g.files[1:]
		if name == "-" {
			g.in, g.inName = g.p.Stdin, "standard input"
			return
		}
		r, err := open(g.p, name)
		if err == nil {
			g.in, g.inName = r, name
			return
		}
		fmt.Fprintf(g.p.Stderr, "od: %s: %s\n", name, program.ErrorText(err, false))
		g.status = 1
	}
}

// closeIn is check_and_close: a read error is reported, the file closed.
func (g *od) closeIn(err error) {
	if g.in == nil {
		return
	}
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		fmt.Fprintf(g.p.Stderr, "od: %s: read error\n", g.inName)
		g.status = 1
	}
	if c, ok := g.in.(io.Closer); ok && g.in != g.p.Stdin {
		c.Close()
	}
	g.in = nil
}

func (g *od) skip(n uint64) {
	for n > 0 && g.in != nil {
		if f, ok := g.in.(program.File); ok {
			if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() > 0 {
				if uint64(info.Size()) >= n {
					f.Seek(int64(n), io.SeekCurrent)
					return
				}
				n -= uint64(info.Size())
				g.closeIn(nil)
				g.openNext()
				continue
			}
		}
		k, err := io.CopyN(io.Discard, g.in, int64(min(n, 1<<62)))
		if n -= uint64(k); n == 0 {
			return
		}
		g.closeIn(err)
		g.openNext()
	}
	if n > 0 {
		g.fatal("can't skip past end of combined input")
	}
}

// read fills block from the files in turn; it returns how much it read.
func (g *od) read(block []byte) int {
	got := 0
	for g.in != nil && got < len(block) {
		n, err := io.ReadFull(g.in, block[got:])
		got += n
		if got == len(block) {
			break
		}
		g.closeIn(err)
		g.openNext()
	}
	return got
}

func (g *od) address(a uint64, c string) {
	if g.radix == 0 {
		return
	}
	fmt.Fprintf(g.out, "%0*"+string(map[byte]byte{'o': 'o', 'u': 'd', 'x': 'x'}[g.radix])+"%s", g.padLen, a, c)
}

func (g *od) dump(offset, end uint64, limited bool, lcm int) {
	blocks := [2][]byte{make([]byte, g.perBlock), make([]byte, g.perBlock)}
	idx, n := 0, 0
	notFirst, prevEqual := false, false
	write := func(b []byte) {
		if !g.dups && notFirst && len(b) == g.perBlock && bytes.Equal(b, blocks[idx^1]) {
			if !prevEqual {
				g.out.WriteString("*\n")
				prevEqual = true
			}
			return
		}
		notFirst, prevEqual = true, false
		for i, s := range g.specs {
			if i == 0 {
				g.address(offset, "")
			} else {
				fmt.Fprintf(g.out, "%*s", g.padLen, "")
			}
			g.line(s, b)
			if s.trailer {
				fmt.Fprintf(g.out, "%*s  >", (g.perBlock-len(b))/s.size*(s.width+1), "")
				for _, c := range b {
					if !isPrint(c) {
						c = '.'
					}
					g.out.WriteByte(c)
				}
				g.out.WriteByte('<')
			}
			g.out.WriteByte('\n')
		}
	}
	for !g.sink.stopped() {
		want := g.perBlock
		if limited {
			if offset >= end {
				n = 0
				break
			}
			want = int(min(end-offset, uint64(g.perBlock)))
		}
		if n = g.read(blocks[idx][:want]); n < g.perBlock {
			break
		}
		write(blocks[idx])
		offset += uint64(n)
		idx ^= 1
	}
	if n > 0 {
		m := (n + lcm - 1) / lcm * lcm
		clear(blocks[idx][n:m])
		write(blocks[idx][:m])
		offset += uint64(n)
	}
	g.address(offset, "\n")
}

var odNames = strings.Fields("nul soh stx etx eot enq ack bel bs ht nl vt ff cr so si dle dc1 dc2 dc3 dc4 nak syn etb can em sub esc fs gs rs us sp")

// line prints b as one type.
func (g *od) line(s tspec, b []byte) {
	for i := 0; i+s.size <= len(b); i += s.size {
		v := make([]byte, 16)
		copy(v, b[i:i+s.size])
		u := binary.LittleEndian.Uint64(v)
		switch s.conv {
		case 'd':
			shift := 64 - 8*s.size
			fmt.Fprintf(g.out, " %*d", s.width, int64(u<<shift)>>shift)
		case 'u':
			fmt.Fprintf(g.out, " %*d", s.width, u)
		case 'o':
			fmt.Fprintf(g.out, " %0*o", s.width, u)
		case 'x':
			fmt.Fprintf(g.out, " %0*x", s.width, u)
		case 'f':
			var f float64
			switch s.size {
			case 4:
				f = float64(math.Float32frombits(uint32(u)))
			case 8:
				f = math.Float64frombits(u)
			default:
				f = x87(u, binary.LittleEndian.Uint16(v[8:]))
			}
			g.out.WriteString(" " + cconv(fmt.Sprintf("%d.%d", s.width, s.prec), 'e', f))
		case 'a':
			c := b[i] & 0x7f
			switch {
			case c == 0x7f:
				g.out.WriteString(" del")
			case c > ' ':
				fmt.Fprintf(g.out, "   %c", c)
			default:
				fmt.Fprintf(g.out, " %3s", odNames[c])
			}
		case 'c':
			c := b[i]
			if k := strings.IndexByte("\x00\a\b\f\n\r\t\v", c); k >= 0 {
				g.out.WriteString(`  \` + "0abfnrtv"[k:k+1])
			} else if isPrint(c) {
				fmt.Fprintf(g.out, "   %c", c)
			} else {
				fmt.Fprintf(g.out, " %03o", c)
			}
		}
	}
}

// x87 is an 80-bit long double as a float64; an unnormal is a NaN, as
// glibc prints it.
func x87(mant uint64, se uint16) float64 {
	exp := int(se & 0x7fff)
	neg := se&0x8000 != 0
	var f float64
	switch {
	case exp == 0x7fff && mant<<1 == 0:
		f = math.Inf(1)
	case exp == 0x7fff || (exp != 0 && mant>>63 == 0):
		return math.NaN()
	default:
		if exp == 0 {
			exp = 1
		}
		f, _ = new(big.Float).SetMantExp(new(big.Float).SetUint64(mant), exp-16383-63).Float64()
	}
	if neg {
		f = -f
	}
	return f
}

// strings is od -S: runs of at least min printable characters ending in
// a NUL (or at the -N limit), with their offsets.
func (g *od) strings(address, end uint64, limited bool, minLen uint64) {
	var buf []byte
	one := make([]byte, 1)
next:
	for !g.sink.stopped() {
		if limited && int64(end)-int64(minLen) <= int64(address) {
			return
		}
		buf = buf[:0]
		for !limited || address < end {
			if g.read(one) == 0 {
				return
			}
			address++
			if one[0] == 0 {
				break
			}
			if !isPrint(one[0]) {
				continue next
			}
			buf = append(buf, one[0])
		}
		if uint64(len(buf)) < minLen {
			continue
		}
		g.address(address-uint64(len(buf))-1, " ")
		g.out.Write(buf)
		g.out.WriteByte('\n')
	}
}
