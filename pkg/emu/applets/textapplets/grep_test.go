package textapplets

import "testing"

// grep [-HhnlLoqvsrRiwFEx] [-m N] [-e PAT]... [-f FILE] [FILE]...: exit 0
// on a match, 1 on none, 2 on an error (unless -q matched).
func TestGrep(t *testing.T) {
	e := newEnv()
	e.fs.Put("/a", "alpha\nbeta\nAlpha beta\ngamma\n", 0o644)
	e.fs.Put("/b", "beta\n", 0o644)
	e.fs.Put("/pats", "gam\nalp\n", 0o644)
	e.fs.Put("/dir/x/deep", "needle\n", 0o644)
	e.fs.Put("/dir/y", "hay\n", 0o644)
	e.check(t, []tc{
		{argv: a("grep beta /a"), out: "beta\nAlpha beta\n"},
		{argv: a("grep -in alpha /a"), out: "1:alpha\n3:Alpha beta\n"},
		{argv: a("grep -vc a /a"), out: "0\n", code: 1},
		{argv: a("grep -c beta /a /b"), out: "/a:2\n/b:1\n"},
		{argv: a("grep -h beta /a /b"), out: "beta\nAlpha beta\nbeta\n"},
		{argv: a("grep -H gamma /a"), out: "/a:gamma\n"},
		{argv: a("grep -l beta /a /b"), out: "/a\n/b\n"},
		{argv: a("grep -L gamma /a /b"), out: "/b\n"},
		{argv: a("grep -x beta /a"), out: "beta\n"},
		{argv: a("grep -w Alpha /a"), out: "Alpha beta\n"},
		{argv: a("grep -w alp /a"), code: 1},
		{argv: a("grep -m1 beta /a"), out: "beta\n"},
		{argv: a("grep -e gamma -e beta /a"), out: "beta\nAlpha beta\ngamma\n"},
		{argv: a("grep -f /pats /a"), out: "alpha\ngamma\n"},
		{argv: a("grep -o a. /a"), out: "al\na \nam\n"},
		{argv: a("grep -oE (al|ga)[a-z] /a"), out: "alp\ngam\n"},
		{argv: a("grep ^a\\|^g /a"), out: "alpha\ngamma\n"},
		{argv: a("grep -E ^(a|g) /a"), out: "alpha\ngamma\n"},
		{argv: a("egrep a{2} /a"), code: 1},
		{argv: a("grep -F a.p /a"), code: 1},
		{argv: a("fgrep ta /b"), out: "beta\n"},
		{argv: a("grep -r needle /dir"), out: "/dir/x/deep:needle\n"},
		{argv: a("grep -rh needle /dir"), out: "needle\n"},
		{argv: a("grep -- -x /a"), code: 1},
		{argv: a("grep beta"), stdin: "beta\n", out: "beta\n"},
		{argv: a("grep -l beta -"), stdin: "beta\n", out: "(standard input)\n"},
		{argv: a("grep -q beta /nosuch /a"), err: "grep: /nosuch: No such file or directory"},
		{argv: a("grep beta /nosuch /b"), out: "/b:beta\n", err: "grep: /nosuch: No such file or directory", code: 2},
		{argv: a("grep -s beta /nosuch"), code: 2},
		{argv: a("grep -y x /a"), err: "grep: invalid option -- 'y'", code: 2},
		{argv: a("grep"), err: "Usage: grep", code: 2},
		{argv: a("grep -e"), err: "grep: option requires an argument -- 'e'", code: 2},
		{argv: a("grep -f /nosuch /a"), err: "grep: /nosuch: No such file or directory", code: 2},
	})
}

// grep -A/-B/-C N print N lines of context after/before/around each
// match, with "--" between groups that do not touch.
func TestGrepContext(t *testing.T) {
	e := newEnv()
	e.fs.Put("/c", "1\n2\nx3\n4\n5\n6\n7\nx8\n9\n", 0o644)
	e.check(t, []tc{
		{argv: a("grep -A1 x /c"), out: "x3\n4\n--\nx8\n9\n"},
		{argv: a("grep -B 1 x /c"), out: "2\nx3\n--\n7\nx8\n"},
		{argv: a("grep -C2 x /c"), out: "1\n2\nx3\n4\n5\n6\n7\nx8\n9\n"},
		{argv: a("grep -nA1 x /c"), out: "3:x3\n4-4\n--\n8:x8\n9-9\n"},
		{argv: a("grep -A1 -c x /c"), out: "2\n"},
		{argv: a("grep -A1 x8 /c /c"), out: "/c:x8\n/c-9\n--\n/c:x8\n/c-9\n"},
		{argv: a("grep -vB1 [0-9]$ /c"), code: 1},
		{argv: a("grep -A x x /c"), err: "grep: invalid number 'x'", code: 2},
	})
}

// sed [-inrE] [-e CMD]... [FILE]...: addresses (N, $, /re/, ranges),
// the p, d, q, = and s commands with their flags, and -i in place.
func TestSed(t *testing.T) {
	e := newEnv()
	e.fs.Put("/f", "one\ntwo\nthree\n", 0o644)
	e.fs.Put("/g", "four\n", 0o644)
	e.check(t, []tc{
		{argv: a("sed s/o/0/ /f"), out: "0ne\ntw0\nthree\n"},
		{argv: a("sed s/e/E/2 /f"), out: "one\ntwo\nthreE\n"},
		{argv: a("sed s/e/E/g /f"), out: "onE\ntwo\nthrEE\n"},
		{argv: a("sed -n s/two/2/p /f"), out: "2\n"},
		{argv: a("sed s/O/0/I /f"), out: "0ne\ntw0\nthree\n"},
		{argv: a("sed s|t|T|g /f"), out: "one\nTwo\nThree\n"},
		{argv: a("sed s/\\(o\\)\\(n\\)/\\2\\1/ /f"), out: "noe\ntwo\nthree\n"},
		{argv: a("sed -E s/(t)(w)/\\2\\1/ /f"), out: "one\nwto\nthree\n"},
		{argv: a("sed -r s/e+/<&>/ /f"), out: "on<e>\ntwo\nthr<ee>\n"},
		{argv: a("sed -n 2p /f"), out: "two\n"},
		{argv: a("sed -n $p /f /g"), out: "four\n"},
		{argv: a("sed -n 1,2p /f"), out: "one\ntwo\n"},
		{argv: a("sed -n /two/,$p /f"), out: "two\nthree\n"},
		{argv: a("sed 2d /f"), out: "one\nthree\n"},
		{argv: a("sed /^t/d /f"), out: "one\n"},
		{argv: a("sed 1!d /f"), out: "one\n"},
		{argv: a("sed -n /e$/!p /f"), out: "two\n"},
		{argv: a("sed 2,3!s/^/>/ /f"), out: ">one\ntwo\nthree\n"},
		{argv: a("sed 2q /f"), out: "one\ntwo\n"},
		{argv: a("sed -n $= /f"), out: "3\n"},
		{argv: []string{"sed", "-e", "1d", "-e", "s/t/T/"}, stdin: "a\nt\n", out: "T\n"},
		{argv: []string{"sed", "1d;s/t/T/"}, stdin: "a\nt\n", out: "T\n"},
		{argv: a("sed -n p"), stdin: "x", out: "x"},
		{argv: a("sed s/x/y/ /nosuch /g"), out: "four\n", err: "sed: can't open '/nosuch': No such file or directory", code: 1},
		{argv: a("sed s/x/y"), err: "sed: unterminated `s' command", code: 1},
		{argv: a("sed s/x/y/k"), err: "sed: unknown option to `s'", code: 1},
		{argv: a("sed -z p"), err: "sed: invalid option -- 'z'", code: 1},
		{argv: a("sed"), err: "sed: no script specified", code: 1},
	})
	e.check(t, []tc{{argv: a("sed -i s/four/4/ /g")}})
	if got := e.fs.Read("/g"); got != "4\n" {
		t.Errorf("sed -i left %q", got)
	}
}
