package dotnet

import (
	"testing"
	"time"
)

// Wildcard is about_Wildcards: * any run, ? one character, [abc] and
// [a-z] one of a set; without case unless asked; the whole text.
func TestWildcard(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		fold, want bool
	}{
		{"*.txt", "a.TXT", true, true},
		{"*.txt", "a.TXT", false, false},
		{"a?c", "abc", true, true},
		{"a?c", "ac", true, false},
		{"[ab]x", "bx", true, true},
		{"[a-c]x", "cx", true, true},
		{"[a-c]x", "dx", true, false},
		{"a.b", "axb", true, false}, // . is literal
		{"a+b", "a+b", true, true},
		{"*", "", true, true},
		{"abc", "abcd", true, false},
		{"*line*", "two\nlines", true, true},
	} {
		if got := Wildcard(c.pattern, c.s, c.fold); got != c.want {
			t.Errorf("Wildcard(%q, %q, %v) = %v", c.pattern, c.s, c.fold, got)
		}
	}
}

// DotnetTime is .NET's DateTime formatting in en-US: the standard
// one-letter formats and the custom patterns.
func TestDotnetTime(t *testing.T) {
	at := time.Date(2024, 3, 5, 14, 7, 9, 123456700, time.UTC)
	for f, want := range map[string]string{
		"d": "3/5/2024", "D": "Tuesday, March 5, 2024", "t": "2:07 PM", "T": "2:07:09 PM",
		"g": "3/5/2024 2:07 PM", "G": "3/5/2024 2:07:09 PM", "f": "Tuesday, March 5, 2024 2:07 PM",
		"s": "2024-03-05T14:07:09", "u": "2024-03-05 14:07:09Z", "o": "2024-03-05T14:07:09.1234567Z",
		"M": "March 5", "Y": "March 2024",
		"yyyy-MM-dd HH:mm:ss.fff": "2024-03-05 14:07:09.123", "yy/M/d h:m:s tt": "24/3/5 2:7:9 PM",
		"ddd MMM": "Tue Mar", "HH'h'mm": "14h07", `hh\:mm`: "02:07", "FFFF": "1234",
	} {
		if got := DotnetTime(at, f); got != want {
			t.Errorf("DotnetTime(%q) = %q, want %q", f, got, want)
		}
	}
}

// FormatOp is String.Format: index, alignment, format; braces doubled.
func TestFormatOp(t *testing.T) {
	for _, c := range []struct {
		f    string
		args []any
		want string
	}{
		{"{0} and {1}", []any{"a", 2}, "a and 2"},
		{"{0,4}|{0,-4}|", []any{7}, "   7|7   |"},
		{"{0:N2}", []any{-1234567.891}, "-1,234,567.89"},
		{"{0:N0}", []any{0.5}, "1"}, // away from zero
		{"{0:F1}", []any{"2.25"}, "2.3"},
		{"{0:D5}", []any{42}, "00042"},
		{"{0:X}", []any{3054}, "BEE"},
		{"{0:0.0#}", []any{3.14159}, "3.14"},
		{"{0:0.0#}", []any{3.1}, "3.1"},
		{"{{0}}", []any{1}, "{0}"},
		{"{5}", []any{1}, "{5}"},
		{"open {", []any{1}, "open {"},
	} {
		if got := FormatOp(c.f, c.args); got != c.want {
			t.Errorf("FormatOp(%q, %v) = %q, want %q", c.f, c.args, got, c.want)
		}
	}
}
