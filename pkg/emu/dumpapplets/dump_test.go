package dumpapplets

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

// newSys is a container with the files the cases dump: dump.bin is the
// conformance test's binary ConfigMap key.
func newSys(t *testing.T) (*program.Sys, *vfstest.FS) {
	t.Helper()
	clock := clocktesting.NewFakeClock(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	fs := vfstest.New(clock)
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for name, data := range map[string]string{
		"/dump.bin": "\xde\xca\xfe\xba\xd0\xfe\xff",
		"/az":       "abcdefghijklmnopqrstuvwxyz",
		"/zeros":    strings.Repeat("\x00", 100),
		"/mixed":    "hello world\n" + strings.Repeat("\x00", 40) + "tail\t\x01\x7f\x80\xff end\n",
		"/all":      string(all),
		"/fmtfile":  "16/1 \"%02x \" \"\\n\"\n# comment\n\n",
		"/rev.txt":  "00000000: 3031 3233  0123\n00000010: 41\n",
		"/revp.txt": "6465 6361\nfe\n",
		"/empty":    "",
	} {
		fs.Put(name, data, 0o644)
	}
	if err := fs.Privileged().Mkdir("/dir", 0o755); err != nil {
		t.Fatal(err)
	}
	return &program.Sys{FS: fs, Clock: clock, Programs: Table()}, fs
}

func run1(t *testing.T, sys *program.Sys, stdin string, argv ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	p := &program.Proc{Args: argv, Env: []string{"PATH=/bin"}, Dir: "/", Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Sys: sys}
	code, err := sys.Exec(context.Background(), p)
	if err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	return out.String(), errb.String(), code
}

// usageOf is bb_show_usage's text for the applet.
func usageOf(name string) string {
	text := map[string]string{"hexdump": hexdumpUsage, "xxd": xxdUsage, "od": odUsage}[name]
	return "BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary.\n\nUsage: " + name + " " + text + "\n"
}

// Every case is what busybox 1.37's hexdump, xxd and od print (the
// applets built from its sources), byte for byte, with their status.
func TestDumpers(t *testing.T) {
	sys, _ := newSys(t)
	for _, c := range []struct {
		argv       []string
		stdin      string
		out, errs  string
		wantStatus int
	}{
		{[]string{"hexdump", "-C", "dump.bin"}, "", "00000000  de ca fe ba d0 fe ff                              |.......|\n00000007\n", "", 0},
		{[]string{"hexdump", "dump.bin"}, "", "0000000 cade bafe fed0 00ff                    \n0000007\n", "", 0},
		{[]string{"hd", "dump.bin"}, "", "00000000  de ca fe ba d0 fe ff                              |.......|\n00000007\n", "", 0},
		{[]string{"hexdump", "-C", "az"}, "", "00000000  61 62 63 64 65 66 67 68  69 6a 6b 6c 6d 6e 6f 70  |abcdefghijklmnop|\n00000010  71 72 73 74 75 76 77 78  79 7a                    |qrstuvwxyz|\n0000001a\n", "", 0},
		{[]string{"hexdump", "-C", "zeros"}, "", "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n00000060  00 00 00 00                                       |....|\n00000064\n", "", 0},
		{[]string{"hexdump", "-Cv", "zeros"}, "", "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n00000010  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n00000020  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n00000030  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n00000040  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n00000050  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n00000060  00 00 00 00                                       |....|\n00000064\n", "", 0},
		{[]string{"hexdump", "-C", "-C", "dump.bin"}, "", "00000000  de ca fe ba d0 fe ff                              |.......|\n00000000  de ca fe ba d0 fe ff                              |.......|\n00000007\n", "", 0},
		{[]string{"hexdump", "-c", "mixed"}, "", "0000000   h   e   l   l   o       w   o   r   l   d  \\n  \\0  \\0  \\0  \\0\n0000010  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0\n*\n0000030  \\0  \\0  \\0  \\0   t   a   i   l  \\t 001 177 200 377       e   n\n0000040   d  \\n                                                        \n0000042\n", "", 0},
		{[]string{"hexdump", "-b", "dump.bin"}, "", "0000000 336 312 376 272 320 376 377                                    \n0000007\n", "", 0},
		{[]string{"hexdump", "-d", "dump.bin"}, "", "0000000   51934   47870   65232   00255                                \n0000007\n", "", 0},
		{[]string{"hexdump", "-o", "dump.bin"}, "", "0000000  145336  135376  177320  000377                                \n0000007\n", "", 0},
		{[]string{"hexdump", "-x", "dump.bin"}, "", "0000000    cade    bafe    fed0    00ff                                \n0000007\n", "", 0},
		{[]string{"hexdump", "-n", "100", "-e", "100 \"%_p\"", "mixed"}, "", "hello world.........................................tail..... end.", "", 0},
		{[]string{"hexdump", "-n", "5", "-C", "az"}, "", "00000000  61 62 63 64 65                                    |abcde|\n00000005\n", "", 0},
		{[]string{"hexdump", "-s", "0x10", "-C", "az"}, "", "00000010  71 72 73 74 75 76 77 78  79 7a                    |qrstuvwxyz|\n0000001a\n", "", 0},
		{[]string{"hexdump", "-s", "10", "-n", "4", "-C", "az"}, "", "0000000a  6b 6c 6d 6e                                       |klmn|\n0000000e\n", "", 0},
		{[]string{"hexdump", "-s", "100", "-C", "az"}, "", "0000001a\n", "", 0},
		{[]string{"hexdump", "-e", "16/1 \"%02x|\"\"\\n\"", "az"}, "", "61|62|63|64|65|66|67|68|69|6a|6b|6c|6d|6e|6f|70|\n71|72|73|74|75|76|77|78|79|7a|  |  |  |  |  |  |\n", "", 0},
		{[]string{"hexdump", "-e", "1/1 \"%02x|\"1/1 \"%02x!\\n\"", "zeros"}, "", "00|00!\n*\n", "", 0},
		{[]string{"hexdump", "-e", "16/1 \" %3_u\" \"\\n\"", "-n", "32", "all"}, "", " nul soh stx etx eot enq ack bel  bs  ht  lf  vt  ff  cr  so  si\n dle dc1 dc2 dc3 dc4 nak syn etb can  em sub esc  fs  gs  rs  us\n", "", 0},
		{[]string{"hexdump", "-e", "8/2 \" %6d\" \"\\n\"", "-s", "0x80", "-n", "16", "all"}, "", " -32384 -31870 -31356 -30842 -30328 -29814 -29300 -28786\n", "", 0},
		{[]string{"hexdump", "-e", "\"%07.7_ax \" 8/2 \"%04x \" \"\\n\"", "az"}, "", "0000000 6261 6463 6665 6867 6a69 6c6b 6e6d 706f\n0000010 7271 7473 7675 7877 7a79               \n", "", 0},
		{[]string{"hexdump", "-e", "\"%_ad: %02x\\n\"", "dump.bin"}, "", "0: 4: ", "", 0},
		{[]string{"hexdump", "-e", "4/1 \"%5.2_c|\" \"\\n\"", "-n", "16", "mixed"}, "", "    h|    e|    l|    l|\n    o|     |    w|    o|\n    r|    l|    d|   \\n|\n   \\0|   \\0|   \\0|   \\0|\n", "", 0},
		{[]string{"hexdump", "-e", "\"%_Ax\\n\"", "-e", "4/1 \"%02X\" \"\\n\"", "dump.bin"}, "", "DECAFEBA\nD0FEFF  \n7\n", "", 0},
		{[]string{"hexdump", "-e", "1/8 \"%llx\\n\"", "az"}, "", "61\n69\n71\n79\n", "", 0},
		{[]string{"hexdump", "-e", "1/2 \"%c\\n\"", "dump.bin"}, "", "", "hexdump: bad byte count for conversion character c\n\n", 1},
		{[]string{"hexdump", "-f", "fmtfile", "dump.bin"}, "", "de ca fe ba d0 fe ff                           \n", "", 0},
		{[]string{"hexdump", "-C"}, "hello\nworld", "00000000  68 65 6c 6c 6f 0a 77 6f  72 6c 64                 |hello.world|\n0000000b\n", "", 0},
		{[]string{"hexdump", "-C", "-"}, "abc", "00000000  61 62 63                                          |abc|\n00000003\n", "", 0},
		{[]string{"hexdump", "-s", "2", "-C"}, "hello", "", "hexdump: stdin: Illegal seek\n", 1},
		{[]string{"hexdump", "-C", "empty"}, "", "", "", 0},
		{[]string{"hexdump", "-C", "az", "dump.bin"}, "", "00000000  61 62 63 64 65 66 67 68  69 6a 6b 6c 6d 6e 6f 70  |abcdefghijklmnop|\n00000010  71 72 73 74 75 76 77 78  79 7a de ca fe ba d0 fe  |qrstuvwxyz......|\n00000020  ff                                                |.|\n00000021\n", "", 0},
		{[]string{"hexdump", "-e", "x"}, "", "", "hexdump: bad format {x}\n", 1},
		{[]string{"hexdump", "-e", "\"%q\"", "az"}, "", "", "hexdump: bad conversion character %q\n", 1},
		{[]string{"hexdump", "-e", "4/3 \"%x\"", "az"}, "", "", "hexdump: bad byte count for conversion character x\n", 1},
		{[]string{"hexdump", "-e", "4/1 \"%x %x\"", "az"}, "", "", "hexdump: byte count with multiple conversion characters\n", 1},
		{[]string{"hexdump", "-e", "\"%s\"", "az"}, "", "", "hexdump: %s needs precision or byte count\n", 1},
		{[]string{"hexdump", "-f", "nosuch", "az"}, "", "", "hexdump: can't open 'nosuch': No such file or directory\n", 1},
		{[]string{"hexdump", "-n", "x", "az"}, "", "", "hexdump: invalid number 'x'\n", 1},
		{[]string{"hexdump", "-s", "1q", "az"}, "", "", "hexdump: invalid number '1q'\n", 1},
		{[]string{"hexdump", "-q"}, "", "", "hexdump: invalid option -- 'q'\n" + usageOf("hexdump"), 1},
		{[]string{"hexdump", "-e"}, "", "", "hexdump: option requires an argument -- 'e'\n" + usageOf("hexdump"), 1},
		{[]string{"hexdump", "--help"}, "", "", "" + usageOf("hexdump"), 0},
		{[]string{"hexdump", "nosuch"}, "", "", "hexdump: nosuch: No such file or directory\n", 1},
		{[]string{"hexdump", "nosuch", "dump.bin"}, "", "0000000 cade bafe fed0 00ff                    \n0000007\n", "hexdump: nosuch: No such file or directory\n", 1},
		{[]string{"hexdump", "dir"}, "", "", "hexdump: dir: Is a directory\n", 0},
		{[]string{"xxd", "dump.bin"}, "", "00000000: deca feba d0fe ff                        .......\n", "", 0},
		{[]string{"xxd", "az"}, "", "00000000: 6162 6364 6566 6768 696a 6b6c 6d6e 6f70  abcdefghijklmnop\n00000010: 7172 7374 7576 7778 797a                 qrstuvwxyz\n", "", 0},
		{[]string{"xxd", "-p", "all"}, "", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d\n1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b\n3c3d3e3f404142434445464748494a4b4c4d4e4f50515253545556575859\n5a5b5c5d5e5f606162636465666768696a6b6c6d6e6f7071727374757677\n78797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495\n969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3\nb4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1\nd2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef\nf0f1f2f3f4f5f6f7f8f9fafbfcfdfeff\n", "", 0},
		{[]string{"xxd", "-p", "dump.bin"}, "", "decafebad0feff\n", "", 0},
		{[]string{"xxd", "-l", "5", "az"}, "", "00000000: 6162 6364 65                             abcde\n", "", 0},
		{[]string{"xxd", "-s", "5", "-l", "8", "az"}, "", "00000005: 6667 6869 6a6b 6c6d                      fghijklm\n", "", 0},
		{[]string{"xxd", "-c", "8", "az"}, "", "00000000: 6162 6364 6566 6768  abcdefgh\n00000008: 696a 6b6c 6d6e 6f70  ijklmnop\n00000010: 7172 7374 7576 7778  qrstuvwx\n00000018: 797a                 yz\n", "", 0},
		{[]string{"xxd", "-c", "5", "-g", "3", "az"}, "", "00000000: 616263 6465  abcde\n00000005: 666768 696a  fghij\n0000000a: 6b6c6d 6e6f  klmno\n0000000f: 707172 7374  pqrst\n00000014: 757677 7879  uvwxy\n00000019: 7a           z\n", "", 0},
		{[]string{"xxd", "-g", "1", "dump.bin"}, "", "00000000: de ca fe ba d0 fe ff                             .......\n", "", 0},
		{[]string{"xxd", "-g", "0", "az"}, "", "00000000: 6162636465666768696a6b6c6d6e6f70  abcdefghijklmnop\n00000010: 7172737475767778797a              qrstuvwxyz\n", "", 0},
		{[]string{"xxd", "-i", "az"}, "", "unsigned char az[] = {\n  0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c,\n  0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78,\n  0x79, 0x7a,\n};\nunsigned int az_len = 26;\n", "", 0},
		{[]string{"xxd", "-i"}, "hi", "  0x68, 0x69,\n", "", 0},
		{[]string{"xxd", "-o", "0x100", "-s", "3", "az"}, "", "00000103: 6465 6667 6869 6a6b 6c6d 6e6f 7071 7273  defghijklmnopqrs\n00000113: 7475 7677 7879 7a                        tuvwxyz\n", "", 0},
		{[]string{"xxd", "-u", "az"}, "", "", "xxd: invalid option -- 'u'\n" + usageOf("xxd"), 1},
		{[]string{"xxd", "a", "b"}, "", "", "" + usageOf("xxd"), 1},
		{[]string{"xxd", "-c", "x", "az"}, "", "", "xxd: invalid number 'x'\n", 1},
		{[]string{"xxd", "nosuch"}, "", "", "xxd: nosuch: No such file or directory\n", 1},
		{[]string{"xxd", "-r", "-p", "revp.txt"}, "", "deca\xfe", "", 0},
		{[]string{"xxd", "-r", "rev.txt"}, "", "0123\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00A", "", 0},
		{[]string{"xxd", "-r", "-p"}, "30 !31 !!32\n", "01", "", 0},
		{[]string{"xxd", "-r", "-p"}, "31 3\n2 0a\n", "12\n", "", 0},
		{[]string{"xxd", "-r"}, "00000004: 4142\n00000001: 43\n", "\x00\x00\x00\x00AB", "xxd: cannot seek: Illegal seek\n", 1},
		{[]string{"xxd", "-r", "nosuch"}, "", "", "xxd: can't open 'nosuch': No such file or directory\n", 1},
		{[]string{"od", "dump.bin"}, "", "0000000 145336 135376 177320 000377\n0000007\n", "", 0},
		{[]string{"od", "az"}, "", "0000000 061141 062143 063145 064147 065151 066153 067155 070157\n0000020 071161 072163 073165 074167 075171\n0000032\n", "", 0},
		{[]string{"od", "-t", "x1", "dump.bin"}, "", "0000000 de ca fe ba d0 fe ff\n0000007\n", "", 0},
		{[]string{"od", "-t", "x1", "az"}, "", "0000000 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70\n0000020 71 72 73 74 75 76 77 78 79 7a\n0000032\n", "", 0},
		{[]string{"od", "-c", "mixed"}, "", "0000000   h   e   l   l   o       w   o   r   l   d  \\n  \\0  \\0  \\0  \\0\n0000020  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0\n*\n0000060  \\0  \\0  \\0  \\0   t   a   i   l  \\t 001 177 200 377       e   n\n0000100   d  \\n\n0000102\n", "", 0},
		{[]string{"od", "-a", "-N", "16", "all"}, "", "0000000 nul soh stx etx eot enq ack bel  bs  ht  nl  vt  ff  cr  so  si\n0000020\n", "", 0},
		{[]string{"od", "-b", "dump.bin"}, "", "0000000 336 312 376 272 320 376 377\n0000007\n", "", 0},
		{[]string{"od", "-d", "dump.bin"}, "", "0000000 51934 47870 65232   255\n0000007\n", "", 0},
		{[]string{"od", "-x", "dump.bin"}, "", "0000000 cade bafe fed0 00ff\n0000007\n", "", 0},
		{[]string{"od", "-t", "d1", "-j", "0x78", "-N", "16", "all"}, "", "0000170  120  121  122  123  124  125  126  127 -128 -127 -126 -125 -124 -123 -122 -121\n0000210\n", "", 0},
		{[]string{"od", "-t", "u4", "-N", "16", "all"}, "", "0000000   50462976  117835012  185207048  252579084\n0000020\n", "", 0},
		{[]string{"od", "-t", "x8", "az"}, "", "0000000 6867666564636261 706f6e6d6c6b6a69\n0000020 7877767574737271 0000000000007a79\n0000032\n", "", 0},
		{[]string{"od", "-t", "dC", "-t", "xS", "az"}, "", "0000000   97   98   99  100  101  102  103  104  105  106  107  108  109  110  111  112\n        6261 6463 6665 6867 6a69 6c6b 6e6d 706f\n0000020  113  114  115  116  117  118  119  120  121  122\n        7271 7473 7675 7877 7a79\n0000032\n", "", 0},
		{[]string{"od", "-t", "xCz", "mixed"}, "", "0000000 68 65 6c 6c 6f 20 77 6f 72 6c 64 0a 00 00 00 00  >hello world.....<\n0000020 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  >................<\n*\n0000060 00 00 00 00 74 61 69 6c 09 01 7f 80 ff 20 65 6e  >....tail..... en<\n0000100 64 0a                                            >d.<\n0000102\n", "", 0},
		{[]string{"od", "-A", "x", "-t", "x1", "az"}, "", "000000 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70\n000010 71 72 73 74 75 76 77 78 79 7a\n00001a\n", "", 0},
		{[]string{"od", "-A", "d", "dump.bin"}, "", "0000000 145336 135376 177320 000377\n0000007\n", "", 0},
		{[]string{"od", "-A", "n", "-t", "x1", "az"}, "", " 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70\n 71 72 73 74 75 76 77 78 79 7a\n", "", 0},
		{[]string{"od", "-N", "5", "az"}, "", "0000000 061141 062143 000145\n0000005\n", "", 0},
		{[]string{"od", "-j", "5", "-N", "4", "-t", "c", "az"}, "", "0000005   f   g   h   i\n0000011\n", "", 0},
		{[]string{"od", "-j", "100", "az"}, "", "", "od: can't skip past end of combined input\n", 1},
		{[]string{"od", "zeros"}, "", "0000000 000000 000000 000000 000000 000000 000000 000000 000000\n*\n0000140 000000 000000\n0000144\n", "", 0},
		{[]string{"od", "-v", "-t", "x1", "-N", "32", "zeros"}, "", "0000000 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n0000020 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n0000040\n", "", 0},
		{[]string{"od", "-w8", "az"}, "", "0000000 061141 062143 063145 064147\n0000010 065151 066153 067155 070157\n0000020 071161 072163 073165 074167\n0000030 075171\n0000032\n", "", 0},
		{[]string{"od", "-w3", "-t", "x2", "-N", "4", "az"}, "", "0000000 6261\n0000002 6463\n0000004\n", "od: warning: invalid width 3; using 2 instead\n", 0},
		{[]string{"od", "-t", "f4", "-N", "16", "az"}, "", "0000000   1.6777999e+22   4.3710220e+24   1.1384003e+27   2.9640166e+29\n0000020\n", "", 0},
		{[]string{"od", "-S", "3"}, "abc\x00de\x00fghi\x00", "0000000 abc\n0000007 fghi\n", "", 0},
		{[]string{"od", "-t", "q", "az"}, "", "", "od: invalid character 'q' in type string 'q'\n", 1},
		{[]string{"od", "-t", "x3", "az"}, "", "", "od: invalid type string 'x3'; 3-byte integral type is not supported\n", 1},
		{[]string{"od", "-A", "q", "az"}, "", "", "od: bad output address radix 'q' (must be [doxn])\n", 1},
		{[]string{"od", "-Q"}, "", "", "od: invalid option -- 'Q'\n" + usageOf("od"), 1},
		{[]string{"od", "--bogus"}, "", "", "od: unrecognized option '--bogus'\n" + usageOf("od"), 1},
		{[]string{"od", "--read-bytes=4", "--format=x1", "az"}, "", "0000000 61 62 63 64\n0000004\n", "", 0},
		{[]string{"od", "nosuch"}, "", "", "od: nosuch: No such file or directory\n", 1},
		{[]string{"od", "nosuch", "dump.bin"}, "", "0000000 145336 135376 177320 000377\n0000007\n", "od: nosuch: No such file or directory\n", 1},
		{[]string{"od", "dir"}, "", "0000000\n", "od: dir: read error\n", 1},
		{[]string{"od", "empty"}, "", "0000000\n", "", 0},
		{[]string{"od", "-t", "x1"}, "hello", "0000000 68 65 6c 6c 6f\n0000005\n", "", 0},
	} {
		out, errs, code := run1(t, sys, c.stdin, c.argv...)
		if out != c.out || errs != c.errs || code != c.wantStatus {
			t.Errorf("%q: got\n(%q, %q, %d), want\n(%q, %q, %d)", c.argv, out, errs, code, c.out, c.errs, c.wantStatus)
		}
	}
}

// The conformance test "ConfigMap binary data should be reflected in
// volume" greps hexdump -C for the bytes; the local-volume e2e reads a
// file back with hexdump -n 100 -e '100 "%_p"'.
func TestE2EUses(t *testing.T) {
	sys, fs := newSys(t)
	fs.Put("/etc/configmap-volume/dump.bin", "\xde\xca\xfe\xba\xd0\xfe\xff", 0o644)
	out, _, code := run1(t, sys, "", "hexdump", "-C", "/etc/configmap-volume/dump.bin")
	if code != 0 || !strings.Contains(out, "de ca fe ba d0 fe ff") {
		t.Errorf("hexdump -C: %q %d", out, code)
	}
	fs.Put("/mnt/test-file", "test-file-content\n"+strings.Repeat("x", 200), 0o644)
	out, _, _ = run1(t, sys, "", "hexdump", "-n", "100", "-e", `100 "%_p"`, "/mnt/test-file")
	if want := "test-file-content." + strings.Repeat("x", 82); out != want {
		t.Errorf("hexdump -e: %q, want %q", out, want)
	}
}

// xxd -p and xxd -r -p undo each other, whatever the bytes.
func TestXxdRoundTrip(t *testing.T) {
	sys, fs := newSys(t)
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	fs.Put("/data", string(data), 0o644)
	hex, _, code := run1(t, sys, "", "xxd", "-p", "/data")
	if code != 0 || !strings.HasPrefix(hex, "00070e151c23") {
		t.Fatalf("xxd -p: %q %d", hex, code)
	}
	back, errs, code := run1(t, sys, hex, "xxd", "-r", "-p")
	if back != string(data) || code != 0 {
		t.Errorf("xxd -r -p: %d bytes, %q %d", len(back), errs, code)
	}
	dump, _, _ := run1(t, sys, "", "xxd", "/data")
	if back, _, _ = run1(t, sys, dump, "xxd", "-r"); back != string(data) {
		t.Errorf("xxd -r of xxd: %d bytes", len(back))
	}
}

// Every format the engine takes either prints or is refused in
// busybox's words: never a panic; a format that runs (almost) forever,
// as busybox's would, stops with its process.
func TestNoPanics(t *testing.T) {
	sys, _ := newSys(t)
	for _, f := range []string{`"%`, `"%_"`, `"%_a"`, `"%l"`, `"%ll"`, `"%.s"`, `1/0 "%x"`, `99999999999/1 "%x"`,
		`"%_A"`, `"%-#+ 08.3x"`, `"\\x"`, `"\\"`, `"%_Ad"`, `1/16 "%s"`, `"%.99999999999s"`, `/8 "%e"`} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		p := &program.Proc{Args: []string{"hexdump", "-e", f, "/all"}, Dir: "/", Stdin: strings.NewReader(""),
			Stdout: io.Discard, Stderr: io.Discard, Sys: sys}
		if _, err := sys.Exec(ctx, p); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
}
