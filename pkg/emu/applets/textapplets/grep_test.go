package textapplets

import "testing"

// grep [-HhnlLoqvsrRiwFEx] [-m N] [-e PAT]... [-f FILE] [FILE]...: exit 0
// on a match, 1 on none, 2 on an error (unless -q matched).
func TestGrep(t *testing.T) {
	e := newEnv()
	e.FS.Put("/a", "alpha\nbeta\nAlpha beta\ngamma\n", 0o644)
	e.FS.Put("/b", "beta\n", 0o644)
	e.FS.Put("/pats", "gam\nalp\n", 0o644)
	e.FS.Put("/dir/x/deep", "needle\n", 0o644)
	e.FS.Put("/dir/y", "hay\n", 0o644)
	e.Check(t, []tc{
		{Argv: a("grep beta /a"), Out: "beta\nAlpha beta\n"},
		{Argv: a("grep -in alpha /a"), Out: "1:alpha\n3:Alpha beta\n"},
		{Argv: a("grep -vc a /a"), Out: "0\n", Code: 1},
		{Argv: a("grep -c beta /a /b"), Out: "/a:2\n/b:1\n"},
		{Argv: a("grep -h beta /a /b"), Out: "beta\nAlpha beta\nbeta\n"},
		{Argv: a("grep -H gamma /a"), Out: "/a:gamma\n"},
		{Argv: a("grep -l beta /a /b"), Out: "/a\n/b\n"},
		{Argv: a("grep -L gamma /a /b"), Out: "/b\n"},
		{Argv: a("grep -x beta /a"), Out: "beta\n"},
		{Argv: a("grep -w Alpha /a"), Out: "Alpha beta\n"},
		{Argv: a("grep -w alp /a"), Code: 1},
		{Argv: a("grep -m1 beta /a"), Out: "beta\n"},
		{Argv: a("grep -e gamma -e beta /a"), Out: "beta\nAlpha beta\ngamma\n"},
		{Argv: a("grep -f /pats /a"), Out: "alpha\ngamma\n"},
		{Argv: a("grep -o a. /a"), Out: "al\na \nam\n"},
		{Argv: a("grep -oE (al|ga)[a-z] /a"), Out: "alp\ngam\n"},
		{Argv: a("grep ^a\\|^g /a"), Out: "alpha\ngamma\n"},
		{Argv: a("grep -E ^(a|g) /a"), Out: "alpha\ngamma\n"},
		{Argv: a("egrep a{2} /a"), Code: 1},
		{Argv: a("grep -F a.p /a"), Code: 1},
		{Argv: a("fgrep ta /b"), Out: "beta\n"},
		{Argv: a("grep -r needle /dir"), Out: "/dir/x/deep:needle\n"},
		{Argv: a("grep -rh needle /dir"), Out: "needle\n"},
		{Argv: a("grep -- -x /a"), Code: 1},
		{Argv: a("grep beta"), Stdin: "beta\n", Out: "beta\n"},
		{Argv: a("grep -l beta -"), Stdin: "beta\n", Out: "(standard input)\n"},
		{Argv: a("grep -q beta /nosuch /a"), Err: "grep: /nosuch: No such file or directory"},
		{Argv: a("grep beta /nosuch /b"), Out: "/b:beta\n", Err: "grep: /nosuch: No such file or directory", Code: 2},
		{Argv: a("grep -s beta /nosuch"), Code: 2},
		{Argv: a("grep -y x /a"), Err: "grep: invalid option -- 'y'", Code: 2},
		{Argv: a("grep"), Err: "Usage: grep", Code: 2},
		{Argv: a("grep -e"), Err: "grep: option requires an argument -- 'e'", Code: 2},
		{Argv: a("grep -f /nosuch /a"), Err: "grep: /nosuch: No such file or directory", Code: 2},
	})
}

// grep -A/-B/-C N print N lines of context after/before/around each
// match, with "--" between groups that do not touch.
func TestGrepContext(t *testing.T) {
	e := newEnv()
	e.FS.Put("/c", "1\n2\nx3\n4\n5\n6\n7\nx8\n9\n", 0o644)
	e.Check(t, []tc{
		{Argv: a("grep -A1 x /c"), Out: "x3\n4\n--\nx8\n9\n"},
		{Argv: a("grep -B 1 x /c"), Out: "2\nx3\n--\n7\nx8\n"},
		{Argv: a("grep -C2 x /c"), Out: "1\n2\nx3\n4\n5\n6\n7\nx8\n9\n"},
		{Argv: a("grep -nA1 x /c"), Out: "3:x3\n4-4\n--\n8:x8\n9-9\n"},
		{Argv: a("grep -A1 -c x /c"), Out: "2\n"},
		{Argv: a("grep -A1 x8 /c /c"), Out: "/c:x8\n/c-9\n--\n/c:x8\n/c-9\n"},
		{Argv: a("grep -vB1 [0-9]$ /c"), Code: 1},
		{Argv: a("grep -A x x /c"), Err: "grep: invalid number 'x'", Code: 2},
	})
}

// sed [-inrE] [-e CMD]... [FILE]...: addresses (N, $, /re/, ranges),
// the p, d, q, = and s commands with their flags, and -i in place.
func TestSed(t *testing.T) {
	e := newEnv()
	e.FS.Put("/f", "one\ntwo\nthree\n", 0o644)
	e.FS.Put("/g", "four\n", 0o644)
	e.Check(t, []tc{
		{Argv: a("sed s/o/0/ /f"), Out: "0ne\ntw0\nthree\n"},
		{Argv: a("sed s/e/E/2 /f"), Out: "one\ntwo\nthreE\n"},
		{Argv: a("sed s/e/E/g /f"), Out: "onE\ntwo\nthrEE\n"},
		{Argv: a("sed -n s/two/2/p /f"), Out: "2\n"},
		{Argv: a("sed s/O/0/I /f"), Out: "0ne\ntw0\nthree\n"},
		{Argv: a("sed s|t|T|g /f"), Out: "one\nTwo\nThree\n"},
		{Argv: a("sed s/\\(o\\)\\(n\\)/\\2\\1/ /f"), Out: "noe\ntwo\nthree\n"},
		{Argv: a("sed -E s/(t)(w)/\\2\\1/ /f"), Out: "one\nwto\nthree\n"},
		{Argv: a("sed -r s/e+/<&>/ /f"), Out: "on<e>\ntwo\nthr<ee>\n"},
		{Argv: a("sed -n 2p /f"), Out: "two\n"},
		{Argv: a("sed -n $p /f /g"), Out: "four\n"},
		{Argv: a("sed -n 1,2p /f"), Out: "one\ntwo\n"},
		{Argv: a("sed -n /two/,$p /f"), Out: "two\nthree\n"},
		{Argv: a("sed 2d /f"), Out: "one\nthree\n"},
		{Argv: a("sed /^t/d /f"), Out: "one\n"},
		{Argv: a("sed 1!d /f"), Out: "one\n"},
		{Argv: a("sed -n /e$/!p /f"), Out: "two\n"},
		{Argv: a("sed 2,3!s/^/>/ /f"), Out: ">one\ntwo\nthree\n"},
		{Argv: a("sed 2q /f"), Out: "one\ntwo\n"},
		{Argv: a("sed -n $= /f"), Out: "3\n"},
		{Argv: []string{"sed", "-e", "1d", "-e", "s/t/T/"}, Stdin: "a\nt\n", Out: "T\n"},
		{Argv: []string{"sed", "1d;s/t/T/"}, Stdin: "a\nt\n", Out: "T\n"},
		{Argv: a("sed -n p"), Stdin: "x", Out: "x"},
		{Argv: a("sed s/x/y/ /nosuch /g"), Out: "four\n", Err: "sed: can't open '/nosuch': No such file or directory", Code: 1},
		{Argv: a("sed s/x/y"), Err: "sed: unterminated `s' command", Code: 1},
		{Argv: a("sed s/x/y/k"), Err: "sed: unknown option to `s'", Code: 1},
		{Argv: a("sed -z p"), Err: "sed: invalid option -- 'z'", Code: 1},
		{Argv: a("sed"), Err: "sed: no script specified", Code: 1},
	})
	e.Check(t, []tc{{Argv: a("sed -i s/four/4/ /g")}})
	if got := e.FS.Read("/g"); got != "4\n" {
		t.Errorf("sed -i left %q", got)
	}
}
