package textapplets

import "testing"

// echo [-neE] [ARG]...: only a whole word of n, e and E letters is
// options; -e knows \0NNN, \xHH and \c.
func TestEcho(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{
		{Argv: a("echo"), Out: "\n"},
		{Argv: a("echo a  b"), Out: "a b\n"},
		{Argv: a("echo -n a"), Out: "a"},
		{Argv: a("echo -nn -n a"), Out: "a"},
		{Argv: a("echo -nx a"), Out: "-nx a\n"},
		{Argv: a("echo -- a"), Out: "-- a\n"},
		{Argv: a("echo - a"), Out: "- a\n"},
		{Argv: []string{"echo", `a\tb`}, Out: "a\\tb\n"},
		{Argv: []string{"echo", "-e", `a\tb\\`}, Out: "a\tb\\\n"},
		{Argv: []string{"echo", "-ne", `\0101\x42\0`}, Out: "AB\x00"},
		{Argv: []string{"echo", "-eE", `a\n`}, Out: "a\\n\n"},
		{Argv: []string{"echo", "-e", `a\cb`, "c"}, Out: "a"},
		{Argv: []string{"echo", "-e", `\q`}, Out: "\\q\n"},
	})
}

// printf FORMAT [ARG]...: the format is reused until the arguments are
// used up; a bad number is reported and printf exits 1.
func TestPrintf(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{
		{Argv: []string{"printf", `%s\n`, "a", "b"}, Out: "a\nb\n"},
		{Argv: []string{"printf", `%s=%s;`, "a", "1", "b"}, Out: "a=1;b=;"},
		{Argv: []string{"printf", "plain", "x"}, Out: "plain"},
		{Argv: []string{"printf", "[%5s|%-5s|%.2s]", "a", "b", "xyz"}, Out: "[    a|b    |xy]"},
		{Argv: []string{"printf", "%d %i %o %x %X %u", "10", "0x1f", "8", "255", "255", "7"}, Out: "10 31 10 ff FF 7"},
		{Argv: []string{"printf", "%05d|%-4d|%+d", "42", "7", "3"}, Out: "00042|7   |+3"},
		{Argv: []string{"printf", "%*d|%.*f", "4", "7", "1", "2.25"}, Out: "   7|2.2"},
		{Argv: []string{"printf", "%.2f %e %g", "3.14159", "1234.5", "0.0001"}, Out: "3.14 1.234500e+03 0.0001"},
		{Argv: []string{"printf", "%c%c", "hello", "w"}, Out: "hw"},
		{Argv: []string{"printf", "%d", "'A"}, Out: "65"},
		{Argv: []string{"printf", "%d|%s|%f", "", "", ""}, Out: "0||0.000000"},
		{Argv: []string{"printf", `%b`, `a\tb\0101`}, Out: "a\tbA"},
		{Argv: []string{"printf", `%b-%s`, `x\cy`, "z"}, Out: "x"},
		{Argv: []string{"printf", `\101\x42\t%%\n`}, Out: "AB\t%\n"},
		{Argv: []string{"printf", "--", "%s", "a"}, Out: "a"},
		{Argv: []string{"printf", "%d", "abc"}, Out: "0", Err: "printf: invalid number 'abc'", Code: 1},
		{Argv: []string{"printf", "%f", "x"}, Out: "0.000000", Err: "printf: invalid number 'x'", Code: 1},
		{Argv: []string{"printf", "%z", "x"}, Err: "printf: %z: invalid format", Code: 1},
		{Argv: a("printf"), Err: "printf: usage", Code: 1},
	})
}

// seq [-w] [-s SEP] [FIRST [INC]] LAST: decimals follow the operands'
// longest fraction; -w pads with zeros.
func TestSeq(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{
		{Argv: a("seq 2"), Out: "1\n2\n"},
		{Argv: a("seq 0"), Out: ""},
		{Argv: a("seq 3 5"), Out: "3\n4\n5\n"},
		{Argv: a("seq 5 -2 0"), Out: "5\n3\n1\n"},
		{Argv: a("seq 3 1"), Out: ""},
		{Argv: a("seq 1 0 3"), Out: ""},
		{Argv: a("seq 1 0.5 2"), Out: "1.0\n1.5\n2.0\n"},
		{Argv: a("seq -1 1"), Out: "-1\n0\n1\n"},
		{Argv: a("seq -s: 3"), Out: "1:2:3\n"},
		{Argv: []string{"seq", "-s", ", ", "2"}, Out: "1, 2\n"},
		{Argv: a("seq -w 98 101"), Out: "098\n099\n100\n101\n"},
		{Argv: a("seq x"), Err: "seq: invalid number 'x'", Code: 1},
		{Argv: a("seq -q 1"), Err: "seq: invalid option -- 'q'", Code: 1},
		{Argv: a("seq"), Err: "seq: usage", Code: 1},
		{Argv: a("seq 1 2 3 4"), Err: "seq: usage", Code: 1},
	})
}

// yes [STRING]...: the words joined, repeated until the reader is gone
// or the program stops.
func TestYesWords(t *testing.T) {
	e := newEnv()
	p := e.Proc(a("yes a b"))
	w := &limitWriter{n: 3}
	p.Stdout = w
	if code := Yes(e.ctx(), p); code != 1 || w.buf.Len() == 0 || w.buf.String()[:8] != "a b\na b\n" {
		t.Errorf("yes a b = %d, %q", code, w.buf.String()[:min(20, w.buf.Len())])
	}
}
