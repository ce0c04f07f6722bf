package textapplets

import "testing"

// echo [-neE] [ARG]...: only a whole word of n, e and E letters is
// options; -e knows \0NNN, \xHH and \c.
func TestEcho(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{
		{argv: a("echo"), out: "\n"},
		{argv: a("echo a  b"), out: "a b\n"},
		{argv: a("echo -n a"), out: "a"},
		{argv: a("echo -nn -n a"), out: "a"},
		{argv: a("echo -nx a"), out: "-nx a\n"},
		{argv: a("echo -- a"), out: "-- a\n"},
		{argv: a("echo - a"), out: "- a\n"},
		{argv: []string{"echo", `a\tb`}, out: "a\\tb\n"},
		{argv: []string{"echo", "-e", `a\tb\\`}, out: "a\tb\\\n"},
		{argv: []string{"echo", "-ne", `\0101\x42\0`}, out: "AB\x00"},
		{argv: []string{"echo", "-eE", `a\n`}, out: "a\\n\n"},
		{argv: []string{"echo", "-e", `a\cb`, "c"}, out: "a"},
		{argv: []string{"echo", "-e", `\q`}, out: "\\q\n"},
	})
}

// printf FORMAT [ARG]...: the format is reused until the arguments are
// used up; a bad number is reported and printf exits 1.
func TestPrintf(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{
		{argv: []string{"printf", `%s\n`, "a", "b"}, out: "a\nb\n"},
		{argv: []string{"printf", `%s=%s;`, "a", "1", "b"}, out: "a=1;b=;"},
		{argv: []string{"printf", "plain", "x"}, out: "plain"},
		{argv: []string{"printf", "[%5s|%-5s|%.2s]", "a", "b", "xyz"}, out: "[    a|b    |xy]"},
		{argv: []string{"printf", "%d %i %o %x %X %u", "10", "0x1f", "8", "255", "255", "7"}, out: "10 31 10 ff FF 7"},
		{argv: []string{"printf", "%05d|%-4d|%+d", "42", "7", "3"}, out: "00042|7   |+3"},
		{argv: []string{"printf", "%*d|%.*f", "4", "7", "1", "2.25"}, out: "   7|2.2"},
		{argv: []string{"printf", "%.2f %e %g", "3.14159", "1234.5", "0.0001"}, out: "3.14 1.234500e+03 0.0001"},
		{argv: []string{"printf", "%c%c", "hello", "w"}, out: "hw"},
		{argv: []string{"printf", "%d", "'A"}, out: "65"},
		{argv: []string{"printf", "%d|%s|%f", "", "", ""}, out: "0||0.000000"},
		{argv: []string{"printf", `%b`, `a\tb\0101`}, out: "a\tbA"},
		{argv: []string{"printf", `%b-%s`, `x\cy`, "z"}, out: "x"},
		{argv: []string{"printf", `\101\x42\t%%\n`}, out: "AB\t%\n"},
		{argv: []string{"printf", "--", "%s", "a"}, out: "a"},
		{argv: []string{"printf", "%d", "abc"}, out: "0", err: "printf: invalid number 'abc'", code: 1},
		{argv: []string{"printf", "%f", "x"}, out: "0.000000", err: "printf: invalid number 'x'", code: 1},
		{argv: []string{"printf", "%z", "x"}, err: "printf: %z: invalid format", code: 1},
		{argv: a("printf"), err: "printf: usage", code: 1},
	})
}

// seq [-w] [-s SEP] [FIRST [INC]] LAST: decimals follow the operands'
// longest fraction; -w pads with zeros.
func TestSeq(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{
		{argv: a("seq 2"), out: "1\n2\n"},
		{argv: a("seq 0"), out: ""},
		{argv: a("seq 3 5"), out: "3\n4\n5\n"},
		{argv: a("seq 5 -2 0"), out: "5\n3\n1\n"},
		{argv: a("seq 3 1"), out: ""},
		{argv: a("seq 1 0 3"), out: ""},
		{argv: a("seq 1 0.5 2"), out: "1.0\n1.5\n2.0\n"},
		{argv: a("seq -1 1"), out: "-1\n0\n1\n"},
		{argv: a("seq -s: 3"), out: "1:2:3\n"},
		{argv: []string{"seq", "-s", ", ", "2"}, out: "1, 2\n"},
		{argv: a("seq -w 98 101"), out: "098\n099\n100\n101\n"},
		{argv: a("seq x"), err: "seq: invalid number 'x'", code: 1},
		{argv: a("seq -q 1"), err: "seq: invalid option -- 'q'", code: 1},
		{argv: a("seq"), err: "seq: usage", code: 1},
		{argv: a("seq 1 2 3 4"), err: "seq: usage", code: 1},
	})
}

// yes [STRING]...: the words joined, repeated until the reader is gone
// or the program stops.
func TestYesWords(t *testing.T) {
	e := newEnv()
	p := e.proc(a("yes a b"))
	w := &limitWriter{n: 3}
	p.Stdout = w
	if code := Yes(e.ctx(), p); code != 1 || w.buf.Len() == 0 || w.buf.String()[:8] != "a b\na b\n" {
		t.Errorf("yes a b = %d, %q", code, w.buf.String()[:min(20, w.buf.Len())])
	}
}
