package textapplets

import "testing"

// cut -b LIST | -c LIST | -f LIST [-d SEP] [-s] [FILE]...: a line
// without the delimiter passes whole unless -s.
func TestCut(t *testing.T) {
	e := newEnv()
	e.fs.Put("/p", "root:x:0:0\nbin:x:1:1\nno-colon\n", 0o644)
	e.check(t, []tc{
		{argv: a("cut -d: -f1,3 /p"), out: "root:0\nbin:1\nno-colon\n"},
		{argv: a("cut -d : -f 3- /p"), out: "0:0\n1:1\nno-colon\n"},
		{argv: a("cut -sd: -f-2 /p"), out: "root:x\nbin:x\n"},
		{argv: a("cut -c 2-3 /p"), out: "oo\nin\no-\n"},
		{argv: a("cut -b1,3 /p"), out: "ro\nbn\nn-\n"},
		{argv: a("cut -f2"), stdin: "a\tb\tc\n", out: "b\n"},
		{argv: a("cut -d: -f9 /p"), out: "\n\nno-colon\n"},
		{argv: a("cut -d: /p"), err: "cut: expected a list of bytes, characters, or fields", code: 1},
		{argv: a("cut -f 0 /p"), err: "cut: invalid list '0'", code: 1},
		{argv: a("cut -f 3-1 /p"), err: "cut: invalid list '3-1'", code: 1},
		{argv: a("cut -d ab -f1 /p"), err: "cut: the delimiter must be a single character", code: 1},
		{argv: a("cut -f1 /nosuch"), err: "cut: /nosuch: No such file or directory", code: 1},
		{argv: a("cut -x /p"), err: "cut: invalid option -- 'x'", code: 1},
	})
}

// tr [-cds] STRING1 [STRING2]: ranges, classes and escapes; a short
// STRING2 repeats its last byte.
func TestTr(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{
		{argv: a("tr a-c A-C"), stdin: "abcd\n", out: "ABCd\n"},
		{argv: a("tr abc x"), stdin: "abcd\n", out: "xxxd\n"},
		{argv: a("tr [:lower:] [:upper:]"), stdin: "Hi 1\n", out: "HI 1\n"},
		{argv: []string{"tr", `\n`, " "}, stdin: "a\nb\n", out: "a b "},
		{argv: a("tr -d [:digit:]"), stdin: "a1b22\n", out: "ab\n"},
		{argv: a("tr -cd [:alpha:]"), stdin: "a1 b-c\n", out: "abc"},
		{argv: []string{"tr", "-s", " "}, stdin: "a   b  c\n", out: "a b c\n"},
		{argv: a("tr -s a-z A-Z"), stdin: "aabbc\n", out: "ABC\n"},
		{argv: a("tr -c a-z _"), stdin: "ab-c\n", out: "ab_c_"},
		{argv: a("tr"), err: "tr: missing operand", code: 1},
		{argv: a("tr a"), err: "tr: missing operand", code: 1},
		{argv: a("tr -z a b"), err: "tr: invalid option -- 'z'", code: 1},
	})
}

// sort [-nrufbs] [-t CHAR] [-k N[,M]] [-o FILE] [FILE]...: a key from
// field N to field M (the line's end without M); ties fall back to the
// whole line unless -s.
func TestSort(t *testing.T) {
	e := newEnv()
	e.fs.Put("/s", "b 2 z\na 10 y\nc 2 a\n", 0o644)
	e.check(t, []tc{
		{argv: a("sort /s"), out: "a 10 y\nb 2 z\nc 2 a\n"},
		{argv: a("sort -r /s"), out: "c 2 a\nb 2 z\na 10 y\n"},
		{argv: a("sort -k2 /s"), out: "a 10 y\nc 2 a\nb 2 z\n"},
		{argv: a("sort -k2,2 /s"), out: "a 10 y\nb 2 z\nc 2 a\n"},
		{argv: a("sort -k2,2n /s"), out: "b 2 z\nc 2 a\na 10 y\n"},
		{argv: a("sort -n -k2,2 -k3 /s"), out: "b 2 z\nc 2 a\na 10 y\n"},
		{argv: a("sort -k2,2n -k3 /s"), out: "c 2 a\nb 2 z\na 10 y\n"},
		{argv: a("sort -t, -k2"), stdin: "x,b\ny,a\n", out: "y,a\nx,b\n"},
		{argv: a("sort -f"), stdin: "b\nA\na\n", out: "A\na\nb\n"},
		{argv: a("sort -u"), stdin: "b\na\nb\n", out: "a\nb\n"},
		{argv: a("sort -n"), stdin: "10\n-1\n9\nx\n", out: "-1\nx\n9\n10\n"},
		{argv: a("sort -b"), stdin: "  b\na\n", out: "a\n  b\n"},
		{argv: a("sort -o /sorted /s")},
		{argv: a("sort -z"), err: "sort: invalid option -- 'z'", code: 1},
	})
	if got := e.fs.Read("/sorted"); got != "a 10 y\nb 2 z\nc 2 a\n" {
		t.Errorf("sort -o wrote %q", got)
	}
}

// uniq [-cdui] [INPUT [OUTPUT]]: adjacent repeats; -c counts in a
// 7-wide column.
func TestUniq(t *testing.T) {
	e := newEnv()
	e.fs.Put("/u", "a\na\nb\nA\nc\nc\n", 0o644)
	e.check(t, []tc{
		{argv: a("uniq /u"), out: "a\nb\nA\nc\n"},
		{argv: a("uniq -c /u"), out: "      2 a\n      1 b\n      1 A\n      2 c\n"},
		{argv: a("uniq -d /u"), out: "a\nc\n"},
		{argv: a("uniq -u /u"), out: "b\nA\n"},
		{argv: a("uniq -i"), stdin: "b\nB\nb\n", out: "b\n"},
		{argv: a("uniq -ci"), stdin: "a\nA\n", out: "      2 a\n"},
		{argv: a("uniq /u /out")},
		{argv: a("uniq -z"), err: "uniq: invalid option -- 'z'", code: 1},
	})
	if got := e.fs.Read("/out"); got != "a\nb\nA\nc\n" {
		t.Errorf("uniq INPUT OUTPUT wrote %q", got)
	}
}

// md5sum/sha256sum [-c[sw]] [FILE]...: "HASH  NAME" lines; -c checks a
// list of them.
func TestSums(t *testing.T) {
	e := newEnv()
	e.fs.Put("/h", "hi\n", 0o644)
	e.fs.Put("/list", "764efa883dda1e11db47671c4a3bbd9e  /h\n00000000000000000000000000000000  /h\n", 0o644)
	e.fs.Put("/good", "764efa883dda1e11db47671c4a3bbd9e  /h\n", 0o644)
	e.check(t, []tc{
		{argv: a("md5sum /h -"), stdin: "", out: "764efa883dda1e11db47671c4a3bbd9e  /h\nd41d8cd98f00b204e9800998ecf8427e  -\n"},
		{argv: a("sha256sum /h"), out: "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4  /h\n"},
		{argv: a("md5sum /nosuch"), err: "md5sum: can't open '/nosuch': No such file or directory", code: 1},
		{argv: a("md5sum -c /good"), out: "/h: OK\n"},
		{argv: a("md5sum -c /list"), out: "/h: OK\n/h: FAILED\n", err: "md5sum: WARNING: 1 of 2 computed checksums did NOT match", code: 1},
		{argv: a("md5sum -cs /list"), code: 1},
		{argv: a("md5sum -c"), stdin: "764efa883dda1e11db47671c4a3bbd9e  /nosuch\n", out: "/nosuch: FAILED\n",
			err: "md5sum: can't open '/nosuch': No such file or directory\nmd5sum: WARNING: 1 of 1 computed checksums did NOT match", code: 1},
		{argv: a("md5sum -cw"), stdin: "junk\n", err: "md5sum: invalid format", code: 1},
		{argv: a("md5sum -q /h"), err: "md5sum: invalid option -- 'q'", code: 1},
	})
}

// base64 [-d] [-w COL] [FILE]: 76 columns unless -w (0: no wrapping).
func TestBase64(t *testing.T) {
	e := newEnv()
	long := "0123456789012345678901234567890123456789012345678901234567"
	e.check(t, []tc{
		{argv: a("base64"), stdin: "", out: ""},
		{argv: a("base64"), stdin: long, out: "MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2\nNw==\n"},
		{argv: a("base64 -w 0"), stdin: long, out: "MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nw==\n"},
		{argv: a("base64 -w8"), stdin: "hello", out: "aGVsbG8=\n"},
		{argv: a("base64 -w4"), stdin: "hello", out: "aGVs\nbG8=\n"},
		{argv: a("base64 -d"), stdin: "aGVs\nbG8=\n", out: "hello"},
		{argv: a("base64 -di"), stdin: "aGVs*bG8=", out: "hello"},
		{argv: a("base64 -d"), stdin: "a*", err: "base64: invalid input", code: 1},
		{argv: a("base64 -w x"), err: "base64: invalid number 'x'", code: 1},
	})
}

// awk: only `{print ...}` programs with -F are emulated; anything else
// is refused by name.
func TestAwkPrint(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{
		{argv: []string{"awk", "{print $1}"}, stdin: "a b\n c  d\n", out: "a\nc\n"},
		{argv: []string{"awk", "{print $NF, NF}"}, stdin: "a b c\n", out: "c 3\n"},
		{argv: []string{"awk", "{print $0}"}, stdin: "x  y\n", out: "x  y\n"},
		{argv: []string{"awk", `{print "k=" $2}`}, stdin: "a b\n", out: "k=b\n"},
		{argv: []string{"awk", "-F,", "{print $2}"}, stdin: "a,,c\n", out: "\n"},
		{argv: []string{"awk", "-Ft", "{print $2}"}, stdin: "a\tb\n", out: "b\n"},
		{argv: []string{"awk", "BEGIN {x=1}"}, err: "awk: unsupported program (winkube emulation)", code: 1},
	})
}

// expr's errors: busybox's wording and status 2; a null or zero result
// is status 1.
func TestExprErrors(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{
		{argv: a("expr 1 / 0"), err: "expr: division by zero", code: 2},
		{argv: a("expr 5 % 0"), err: "expr: division by zero", code: 2},
		{argv: a("expr a + 1"), err: "expr: non-numeric argument", code: 2},
		{argv: []string{"expr", "x", ":", "("}, err: "expr: syntax error", code: 2},
		{argv: a("expr ( 1"), err: "expr: syntax error", code: 2},
		{argv: []string{"expr", ""}, out: "\n", code: 1},
		{argv: a("expr 7 - 10"), out: "-3\n"},
		{argv: a("expr abc < abd"), out: "1\n"},
		{argv: a("expr 2 != 2"), out: "0\n", code: 1},
	})
}
