package fileapplets

import "testing"

// cat [-nbvteA] [FILE]...: -b numbers non-empty lines and wins over -n,
// flags combine, "--" ends them, "-" is stdin.
func TestCat(t *testing.T) {
	e := newEnv()
	e.fs.Put("/f", "a\n\nb\n", 0o644)
	e.fs.Put("/g", "g\n", 0o644)
	e.fs.Put("/-n", "dash\n", 0o644)
	e.check(t, []tc{
		{argv: args("cat /f /g"), out: "a\n\nb\ng\n"},
		{argv: args("cat /f - /g"), stdin: "in\n", out: "a\n\nb\nin\ng\n"},
		{argv: args("cat -n /f"), out: "     1\ta\n     2\t\n     3\tb\n"},
		{argv: args("cat -b /f"), out: "     1\ta\n\n     2\tb\n"},
		{argv: args("cat -nb /f"), out: "     1\ta\n\n     2\tb\n"},
		// Numbering runs on across files, as one stream.
		{argv: args("cat -n /g /g"), out: "     1\tg\n     2\tg\n"},
		{argv: args("cat -u /g"), out: "g\n"},
		{argv: args("cat -- -n"), out: "dash\n"},
		{argv: args("cat -x /f"), err: "cat: invalid option -- 'x'", code: 1},
		{argv: args("cat /g /nosuch /g"), out: "g\ng\n", err: "cat: can't open '/nosuch': No such file or directory", code: 1},
		{argv: args("cat /etc"), err: "cat: read error: Is a directory", code: 1},
	})
}

// cat -v shows control characters as ^X and high bytes as M-x; -t adds
// tabs as ^I, -e ends lines with $, -A is -vte.
func TestCatShowsNonprinting(t *testing.T) {
	e := newEnv()
	e.fs.Put("/v", "a\tb\x01\x7f\xe9\n", 0o644)
	e.check(t, []tc{
		{argv: args("cat -v /v"), out: "a\tb^A^?M-i\n"},
		{argv: args("cat -t /v"), out: "a^Ib^A^?M-i\n"},
		{argv: args("cat -e /v"), out: "a\tb^A^?M-i$\n"},
		{argv: args("cat -A /v"), out: "a^Ib^A^?M-i$\n"},
		{argv: args("cat -nA /v"), out: "     1\ta^Ib^A^?M-i$\n"},
	})
}

// tee copies stdin to stdout and each file; -a appends; a file it cannot
// open is reported and the rest still get the data.
func TestTee(t *testing.T) {
	e := newEnv()
	e.fs.Put("/old", "old\n", 0o644)
	e.check(t, []tc{
		{argv: args("tee /t1 /t2"), stdin: "x\n", out: "x\n"},
		{argv: args("tee -a /old"), stdin: "new\n", out: "new\n"},
		{argv: args("tee /nodir/f /t3"), stdin: "y\n", out: "y\n", err: "tee: /nodir/f: No such file or directory", code: 1},
		{argv: args("tee -q"), err: "tee: invalid option -- 'q'", code: 1},
	})
	for name, want := range map[string]string{"/t1": "x\n", "/t2": "x\n", "/old": "old\nnew\n", "/t3": "y\n"} {
		if got := e.fs.Read(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// head [-n N[kbm]] [-c N[kbm]] [-qv] [FILE]...: -n -N is all but the
// last N lines, -c -N all but the last N bytes; -N is the old -n N.
func TestHead(t *testing.T) {
	e := newEnv()
	e.fs.Put("/f", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", 0o644)
	e.fs.Put("/s", "one\ntwo\nthree\n", 0o644)
	e.check(t, []tc{
		{argv: args("head /f"), out: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"},
		{argv: args("head -n 2 /s"), out: "one\ntwo\n"},
		{argv: args("head -n2 /s"), out: "one\ntwo\n"},
		{argv: args("head -2 /s"), out: "one\ntwo\n"},
		{argv: args("head -n 0 /s"), out: ""},
		{argv: args("head -n -1 /s"), out: "one\ntwo\n"},
		{argv: args("head -n -5 /s"), out: ""},
		{argv: args("head -c 5 /s"), out: "one\nt"},
		{argv: args("head -c -4 /s"), out: "one\ntwo\nth"},
		{argv: args("head -c 1k /s"), out: "one\ntwo\nthree\n"},
		{argv: args("head -n 1 /s -"), stdin: "in\n", out: "==> /s <==\none\n\n==> standard input <==\nin\n"},
		{argv: args("head -qn 1 /s /s"), out: "one\none\n"},
		{argv: args("head -vn 1 /s"), out: "==> /s <==\none\n"},
		{argv: args("head -n x /s"), err: "head: invalid number 'x'", code: 1},
		{argv: args("head -n"), err: "head: option requires an argument -- 'n'", code: 1},
		{argv: args("head /nosuch"), err: "head: /nosuch: No such file or directory", code: 1},
	})
}

// tail [-n N] [-c N] [-qv] [FILE]...: +N counts from the start, -N and +N
// are the old forms.
func TestTail(t *testing.T) {
	e := newEnv()
	e.fs.Put("/s", "one\ntwo\nthree\n", 0o644)
	e.fs.Put("/nonl", "a\nb", 0o644)
	e.check(t, []tc{
		{argv: args("tail /s"), out: "one\ntwo\nthree\n"},
		{argv: args("tail -n 1 /s"), out: "three\n"},
		{argv: args("tail -1 /s"), out: "three\n"},
		{argv: args("tail +2 /s"), out: "two\nthree\n"},
		{argv: args("tail -n +1 /s"), out: "one\ntwo\nthree\n"},
		{argv: args("tail -n 0 /s"), out: ""},
		{argv: args("tail -n 1 /nonl"), out: "b"},
		{argv: args("tail -c 3 /s"), out: "ee\n"},
		{argv: args("tail -c +11 /s"), out: "ree\n"},
		{argv: args("tail -n 1 /s /nonl"), out: "==> /s <==\nthree\n\n==> /nonl <==\nb"},
		{argv: args("tail -q -n 1 /s /s"), out: "three\nthree\n"},
		{argv: args("tail -n 2"), stdin: "x\ny\nz\n", out: "y\nz\n"},
		{argv: args("tail -n z /s"), err: "tail: invalid number 'z'", code: 1},
		{argv: args("tail -j /s"), err: "tail: invalid option -- 'j'", code: 1},
		{argv: args("tail /nosuch"), err: "tail: can't open '/nosuch': No such file or directory", code: 1},
	})
}

// wc [-cmlwL] [FILE]...: columns in the order lines, words, chars,
// bytes, longest line; one column prints bare; more than one file adds a
// total line (-L's total is the maximum).
func TestWc(t *testing.T) {
	e := newEnv()
	e.fs.Put("/a", "one two\nthree\n", 0o644)
	e.fs.Put("/b", "x\ttab\n", 0o644)
	e.fs.Put("/u", "h\u00e9\n", 0o644)
	e.check(t, []tc{
		{argv: args("wc /a"), out: "      2       3      14 /a\n"},
		{argv: args("wc -l /a"), out: "2 /a\n"},
		{argv: args("wc -w /a"), out: "3 /a\n"},
		{argv: args("wc -c /u"), out: "4 /u\n"},
		{argv: args("wc -m /u"), out: "3 /u\n"},
		{argv: args("wc -L /a"), out: "7 /a\n"},
		// A tab moves to the next multiple of 8.
		{argv: args("wc -L /b"), out: "11 /b\n"},
		{argv: args("wc -lc /a"), out: "      2      14 /a\n"},
		{argv: args("wc -cl /a"), out: "      2      14 /a\n"},
		{argv: args("wc -l /a /b"), out: "2 /a\n1 /b\n3 total\n"},
		{argv: args("wc -L /a /b"), out: "7 /a\n11 /b\n11 total\n"},
		{argv: args("wc -w"), stdin: " a  b\n", out: "2\n"},
		{argv: args("wc -l /a /nosuch"), out: "2 /a\n2 total\n", err: "wc: /nosuch: No such file or directory", code: 1},
		{argv: args("wc -z"), err: "wc: invalid option -- 'z'", code: 1},
	})
}
