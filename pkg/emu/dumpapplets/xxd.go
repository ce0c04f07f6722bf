package dumpapplets

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/netapplets"
	"github.com/winkube/winkube/pkg/emu/program"
)

// xxdOptions is busybox xxd's getopt32 string "l:s:apirg:+c:+o:" (-a
// is accepted and does nothing, as in busybox).
var xxdOptions = netapplets.Options{List: []netapplets.Option{
	{Short: 'l', Arg: "LEN"}, {Short: 's', Arg: "OFS"}, {Short: 'a', Inert: true}, {Short: 'p'},
	{Short: 'i'}, {Short: 'r'}, {Short: 'g', Arg: "N"}, {Short: 'c', Arg: "N"}, {Short: 'o', Arg: "OFS"},
}}

const xxdUsage = `[-pri] [-g N] [-c N] [-l LEN] [-s OFS] [-o OFS] [FILE]

Hex dump FILE (or stdin)

	-g N		Bytes per group
	-c N		Bytes per line
	-p		Show only hex bytes, assumes -c30
	-i		C include file style
	-l LENGTH	Show only first LENGTH bytes
	-s OFFSET	Skip OFFSET bytes
	-o OFFSET	Add OFFSET to displayed offset
	-r		Reverse (with -p, assumes no offsets in input)`

// Xxd is busybox's xxd: hexdump formats for its columns, and -r.
func Xxd(ctx context.Context, p *program.Proc) int {
	if help(p, xxdUsage) {
		return 0
	}
	out, sk := newOut(ctx, p)
	return run(p, out, func() int {
		o, err := xxdOptions.Parse(p.Args[1:])
		if err != nil {
			return optionError(p, err, xxdUsage)
		}
		if len(o.Args) > 1 {
			return usage(p, xxdUsage)
		}
		bytes, cols := 2, 0
		for _, g := range o.Order {
			switch g.Key {
			case "g":
				bytes = int(xstrtou(g.Value, 10, 0, 1<<31-1, nil))
			case "c":
				cols = int(xstrtou(g.Value, 10, 0, 1<<31-1, nil))
			}
		}
		d := newDumper(p, out, sk)
		d.vflag = vAll
		if v, ok := o.Value("l"); ok {
			d.length = int(xstrtou(v, 0, 0, 1<<31-1, nil))
		}
		sOpt, hasS := o.Value("s")
		if hasS {
			d.skip = int64(xstrtou(sOpt, 0, 0, 1<<63-1, nil))
		}
		name := ""
		if len(o.Args) > 0 {
			name = o.Args[0]
		}
		if o.Has("r") {
			return xxdReverse(p, out, sk, o.Has("p"), name, sOpt)
		}
		if v, ok := o.Value("o"); ok {
			num, limit := v, uint64(1<<63-1)
			if num != "" && (num[0] == '+' || num[0] == '-') {
				if num = num[1:]; v[0] == '-' {
					limit = 1 << 63
				}
			}
			n := xstrtou(num, 0, 0, limit, nil)
			d.dispOff = int64(n)
			if v[0] == '-' {
				d.dispOff = -d.dispOff
			}
		}
		include := o.Has("i")
		if o.Has("p") {
			if cols == 0 {
				cols = 30
			}
			bytes = cols
		} else {
			if cols == 0 {
				cols = 16
				if include {
					cols = 12
				}
			}
			if include {
				bytes = 1
				d.add(`" "`)
			} else {
				d.add(`"%08_ax: "`)
			}
		}
		switch {
		case bytes < 1 || bytes >= cols:
			d.add(fmt.Sprintf(`%d/1 "%%02x"`, cols))
		case bytes == 1 && include:
			d.add(fmt.Sprintf(`%d/1 " 0x%%02x,"`, cols))
		case bytes == 1:
			d.add(fmt.Sprintf(`%d/1 "%%02x "`, cols))
		default:
			var b strings.Builder
			for i := 1; i <= cols; i++ {
				if i == cols || i%bytes != 0 {
					b.WriteString(`/1 "%02x"`)
				} else {
					b.WriteString(`/1 "%02x "`)
				}
			}
			d.add(b.String())
		}
		if !o.Has("p") && !include {
			d.add(fmt.Sprintf(`"  "%d/1 "%%_p""`+"\n"+`"`, cols))
		} else {
			d.add(`"` + "\n" + `"`)
			nl := "\n"
			d.xxdEOF = &nl
		}
		if include && name != "" {
			cName(out, name, "unsigned char %s")
			out.WriteString("[] = {\n")
		}
		r := d.dump(o.Args)
		if r == 0 && include && name != "" {
			cName(out, name, "};\nunsigned int %s")
			fmt.Fprintf(out, "_len = %d;\n", d.address)
		}
		return r
	})
}

// cName is print_C_style: the file name as a C identifier.
func cName(out *bufio.Writer, name, hdr string) {
	prefix := ""
	if isDigit(name[0]) {
		prefix = "__"
	}
	fmt.Fprintf(out, hdr, prefix)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'z') {
			c = '_'
		}
		out.WriteByte(c)
	}
}

// xxdReverse is xxd -r: hex back to bytes, with or without (-p) the
// offsets of a dump. Output is a pipe: an offset ahead is filled with
// zeros, one behind cannot be sought to.
func xxdReverse(p *program.Proc, out *bufio.Writer, sk *sink, plain bool, name, sOpt string) int {
	var sOff int64
	if sOpt != "" {
		n, rest, ok := strtou(sOpt, 0)
		if !ok || rest != "" || !isAlnum(sOpt[0]) || n > 1<<63-1 {
			panic(die(fmt.Sprintf("invalid number '%s'", sOpt)))
		}
		sOff = int64(n)
	}
	in := p.Stdin
	if name != "" {
		f, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, name), os.O_RDONLY, 0)
		if err != nil {
			panic(die(fmt.Sprintf("can't open '%s': %s", name, program.ErrorText(err, false))))
		}
		defer f.Close()
		in = f
	}
	br := bufio.NewReader(in)
	getline := func() (string, bool) {
		s, err := br.ReadString('\n')
		if s == "" && err != nil {
			return "", false
		}
		return strings.TrimSuffix(s, "\n"), true
	}
	var cur int64
	// address reads a line's offset, fills up to it and skips its colon.
	address := func(line string) int {
		i := skipSpace(line, 0)
		rest := line[i:]
		n, after, ok := strtou(rest, 16)
		if rest == "" || !isAlnum(rest[0]) || !ok || (after != "" && isAlnum(after[0])) ||
			n > 1<<63-1 || int64(n)+sOff < 0 {
			panic(die(fmt.Sprintf("invalid number '%s'", rest)))
		}
		ofs := int64(n) + sOff
		if ofs != cur {
			if ofs < cur {
				panic(die("cannot seek: Illegal seek"))
			}
			out.Write(make([]byte, ofs-cur))
			cur = ofs
		}
		i = len(line) - len(after)
		if at(line, i) == ':' {
			i++
		}
		return i
	}
	line, more := getline()
lines:
	for more && !sk.stopped() {
		i := 0
		if !plain {
			i = address(line)
		}
		for {
			var val byte
			bad := 0
			for { // the first nibble; one stray character is skipped
				if plain {
					i = skipSpace(line, i)
				}
				c := at(line, i)
				i++
				if v := digitVal(c); v < 16 {
					val = byte(v) << 4
					break
				}
				if c == 0 || bad > 0 {
					line, more = getline()
					continue lines
				}
				bad++
			}
		second:
			if plain {
				i = skipSpace(line, i)
			}
			c := at(line, i)
			i++
			switch v := digitVal(c); {
			case v < 16:
				val |= byte(v)
			case c != 0: // drop the nibble, on to the next hex digit
				for digitVal(at(line, i)) >= 16 {
					if at(line, i) == 0 {
						line, more = getline()
						continue lines
					}
					i++
				}
				continue
			default: // a byte's nibbles may straddle lines
				if line, more = getline(); !more {
					break lines
				}
				i = 0
				if !plain {
					i = address(line)
					continue
				}
				goto second
			}
			out.WriteByte(val)
			cur++
		}
	}
	return 0
}

func isAlnum(c byte) bool { return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
