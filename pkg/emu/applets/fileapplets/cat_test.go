package fileapplets

import "testing"

// cat [-nbvteA] [FILE]...: -b numbers non-empty lines and wins over -n,
// flags combine, "--" ends them, "-" is stdin.
func TestCat(t *testing.T) {
	e := newEnv()
	e.FS.Put("/f", "a\n\nb\n", 0o644)
	e.FS.Put("/g", "g\n", 0o644)
	e.FS.Put("/-n", "dash\n", 0o644)
	e.Check(t, []tc{
		{Argv: args("cat /f /g"), Out: "a\n\nb\ng\n"},
		{Argv: args("cat /f - /g"), Stdin: "in\n", Out: "a\n\nb\nin\ng\n"},
		{Argv: args("cat -n /f"), Out: "     1\ta\n     2\t\n     3\tb\n"},
		{Argv: args("cat -b /f"), Out: "     1\ta\n\n     2\tb\n"},
		{Argv: args("cat -nb /f"), Out: "     1\ta\n\n     2\tb\n"},
		// Numbering runs on across files, as one stream.
		{Argv: args("cat -n /g /g"), Out: "     1\tg\n     2\tg\n"},
		{Argv: args("cat -u /g"), Out: "g\n"},
		{Argv: args("cat -- -n"), Out: "dash\n"},
		{Argv: args("cat -x /f"), Err: "cat: invalid option -- 'x'", Code: 1},
		{Argv: args("cat /g /nosuch /g"), Out: "g\ng\n", Err: "cat: can't open '/nosuch': No such file or directory", Code: 1},
		{Argv: args("cat /etc"), Err: "cat: read error: Is a directory", Code: 1},
	})
}

// cat -v shows control characters as ^X and high bytes as M-x; -t adds
// tabs as ^I, -e ends lines with $, -A is -vte.
func TestCatShowsNonprinting(t *testing.T) {
	e := newEnv()
	e.FS.Put("/v", "a\tb\x01\x7f\xe9\n", 0o644)
	e.Check(t, []tc{
		{Argv: args("cat -v /v"), Out: "a\tb^A^?M-i\n"},
		{Argv: args("cat -t /v"), Out: "a^Ib^A^?M-i\n"},
		{Argv: args("cat -e /v"), Out: "a\tb^A^?M-i$\n"},
		{Argv: args("cat -A /v"), Out: "a^Ib^A^?M-i$\n"},
		{Argv: args("cat -nA /v"), Out: "     1\ta^Ib^A^?M-i$\n"},
	})
}

// tee copies stdin to stdout and each file; -a appends; a file it cannot
// open is reported and the rest still get the data.
func TestTee(t *testing.T) {
	e := newEnv()
	e.FS.Put("/old", "old\n", 0o644)
	e.Check(t, []tc{
		{Argv: args("tee /t1 /t2"), Stdin: "x\n", Out: "x\n"},
		{Argv: args("tee -a /old"), Stdin: "new\n", Out: "new\n"},
		{Argv: args("tee /nodir/f /t3"), Stdin: "y\n", Out: "y\n", Err: "tee: /nodir/f: No such file or directory", Code: 1},
		{Argv: args("tee -q"), Err: "tee: invalid option -- 'q'", Code: 1},
	})
	for name, want := range map[string]string{"/t1": "x\n", "/t2": "x\n", "/old": "old\nnew\n", "/t3": "y\n"} {
		if got := e.FS.Read(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// head [-n N[kbm]] [-c N[kbm]] [-qv] [FILE]...: -n -N is all but the
// last N lines, -c -N all but the last N bytes; -N is the old -n N.
func TestHead(t *testing.T) {
	e := newEnv()
	e.FS.Put("/f", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", 0o644)
	e.FS.Put("/s", "one\ntwo\nthree\n", 0o644)
	e.Check(t, []tc{
		{Argv: args("head /f"), Out: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"},
		{Argv: args("head -n 2 /s"), Out: "one\ntwo\n"},
		{Argv: args("head -n2 /s"), Out: "one\ntwo\n"},
		{Argv: args("head -2 /s"), Out: "one\ntwo\n"},
		{Argv: args("head -n 0 /s"), Out: ""},
		{Argv: args("head -n -1 /s"), Out: "one\ntwo\n"},
		{Argv: args("head -n -5 /s"), Out: ""},
		{Argv: args("head -c 5 /s"), Out: "one\nt"},
		{Argv: args("head -c -4 /s"), Out: "one\ntwo\nth"},
		{Argv: args("head -c 1k /s"), Out: "one\ntwo\nthree\n"},
		{Argv: args("head -n 1 /s -"), Stdin: "in\n", Out: "==> /s <==\none\n\n==> standard input <==\nin\n"},
		{Argv: args("head -qn 1 /s /s"), Out: "one\none\n"},
		{Argv: args("head -vn 1 /s"), Out: "==> /s <==\none\n"},
		{Argv: args("head -n x /s"), Err: "head: invalid number 'x'", Code: 1},
		{Argv: args("head -n"), Err: "head: option requires an argument -- 'n'", Code: 1},
		{Argv: args("head /nosuch"), Err: "head: /nosuch: No such file or directory", Code: 1},
	})
}

// tail [-n N] [-c N] [-qv] [FILE]...: +N counts from the start, -N and +N
// are the old forms.
func TestTail(t *testing.T) {
	e := newEnv()
	e.FS.Put("/s", "one\ntwo\nthree\n", 0o644)
	e.FS.Put("/nonl", "a\nb", 0o644)
	e.Check(t, []tc{
		{Argv: args("tail /s"), Out: "one\ntwo\nthree\n"},
		{Argv: args("tail -n 1 /s"), Out: "three\n"},
		{Argv: args("tail -1 /s"), Out: "three\n"},
		{Argv: args("tail +2 /s"), Out: "two\nthree\n"},
		{Argv: args("tail -n +1 /s"), Out: "one\ntwo\nthree\n"},
		{Argv: args("tail -n 0 /s"), Out: ""},
		{Argv: args("tail -n 1 /nonl"), Out: "b"},
		{Argv: args("tail -c 3 /s"), Out: "ee\n"},
		{Argv: args("tail -c +11 /s"), Out: "ree\n"},
		{Argv: args("tail -n 1 /s /nonl"), Out: "==> /s <==\nthree\n\n==> /nonl <==\nb"},
		{Argv: args("tail -q -n 1 /s /s"), Out: "three\nthree\n"},
		{Argv: args("tail -n 2"), Stdin: "x\ny\nz\n", Out: "y\nz\n"},
		{Argv: args("tail -n z /s"), Err: "tail: invalid number 'z'", Code: 1},
		{Argv: args("tail -j /s"), Err: "tail: invalid option -- 'j'", Code: 1},
		{Argv: args("tail /nosuch"), Err: "tail: can't open '/nosuch': No such file or directory", Code: 1},
	})
}

// wc [-cmlwL] [FILE]...: columns in the order lines, words, chars,
// bytes, longest line; one column prints bare; more than one file adds a
// total line (-L's total is the maximum).
func TestWc(t *testing.T) {
	e := newEnv()
	e.FS.Put("/a", "one two\nthree\n", 0o644)
	e.FS.Put("/b", "x\ttab\n", 0o644)
	e.FS.Put("/u", "h\u00e9\n", 0o644)
	e.Check(t, []tc{
		{Argv: args("wc /a"), Out: "      2       3      14 /a\n"},
		{Argv: args("wc -l /a"), Out: "2 /a\n"},
		{Argv: args("wc -w /a"), Out: "3 /a\n"},
		{Argv: args("wc -c /u"), Out: "4 /u\n"},
		{Argv: args("wc -m /u"), Out: "3 /u\n"},
		{Argv: args("wc -L /a"), Out: "7 /a\n"},
		// A tab moves to the next multiple of 8.
		{Argv: args("wc -L /b"), Out: "11 /b\n"},
		{Argv: args("wc -lc /a"), Out: "      2      14 /a\n"},
		{Argv: args("wc -cl /a"), Out: "      2      14 /a\n"},
		{Argv: args("wc -l /a /b"), Out: "2 /a\n1 /b\n3 total\n"},
		{Argv: args("wc -L /a /b"), Out: "7 /a\n11 /b\n11 total\n"},
		{Argv: args("wc -w"), Stdin: " a  b\n", Out: "2\n"},
		{Argv: args("wc -l /a /nosuch"), Out: "2 /a\n2 total\n", Err: "wc: /nosuch: No such file or directory", Code: 1},
		{Argv: args("wc -z"), Err: "wc: invalid option -- 'z'", Code: 1},
	})
}
