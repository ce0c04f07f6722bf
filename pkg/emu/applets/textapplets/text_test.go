package textapplets

import "testing"

// cut -b LIST | -c LIST | -f LIST [-d SEP] [-s] [FILE]...: a line
// without the delimiter passes whole unless -s.
func TestCut(t *testing.T) {
	e := newEnv()
	e.FS.Put("/p", "root:x:0:0\nbin:x:1:1\nno-colon\n", 0o644)
	e.Check(t, []tc{
		{Argv: a("cut -d: -f1,3 /p"), Out: "root:0\nbin:1\nno-colon\n"},
		{Argv: a("cut -d : -f 3- /p"), Out: "0:0\n1:1\nno-colon\n"},
		{Argv: a("cut -sd: -f-2 /p"), Out: "root:x\nbin:x\n"},
		{Argv: a("cut -c 2-3 /p"), Out: "oo\nin\no-\n"},
		{Argv: a("cut -b1,3 /p"), Out: "ro\nbn\nn-\n"},
		{Argv: a("cut -f2"), Stdin: "a\tb\tc\n", Out: "b\n"},
		{Argv: a("cut -d: -f9 /p"), Out: "\n\nno-colon\n"},
		{Argv: a("cut -d: /p"), Err: "cut: expected a list of bytes, characters, or fields", Code: 1},
		{Argv: a("cut -f 0 /p"), Err: "cut: invalid list '0'", Code: 1},
		{Argv: a("cut -f 3-1 /p"), Err: "cut: invalid list '3-1'", Code: 1},
		{Argv: a("cut -d ab -f1 /p"), Err: "cut: the delimiter must be a single character", Code: 1},
		{Argv: a("cut -f1 /nosuch"), Err: "cut: /nosuch: No such file or directory", Code: 1},
		{Argv: a("cut -x /p"), Err: "cut: invalid option -- 'x'", Code: 1},
	})
}

// tr [-cds] STRING1 [STRING2]: ranges, classes and escapes; a short
// STRING2 repeats its last byte.
func TestTr(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{
		{Argv: a("tr a-c A-C"), Stdin: "abcd\n", Out: "ABCd\n"},
		{Argv: a("tr abc x"), Stdin: "abcd\n", Out: "xxxd\n"},
		{Argv: a("tr [:lower:] [:upper:]"), Stdin: "Hi 1\n", Out: "HI 1\n"},
		{Argv: []string{"tr", `\n`, " "}, Stdin: "a\nb\n", Out: "a b "},
		{Argv: a("tr -d [:digit:]"), Stdin: "a1b22\n", Out: "ab\n"},
		{Argv: a("tr -cd [:alpha:]"), Stdin: "a1 b-c\n", Out: "abc"},
		{Argv: []string{"tr", "-s", " "}, Stdin: "a   b  c\n", Out: "a b c\n"},
		{Argv: a("tr -s a-z A-Z"), Stdin: "aabbc\n", Out: "ABC\n"},
		{Argv: a("tr -c a-z _"), Stdin: "ab-c\n", Out: "ab_c_"},
		{Argv: a("tr"), Err: "tr: missing operand", Code: 1},
		{Argv: a("tr a"), Err: "tr: missing operand", Code: 1},
		{Argv: a("tr -z a b"), Err: "tr: invalid option -- 'z'", Code: 1},
	})
}

// sort [-nrufbs] [-t CHAR] [-k N[,M]] [-o FILE] [FILE]...: a key from
// field N to field M (the line's end without M); ties fall back to the
// whole line unless -s.
func TestSort(t *testing.T) {
	e := newEnv()
	e.FS.Put("/s", "b 2 z\na 10 y\nc 2 a\n", 0o644)
	e.Check(t, []tc{
		{Argv: a("sort /s"), Out: "a 10 y\nb 2 z\nc 2 a\n"},
		{Argv: a("sort -r /s"), Out: "c 2 a\nb 2 z\na 10 y\n"},
		{Argv: a("sort -k2 /s"), Out: "a 10 y\nc 2 a\nb 2 z\n"},
		{Argv: a("sort -k2,2 /s"), Out: "a 10 y\nb 2 z\nc 2 a\n"},
		{Argv: a("sort -k2,2n /s"), Out: "b 2 z\nc 2 a\na 10 y\n"},
		{Argv: a("sort -n -k2,2 -k3 /s"), Out: "b 2 z\nc 2 a\na 10 y\n"},
		{Argv: a("sort -k2,2n -k3 /s"), Out: "c 2 a\nb 2 z\na 10 y\n"},
		{Argv: a("sort -t, -k2"), Stdin: "x,b\ny,a\n", Out: "y,a\nx,b\n"},
		{Argv: a("sort -f"), Stdin: "b\nA\na\n", Out: "A\na\nb\n"},
		{Argv: a("sort -u"), Stdin: "b\na\nb\n", Out: "a\nb\n"},
		{Argv: a("sort -n"), Stdin: "10\n-1\n9\nx\n", Out: "-1\nx\n9\n10\n"},
		{Argv: a("sort -b"), Stdin: "  b\na\n", Out: "a\n  b\n"},
		{Argv: a("sort -o /sorted /s")},
		{Argv: a("sort -z"), Err: "sort: invalid option -- 'z'", Code: 1},
	})
	if got := e.FS.Read("/sorted"); got != "a 10 y\nb 2 z\nc 2 a\n" {
		t.Errorf("sort -o wrote %q", got)
	}
}

// uniq [-cdui] [INPUT [OUTPUT]]: adjacent repeats; -c counts in a
// 7-wide column.
func TestUniq(t *testing.T) {
	e := newEnv()
	e.FS.Put("/u", "a\na\nb\nA\nc\nc\n", 0o644)
	e.Check(t, []tc{
		{Argv: a("uniq /u"), Out: "a\nb\nA\nc\n"},
		{Argv: a("uniq -c /u"), Out: "      2 a\n      1 b\n      1 A\n      2 c\n"},
		{Argv: a("uniq -d /u"), Out: "a\nc\n"},
		{Argv: a("uniq -u /u"), Out: "b\nA\n"},
		{Argv: a("uniq -i"), Stdin: "b\nB\nb\n", Out: "b\n"},
		{Argv: a("uniq -ci"), Stdin: "a\nA\n", Out: "      2 a\n"},
		{Argv: a("uniq /u /out")},
		{Argv: a("uniq -z"), Err: "uniq: invalid option -- 'z'", Code: 1},
	})
	if got := e.FS.Read("/out"); got != "a\nb\nA\nc\n" {
		t.Errorf("uniq INPUT OUTPUT wrote %q", got)
	}
}

// md5sum/sha256sum [-c[sw]] [FILE]...: "HASH  NAME" lines; -c checks a
// list of them.
func TestSums(t *testing.T) {
	e := newEnv()
	e.FS.Put("/h", "hi\n", 0o644)
	e.FS.Put("/list", "764efa883dda1e11db47671c4a3bbd9e  /h\n00000000000000000000000000000000  /h\n", 0o644)
	e.FS.Put("/good", "764efa883dda1e11db47671c4a3bbd9e  /h\n", 0o644)
	e.Check(t, []tc{
		{Argv: a("md5sum /h -"), Stdin: "", Out: "764efa883dda1e11db47671c4a3bbd9e  /h\nd41d8cd98f00b204e9800998ecf8427e  -\n"},
		{Argv: a("sha256sum /h"), Out: "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4  /h\n"},
		{Argv: a("md5sum /nosuch"), Err: "md5sum: can't open '/nosuch': No such file or directory", Code: 1},
		{Argv: a("md5sum -c /good"), Out: "/h: OK\n"},
		{Argv: a("md5sum -c /list"), Out: "/h: OK\n/h: FAILED\n", Err: "md5sum: WARNING: 1 of 2 computed checksums did NOT match", Code: 1},
		{Argv: a("md5sum -cs /list"), Code: 1},
		{Argv: a("md5sum -c"), Stdin: "764efa883dda1e11db47671c4a3bbd9e  /nosuch\n", Out: "/nosuch: FAILED\n",
			Err: "md5sum: can't open '/nosuch': No such file or directory\nmd5sum: WARNING: 1 of 1 computed checksums did NOT match", Code: 1},
		{Argv: a("md5sum -cw"), Stdin: "junk\n", Err: "md5sum: invalid format", Code: 1},
		{Argv: a("md5sum -q /h"), Err: "md5sum: invalid option -- 'q'", Code: 1},
	})
}

// base64 [-d] [-w COL] [FILE]: 76 columns unless -w (0: no wrapping).
func TestBase64(t *testing.T) {
	e := newEnv()
	long := "0123456789012345678901234567890123456789012345678901234567"
	e.Check(t, []tc{
		{Argv: a("base64"), Stdin: "", Out: ""},
		{Argv: a("base64"), Stdin: long, Out: "MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2\nNw==\n"},
		{Argv: a("base64 -w 0"), Stdin: long, Out: "MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nw==\n"},
		{Argv: a("base64 -w8"), Stdin: "hello", Out: "aGVsbG8=\n"},
		{Argv: a("base64 -w4"), Stdin: "hello", Out: "aGVs\nbG8=\n"},
		{Argv: a("base64 -d"), Stdin: "aGVs\nbG8=\n", Out: "hello"},
		{Argv: a("base64 -di"), Stdin: "aGVs*bG8=", Out: "hello"},
		{Argv: a("base64 -d"), Stdin: "a*", Err: "base64: invalid input", Code: 1},
		{Argv: a("base64 -w x"), Err: "base64: invalid number 'x'", Code: 1},
	})
}

// awk: only `{print ...}` programs with -F are emulated; anything else
// is refused by name.
func TestAwkPrint(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{
		{Argv: []string{"awk", "{print $1}"}, Stdin: "a b\n c  d\n", Out: "a\nc\n"},
		{Argv: []string{"awk", "{print $NF, NF}"}, Stdin: "a b c\n", Out: "c 3\n"},
		{Argv: []string{"awk", "{print $0}"}, Stdin: "x  y\n", Out: "x  y\n"},
		{Argv: []string{"awk", `{print "k=" $2}`}, Stdin: "a b\n", Out: "k=b\n"},
		{Argv: []string{"awk", "-F,", "{print $2}"}, Stdin: "a,,c\n", Out: "\n"},
		{Argv: []string{"awk", "-Ft", "{print $2}"}, Stdin: "a\tb\n", Out: "b\n"},
		{Argv: []string{"awk", "BEGIN {x=1}"}, Err: "awk: unsupported program (winkube emulation)", Code: 1},
	})
}

// expr's errors: busybox's wording and status 2; a null or zero result
// is status 1.
func TestExprErrors(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{
		{Argv: a("expr 1 / 0"), Err: "expr: division by zero", Code: 2},
		{Argv: a("expr 5 % 0"), Err: "expr: division by zero", Code: 2},
		{Argv: a("expr a + 1"), Err: "expr: non-numeric argument", Code: 2},
		{Argv: []string{"expr", "x", ":", "("}, Err: "expr: syntax error", Code: 2},
		{Argv: a("expr ( 1"), Err: "expr: syntax error", Code: 2},
		{Argv: []string{"expr", ""}, Out: "\n", Code: 1},
		{Argv: a("expr 7 - 10"), Out: "-3\n"},
		{Argv: a("expr abc < abd"), Out: "1\n"},
		{Argv: a("expr 2 != 2"), Out: "0\n", Code: 1},
	})
}
