package values

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// ToStr is PowerShell's conversion to string (LanguagePrimitives with
// the invariant culture, about_Type_Conversion): numbers as .NET prints
// them, arrays joined by $OFS (a space), a PSCustomObject as @{...}.
func TestToStr(t *testing.T) {
	custom := NewObject("System.Management.Automation.PSCustomObject", "Name", "x", "Value", 3)
	file := NewObject("System.IO.FileInfo", "Name", "a.txt", "FullName", `C:\a.txt`)
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"null", nil, ""},
		{"true", true, "True"},
		{"false", false, "False"},
		{"int", -42, "-42"},
		{"double", 1.5, "1.5"},
		{"double integral", 1000.0, "1000"},
		// .NET Framework's Double.ToString(): 15 significant digits,
		// exponents of at least two digits.
		{"a third", 1.0 / 3, "0.333333333333333"},
		{"sum of tenths", 0.1 + 0.2, "0.3"},
		{"large", 1e20, "1E+20"},
		{"small", 1.5e-7, "1.5E-07"},
		{"15 digits", 123456789012345.0, "123456789012345"},
		{"16 digits", 1e15, "1E+15"},
		{"infinity", math.Inf(1), "Infinity"},
		{"minus infinity", math.Inf(-1), "-Infinity"},
		{"NaN", math.NaN(), "NaN"},
		{"array", []any{1, "b", 2.5}, "1 b 2.5"},
		{"nested array", []any{1, []any{2, 3}}, "1 2 3"},
		{"empty array", []any{}, ""},
		// [string] of a DateTime is the invariant culture's "G" form.
		{"date", time.Date(2024, 3, 5, 14, 7, 9, 0, time.UTC), "03/05/2024 14:07:09"},
		{"custom object", custom, "@{Name=x; Value=3}"},
		{"file", file, `C:\a.txt`},
		{"hashtable", NewHashtable(), "System.Collections.Hashtable"},
		{"typed object", NewObject("System.Diagnostics.Process"), "System.Diagnostics.Process"},
		{"script block", &ScriptBlock{Src: " $_ * 2 "}, " $_ * 2 "},
		{"type", &TypeRef{Name: "int"}, "int"},
		{"error record", &ErrorRecord{Msg: "boom"}, "boom"},
		{"char", 'x', "x"},
		{"record", NewRecord("System.Uri", "http://x/"), "http://x/"},
		{"record without text", NewRecord("System.Object", ""), "System.Object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ToStr(tc.v); got != tc.want {
				t.Errorf("ToStr(%#v) = %q, want %q", tc.v, got, tc.want)
			}
		})
	}
}

// ToBool is [bool] (about_Booleans): $null, 0, "" and an empty array
// are false; an array of one element is that element's truth; any
// other array and any object are true; "False" and "0" are non-empty
// strings, so true.
func TestToBool(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want bool
	}{
		{"null", nil, false},
		{"zero", 0, false},
		{"one", 1, true},
		{"negative", -1, true},
		{"zero double", 0.0, false},
		{"empty string", "", false},
		{"string False", "False", true},
		{"string 0", "0", true},
		{"space", " ", true},
		{"empty array", []any{}, false},
		{"array of zero", []any{0}, false},
		{"array of empty string", []any{""}, false},
		{"array of one", []any{1}, true},
		{"array of two zeros", []any{0, 0}, true},
		{"hashtable", NewHashtable(), true},
		{"object", NewObject("X"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ToBool(tc.v); got != tc.want {
				t.Errorf("ToBool(%#v) = %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}

// ToNumber converts an operand for arithmetic: strings are parsed as
// PowerShell parses number literals (hex, reals, exponents), $null is
// 0, booleans are 0 and 1; other text is not a number.
func TestToNumber(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want any
		ok   bool
	}{
		{nil, 0, true},
		{true, 1, true},
		{false, 0, true},
		{7, 7, true},
		{2.5, 2.5, true},
		{"12", 12, true},
		{" 12 ", 12, true},
		{"", 0, true},
		{"-3", -3, true},
		{"+5", 5, true},
		{"0x1F", 31, true},
		{"-0x10", -16, true},
		{"1.25", 1.25, true},
		{"1e3", 1000.0, true},
		{"12abc", nil, false},
		{"abc", nil, false},
		{"0xZZ", nil, false},
		{".", nil, false},
		{'A', 65, true},
		{NewHashtable(), nil, false},
	} {
		got, ok := ToNumber(tc.v)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ToNumber(%#v) = %#v, %v; want %#v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

// ToInt rounds as [int] does: to even on .5 (banker's rounding, as
// Convert.ToInt32).
func TestToIntRoundsToEven(t *testing.T) {
	for in, want := range map[any]int{2.5: 2, 3.5: 4, -2.5: -2, 2.4: 2, 2.6: 3, "2.5": 2, "7": 7} {
		if got, ok := ToInt(in); !ok || got != want {
			t.Errorf("ToInt(%v) = %d %v, want %d", in, got, ok, want)
		}
	}
	if _, ok := ToInt("x"); ok {
		t.Error("ToInt(\"x\") converted text that is not a number")
	}
}

// A pipeline enumerates arrays and collections, passes one value as
// itself and $null as nothing; a statement's output of one value is
// that value, of none $null.
func TestToListAndFromList(t *testing.T) {
	if got := ToList(nil); got != nil {
		t.Errorf("ToList(nil) = %v, want nothing", got)
	}
	if got := ToList("a"); len(got) != 1 || got[0] != "a" {
		t.Errorf("ToList(a) = %v", got)
	}
	h := NewNameValues(false)
	h.Add("Host", "x")
	h.Add("Accept", "y")
	if got := ToList(h); len(got) != 2 || got[0] != "Host" || got[1] != "Accept" {
		t.Errorf("a NameValueCollection enumerates its keys: %v", got)
	}
	if FromList(nil) != nil || FromList([]any{3}) != 3 {
		t.Error("FromList of none or one")
	}
	if got, ok := FromList([]any{1, 2}).([]any); !ok || len(got) != 2 {
		t.Errorf("FromList of two = %#v", got)
	}
}

// A hashtable's keys match without case and keep the spelling first
// used; Remove of a missing key is no error.
func TestHashtable(t *testing.T) {
	h := NewHashtable()
	h.Set("Name", 1)
	h.Set("other", 2)
	h.Set("NAME", 3)
	if v, ok := h.Get("name"); !ok || v != 3 {
		t.Errorf("Get(name) = %v %v, want 3", v, ok)
	}
	if strings.Join(h.Keys, ",") != "Name,other" {
		t.Errorf("keys %v, want the first spelling, in order", h.Keys)
	}
	h.Remove("missing")
	h.Remove("OTHER")
	if _, ok := h.Get("other"); ok || len(h.Keys) != 1 {
		t.Errorf("after Remove: %v %v", h.Keys, h.Vals)
	}
}

// Object properties are found without case and keep their order; Set
// of a new name adds it at the end.
func TestObject(t *testing.T) {
	o := NewObject("T", "B", 1, "a", 2)
	o.Set("b", 5)
	o.Set("C", 6)
	if v, _ := o.Get("B"); v != 5 {
		t.Errorf("B = %v", v)
	}
	if strings.Join(o.Names, ",") != "B,a,C" {
		t.Errorf("names %v", o.Names)
	}
}

// A NameValueCollection (a request's Headers, QueryString) keeps every
// value of a name and Get joins them with commas; names match without
// case. WebHeaderCollection.Add("Name: value") needs the colon, with
// .NET Framework's ArgumentException text otherwise.
func TestNameValues(t *testing.T) {
	ctx := context.Background()
	c := NewNameValues(false)
	c.Add("Accept", "a")
	c.Add("accept", "b")
	c.Add("Host", "h")
	if v, _ := c.Get("ACCEPT"); v != "a,b" {
		t.Errorf("Get = %q, want a,b", v)
	}
	if v := c.Item(1); v != "h" {
		t.Errorf("Item(1) = %v, want h", v)
	}
	if v := c.Item(5); v != nil {
		t.Errorf("Item(5) = %v, want $null", v)
	}
	vals, _, _ := c.CallMethod(ctx, "getvalues", []any{"accept"})
	if l, ok := vals.([]any); !ok || len(l) != 2 {
		t.Errorf("GetValues = %#v", vals)
	}
	if n, _ := c.GetProp("count"); n != 2 {
		t.Errorf("Count = %v", n)
	}
	if c.String() != "System.Collections.Specialized.NameValueCollection" {
		t.Errorf("String = %q", c.String())
	}
	_, _, _ = c.CallMethod(ctx, "set", []any{"Accept", "c"})
	if v, _ := c.Get("accept"); v != "c" {
		t.Errorf("after Set: %q", v)
	}
	_, _, _ = c.CallMethod(ctx, "remove", []any{"HOST"})
	if k, _ := c.GetProp("keys"); len(k.([]any)) != 1 {
		t.Errorf("after Remove: %v", k)
	}

	w := NewNameValues(true)
	if _, _, err := w.CallMethod(ctx, "add", []any{"X-Test: 1"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := w.CallMethod(ctx, "add", []any{"no colon"})
	var de *DotnetException
	if !errors.As(err, &de) || de.Msg != "Specified value does not have a ':' separator.\r\nParameter name: header" {
		t.Errorf("Add without a colon: %v", err)
	}
	if w.String() != "X-Test: 1\r\n\r\n" {
		t.Errorf("a WebHeaderCollection prints as sent: %q", w.String())
	}
}

// A Record's properties are read-only: setting one is .NET's "is a
// ReadOnly property" error, setting an unknown one the "cannot be found"
// one.
func TestRecordIsReadOnly(t *testing.T) {
	r := NewRecord("System.Version", "1.2", "Major", 1)
	if v, ok := r.GetProp("major"); !ok || v != 1 {
		t.Errorf("Major = %v %v", v, ok)
	}
	if err := r.SetProp("Major", 3); err == nil || !strings.Contains(err.Error(), "ReadOnly") {
		t.Errorf("setting Major: %v", err)
	}
	if err := r.SetProp("Nope", 3); err == nil || err.Error() == "" {
		t.Errorf("setting an unknown property: %v", err)
	}
}

// The NameValueCollection's index and key methods, and Clear.
func TestNameValuesKeys(t *testing.T) {
	ctx := context.Background()
	c := NewNameValues(false)
	c.Add("B", "2")
	c.Add("a", "1")
	if k, _, _ := c.CallMethod(ctx, "getkey", []any{1}); k != "a" {
		t.Errorf("GetKey(1) = %v", k)
	}
	if k, _, _ := c.CallMethod(ctx, "getkey", []any{9}); k != nil {
		t.Errorf("GetKey(9) = %v, want $null", k)
	}
	if v, _, _ := c.CallMethod(ctx, "get", []any{"b"}); v != "2" {
		t.Errorf("Get(b) = %v", v)
	}
	if v, _, _ := c.CallMethod(ctx, "getvalues", []any{"nope"}); v != nil {
		t.Errorf("GetValues(nope) = %v, want $null", v)
	}
	if err := c.SetItem("c", 3); err != nil || c.Item("C") != "3" {
		t.Errorf("SetItem: %v %v", err, c.Item("C"))
	}
	if _, ok, _ := c.CallMethod(ctx, "clear", nil); !ok || len(c.Items()) != 0 {
		t.Errorf("Clear left %v", c.Items())
	}
	if _, ok, _ := c.CallMethod(ctx, "nosuch", nil); ok {
		t.Error("an unknown method is not the collection's")
	}
}

// A plain .NET object (Dotnet) has no properties or methods of its
// own and prints as its type; setting a property says there is none.
func TestDotnet(t *testing.T) {
	d := Dotnet{Typ: "System.Object"}
	if _, ok := d.GetProp("x"); ok || d.String() != "System.Object" || d.NetType() != "System.Object" {
		t.Errorf("Dotnet: %v %q", ok, d.String())
	}
	if _, ok, err := d.CallMethod(context.Background(), "x", nil); ok || err != nil {
		t.Errorf("CallMethod: %v %v", ok, err)
	}
	if err := d.SetProp("X", 1); err == nil || !strings.Contains(err.Error(), "The property 'X' cannot be found on this object.") {
		t.Errorf("SetProp: %v", err)
	}
}

// Negative numbers and the edges of .NET's 15-digit "R"-less format.
func TestFormatFloatEdges(t *testing.T) {
	for v, want := range map[float64]string{
		-1.5: "-1.5", -0.000001: "-1E-06", 1e-5: "1E-05", 0.0001: "0.0001", 1234567.891: "1234567.891",
		123456789012345678: "1.23456789012346E+17", -1e15: "-1E+15", 2.0 / 3: "0.666666666666667",
	} {
		if got := ToStr(v); got != want {
			t.Errorf("ToStr(%v) = %q, want %q", v, got, want)
		}
	}
}
