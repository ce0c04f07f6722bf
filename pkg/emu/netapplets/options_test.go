package netapplets

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

// tables are the programs of this package by the name the test runs them
// under, with the operands that follow the option under test.
var tables = []struct {
	prog     string
	opts     Options
	operands []string
	// refused are options the real program does not have.
	refused []string
	// refusal is how the real program words one, %s the option.
	refusal string
}{
	{"nc", ncBSDOptions, []string{"10.244.2.7", "9000"}, []string{"-e", "-g", "-G", "-L", "-y"}, "nc: unrecognized option: %s\n"},
	{"busybox-nc", ncOptions, []string{"10.244.2.7", "9000"}, []string{"-t", "-q", "-C", "-d", "-N", "-r", "-g"}, "busybox-nc: invalid option -- '%s'\n"},
	{"curl", curlOptions, []string{"http://10.244.2.7:8080/"}, []string{"--frobnicate", "--timeout", "--max-time=3", "-~"}, "curl: option %s: is unknown\n"},
	{"ncwin", ncWinOptions, []string{"10.244.2.7", "9000"}, []string{"-q", "-N", "-k", "-C"}, "nc: invalid option -- %s\r\n"},
	{"wget", wgetOptions, []string{"http://10.244.2.7:8080/"}, []string{"-r", "-x", "-N", "--mirror"}, ""},
	{"timeout", timeoutOptions, []string{"1", "sleep"}, []string{"-v", "-t", "--foreground"}, ""},
}

// Every documented option of every program is accepted (with a value
// when it takes one), alone and bundled where letters bundle; the ones
// the real program lacks are refused in its words.
func TestEveryDocumentedOption(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // parsing is what is under test: nothing waits
	for _, tab := range tables {
		for _, o := range tab.opts.List {
			for _, argv := range optionForms(o) {
				args := append(append([]string{tab.prog}, argv...), tab.operands...)
				_, errs, _ := e.runCtx(t, ctx, args...)
				if rejected(errs) {
					t.Errorf("%q refused a documented option: %q", args, errs)
				}
			}
		}
		for _, bad := range tab.refused {
			args := append([]string{tab.prog, bad}, tab.operands...)
			_, errs, code := e.runCtx(t, ctx, args...)
			if !rejected(errs) || code == 0 {
				t.Errorf("%q accepted an option the real program lacks: %q %d", args, errs, code)
			}
			name := bad
			if !strings.HasPrefix(bad, "--") && tab.prog != "curl" {
				name = bad[1:]
			}
			if want := fmt.Sprintf(tab.refusal, name); tab.refusal != "" && !strings.HasPrefix(errs, want) {
				t.Errorf("%q: %q, want %q", args, errs, want)
			}
		}
	}
}

// optionForms are the ways to give o: -x [VALUE], --long [VALUE].
func optionForms(o Option) [][]string {
	var forms [][]string
	withValue := func(flag string) []string {
		if o.Arg == "" {
			return []string{flag}
		}
		return []string{flag, "1"}
	}
	if o.Short != 0 {
		if o.Optional {
			forms = append(forms, []string{"-" + string(o.Short) + "v"})
		} else {
			forms = append(forms, withValue("-"+string(o.Short)))
		}
	}
	if o.Long != "" {
		forms = append(forms, withValue("--"+o.Long))
	}
	return forms
}

func rejected(errs string) bool {
	for _, w := range []string{"invalid option", "unrecognized option", "is unknown", "requires", "requires an argument"} {
		if strings.Contains(errs, w) {
			return true
		}
	}
	return false
}

// The parser reads bundles and attached values as getopt does.
func TestParseBundles(t *testing.T) {
	o, err := ncBSDOptions.Parse([]string{"-vzw2", "-q", "1", "host", "80"})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := o.Value("w")
	q, _ := o.Value("q")
	if !o.Has("v") || !o.Has("z") || w != "2" || q != "1" || strings.Join(o.Args, " ") != "host 80" {
		t.Errorf("parsed %+v", o)
	}
	o, err = wgetOptions.Parse([]string{"-nv", "--timeout=5", "-O-", "url"})
	if err != nil {
		t.Fatal(err)
	}
	if tm, _ := o.Value("timeout"); tm != "5" || !o.Has("n") || strings.Join(o.Values("output-document"), ",") != "-" {
		t.Errorf("wget parsed %+v", o)
	}
	if _, err := timeoutOptions.Parse([]string{"-s", "KILL", "2", "nc", "-v"}); err != nil {
		t.Errorf("timeout stops at PROG: %v", err)
	}
}

// Order keeps the options in command-line order (hexdump's formats
// add up in turn); an optional long value is only ever --name=VALUE.
func TestParseOrderAndOptionalLong(t *testing.T) {
	tab := Options{LongEquals: true, List: []Option{{Short: 'e', Arg: "FMT"}, {Short: 'C'},
		{Short: 'w', Long: "width", Arg: "N", Optional: true}}}
	o, err := tab.Parse([]string{"-e", "a", "-C", "--width", "file", "-eb", "--width=8"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Given{{"e", "a"}, {"C", ""}, {"width", ""}, {"e", "b"}, {"width", "8"}}
	if fmt.Sprint(o.Order) != fmt.Sprint(want) || strings.Join(o.Args, " ") != "file" {
		t.Errorf("parsed %+v %q, want %+v", o.Order, o.Args, want)
	}
}

func (e *env) runCtx(t *testing.T, ctx context.Context, argv ...string) (string, string, int) {
	t.Helper()
	var out, errb syncBuffer
	p := &program.Proc{Args: argv, Env: []string{"PATH=/bin"}, Dir: "/",
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Sys: e.sys}
	code, err := e.sys.Exec(ctx, p)
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return out.String(), errb.String(), code
}
