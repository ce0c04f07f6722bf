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

// Table is the applets of this package by program name.
func Table() map[string]program.Main {
	return map[string]program.Main{"hexdump": Hexdump, "hd": Hd, "xxd": Xxd, "od": Od}
}

// hexdumpOptions is busybox hexdump's getopt string "bcdoxCe:f:n:s:v".
var hexdumpOptions = netapplets.Options{List: []netapplets.Option{
	{Short: 'b'}, {Short: 'c'}, {Short: 'd'}, {Short: 'o'}, {Short: 'x'}, {Short: 'C'},
	{Short: 'e', Arg: "FORMAT_STR"}, {Short: 'f', Arg: "FORMAT_FILE"},
	{Short: 'n', Arg: "LENGTH"}, {Short: 's', Arg: "OFFSET"}, {Short: 'v'},
}}

const hexdumpUsage = `[-bcdoxCv] [-e FMT] [-f FMT_FILE] [-n LEN] [-s OFS] [FILE]...

Display FILEs (or stdin) in a user specified format

	-b		1-byte octal display
	-c		1-byte character display
	-d		2-byte decimal display
	-o		2-byte octal display
	-x		2-byte hex display
	-C		hex+ASCII 16 bytes per line
	-v		Show all (no dup folding)
	-e FORMAT_STR	Example: '16/1 "%02x|""\n"'
	-f FORMAT_FILE
	-n LENGTH	Show only first LENGTH bytes
	-s OFFSET	Skip OFFSET bytes`

// usage is bb_show_usage: the banner and the applet's usage on stderr;
// the applet then exits 1.
func usage(p *program.Proc, text string) int {
	fmt.Fprintf(p.Stderr, "%s\n\nUsage: %s %s\n", netapplets.BusyboxBanner, program.Name(p.Args[0]), text)
	return 1
}

// help is busybox's "APPLET --help": the usage, and success.
func help(p *program.Proc, text string) bool {
	if len(p.Args) == 2 && p.Args[1] == "--help" {
		usage(p, text)
		return true
	}
	return false
}

// optionError is getopt's complaint followed by the usage.
func optionError(p *program.Proc, err error, text string) int {
	netapplets.BusyboxOptionError(p, err)
	return usage(p, text)
}

// The one-letter formats, as hexdump.c adds them.
var hexdumpFormats = map[string]string{
	"b": `16/1 " %03o`,
	"c": `16/1 " %3_c`,
	"d": `8/2 "   %05u`,
	"o": `8/2 "  %06o`,
	"x": `8/2 "    %04x`,
}

func addFormat(d *dumper, f string) {
	d.add(`"%07_Ax` + "\n" + `"`)
	d.add(`"%07_ax"` + f + `""` + "\n" + `"`)
}

// Hexdump is busybox's hexdump: its options add formats in turn (-C -C
// dumps each line twice).
func Hexdump(ctx context.Context, p *program.Proc) int {
	if help(p, hexdumpUsage) {
		return 0
	}
	out, sk := newOut(ctx, p)
	return run(p, out, func() int {
		o, perr := hexdumpOptions.Parse(p.Args[1:])
		d := newDumper(p, out, sk)
		for _, g := range o.Order { // what getopt read before an error acts first
			switch g.Key {
			case "b", "c", "d", "o", "x":
				addFormat(d, hexdumpFormats[g.Key])
			case "C":
				addC(d)
			case "e":
				d.add(g.Value)
			case "f":
				addFile(d, g.Value)
			case "n":
				d.length = int(xstrtou(g.Value, 10, 0, 1<<31-1, nil))
			case "s":
				d.skip = int64(xstrtou(g.Value, 0, 0, 1<<63-1, bkm))
			case "v":
				d.vflag = vAll
			}
		}
		if perr != nil {
			return optionError(p, perr, hexdumpUsage)
		}
		if len(d.fss) == 0 {
			addFormat(d, `8/2 " %04x`)
		}
		return d.dump(o.Args)
	})
}

// Hd is busybox's hd: hexdump -C.
func Hd(ctx context.Context, p *program.Proc) int {
	q := *p
	q.Args = append([]string{p.Args[0], "-C"}, p.Args[1:]...)
	return Hexdump(ctx, &q)
}

func addC(d *dumper) {
	d.add(`"%08_Ax` + "\n" + `"`)
	d.add(`"%08_ax "8/1 " %02x"" "8/1 " %02x"`)
	d.add(`"  |"16/1 "%_p""|` + "\n" + `"`)
}

// addFile is bb_dump_addfile: each line a format, blank lines and #
// comments skipped.
func addFile(d *dumper, name string) {
	f, err := d.p.Sys.FS.OpenFile(d.p.Sys.FS.Abs(d.p.Dir, name), os.O_RDONLY, 0)
	if err != nil {
		d.fatal("can't open '%s': %s", name, program.ErrorText(err, false))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t\n\v\f\r")
		if line != "" && line[0] != '#' {
			d.add(line)
		}
	}
}

type suffix struct {
	s    string
	mult uint64
}

var bkm = []suffix{{"b", 512}, {"k", 1024}, {"m", 1024 * 1024}}

// strtou is strtoull: base 0 reads 0x as hex and a leading 0 as octal.
// It returns the value, what follows the digits, and whether digits were
// found without overflow.
func strtou(s string, base int) (uint64, string, bool) {
	i := 0
	if (base == 0 || base == 16) && len(s) > 2 && s[0] == '0' && (s[1]|0x20) == 'x' && digitVal(s[2]) < 16 {
		i, base = 2, 16
	} else if base == 0 && len(s) > 0 && s[0] == '0' {
		base = 8
	} else if base == 0 {
		base = 10
	}
	var n uint64
	start, over := i, false
	for ; i < len(s) && digitVal(s[i]) < base; i++ {
		d := uint64(digitVal(s[i]))
		if n > (1<<64-1-d)/uint64(base) {
			over = true
		}
		n = n*uint64(base) + d
	}
	return n, s[i:], i > start && !over
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case (c|0x20) >= 'a' && (c|0x20) <= 'z':
		return int(c|0x20-'a') + 10
	}
	return 99
}

// xstrtou is xstrtou_range_sfx: a whole number in range, or die in
// busybox's words.
func xstrtou(s string, base int, lo, hi uint64, sfx []suffix) uint64 {
	if s == "" || s[0] == '-' || s[0] == '+' || isSpace(s[0]) {
		panic(die(fmt.Sprintf("invalid number '%s'", s)))
	}
	n, rest, ok := strtou(s, base)
	if !ok {
		panic(die(fmt.Sprintf("invalid number '%s'", s)))
	}
	if rest != "" {
		found := false
		for _, x := range sfx {
			if x.s == rest {
				if n > (1<<64-1)/x.mult {
					panic(die(fmt.Sprintf("number %s is not in %d..%d range", s, lo, hi)))
				}
				n, found = n*x.mult, true
				break
			}
		}
		if !found {
			panic(die(fmt.Sprintf("invalid number '%s'", s)))
		}
	}
	if n < lo || n > hi {
		panic(die(fmt.Sprintf("number %s is not in %d..%d range", s, lo, hi)))
	}
	return n
}
