package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

// withPrograms is a container with three native programs: hostname,
// one that fails with 3, and one that echoes its arguments one per line
// and its stdin.
func withPrograms() *program.Sys {
	sys := pwshtest.Sys()
	sys.Programs["hostname"] = func(_ context.Context, p *program.Proc) int {
		p.Stdout.Write([]byte(p.Sys.Hostname + "\r\n"))
		return 0
	}
	sys.Programs["fail"] = func(_ context.Context, p *program.Proc) int {
		p.Stderr.Write([]byte("fail: it failed\r\n"))
		return 3
	}
	sys.Programs["args"] = func(_ context.Context, p *program.Proc) int {
		for _, a := range p.Args[1:] {
			p.Stdout.Write([]byte("[" + a + "]\r\n"))
		}
		return 0
	}
	return sys
}

// Native programs (about_Parsing, about_Automatic_Variables): their
// output lines are strings in the pipeline; their exit code is
// $LASTEXITCODE and sets $?; arguments are passed as PowerShell
// expands them.
func TestNativePrograms(t *testing.T) {
	for _, c := range []struct{ script, out, errHas string }{
		{script: "hostname; $h = hostname; $h.GetType().Name; $LASTEXITCODE; $?", out: lines("WIN-POD", "String", "0", "True")},
		{script: "fail; $?; $LASTEXITCODE; $?; 'next'", out: lines("False", "3", "True", "next"), errHas: "fail: it failed"},
		{script: "& hostname; & 'hostname'; $cmd = 'hostname'; & $cmd; hostname.exe", out: lines("WIN-POD", "WIN-POD", "WIN-POD", "WIN-POD")},
		// An array argument is one argument per element.
		{script: "$n = 'x y'; args a $n \"q $n\" 'single' 1,2", out: lines("[a]", "[x y]", "[q x y]", "[single]", "[1]", "[2]")},
		{script: "args -flag:value --long=1 /s", out: lines("[-flag:value]", "[--long=1]", "[/s]")},
		{script: "args $env:COMPUTERNAME\\share", out: lines(`[WIN-POD\share]`)},
		{script: "(args a b).Count; (args a b)[1]", out: lines("2", "[b]")},
		{script: "hostname | % { \"host=$_\" }", out: lines("host=WIN-POD")},
		{script: "nope.exe; 'after'", out: lines("after"), errHas: "nope.exe : The term 'nope.exe' is not recognized"},
	} {
		r := pwshtest.Run(withPrograms(), c.script)
		errOK := r.Err == ""
		if c.errHas != "" {
			errOK = strings.Contains(r.Err, c.errHas)
		}
		if r.Out != c.out || !errOK {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
}

// Script files (about_Scripts): & runs a .ps1 in a scope of its own
// with $args; . (dot sourcing) runs it in the caller's scope, so its
// variables and functions stay; exit N in a script is $LASTEXITCODE.
func TestScriptFiles(t *testing.T) {
	for _, c := range []struct{ script, out string }{
		{`Set-Content C:\t.ps1 '"in script $args"; exit 3'; & C:\t.ps1 a b; $LASTEXITCODE; 'after'`, lines("in script a b", "3", "after")},
		{`Set-Content C:\lib.ps1 '$shared = 5; function Twice($x) { $x * 2 }'; . C:\lib.ps1; $shared; Twice 4`, lines("5", "8")},
		{`Set-Content C:\lib.ps1 '$shared = 5'; & C:\lib.ps1; $shared -eq $null`, lines("True")},
		{`Set-Content C:\r.ps1 'return 7; 8'; $v = & C:\r.ps1; $v`, lines("7")},
		{`cd C:\; Set-Content C:\rel.ps1 "'relative'"; .\rel.ps1`, lines("relative")},
	} {
		if r := pwshtest.Run(withPrograms(), c.script); r.Out != c.out || r.Err != "" {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
}
