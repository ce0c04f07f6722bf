package bind_test

import (
	"strings"
	"testing"

	"context"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh"
	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

func lines(l ...string) string {
	if len(l) == 0 {
		return ""
	}
	return strings.Join(l, "\r\n") + "\r\n"
}

type tc struct {
	script string
	out    string
	errHas string // "" wants no error output
	code   int
}

func check(t *testing.T, pwsh7 bool, cases []tc) {
	t.Helper()
	for _, c := range cases {
		run := pwshtest.Run
		if pwsh7 {
			run = pwshtest.Run7
		}
		r := run(pwshtest.Sys(), c.script)
		errOK := r.Err == "" && c.errHas == "" || c.errHas != "" && strings.Contains(r.Err, c.errHas)
		if r.Out != c.out || !errOK || r.Code != c.code {
			t.Errorf("%s (pwsh7 %v):\ngot %q err %q code %d\nwant %q err containing %q code %d", c.script, pwsh7, r.Out, r.Err, r.Code, c.out, c.errHas, c.code)
		}
	}
}

// Parameters as about_Functions and about_Functions_Advanced_Parameters
// describe them: typed, with defaults evaluated at the call, bound by
// name (a unique prefix is enough), by alias and by position, the rest
// in $args; $PSBoundParameters holds what the caller bound.
func TestParameters(t *testing.T) {
	cases := []tc{
		{script: "function f([int]$Port = 80, [string]$Name) { $Port; $Name.Length; $Port.GetType().Name }; f; f 8080 web", out: lines("80", "0", "Int32", "8080", "3", "Int32")},
		{script: "function f { param([string]$Name = 'x', [int]$Port) \"$Name:$Port\" }; f -Po 9 -N a", out: lines("a:9")},
		{script: "function f { param($a, $b) \"$a-$b\"; $args.Count }; f 1 2 3 4", out: lines("1-2", "2")},
		{script: "function f { param([switch]$Force, $Path) \"$Force $Path\" }; f p; f -Force p; f p -Force:$false", out: lines("False p", "True p", "False p")},
		{script: "function f { param([string[]]$Items) $Items.Count; $Items[1] }; f a,b,c", out: lines("3", "b")},
		{script: "function f { param($First, $Second = \"$First!\") $Second }; f hi", out: lines("hi!")},
		{script: "$n = 1; function f { param($x = $n) $x }; $n = 2; f", out: lines("2")},
		{script: "function f { param($a, $b) $PSBoundParameters.Count; $PSBoundParameters.ContainsKey('b') }; f -a 1", out: lines("1", "False")},
		{script: "function f { param([Alias('p')][int]$Port) $Port }; f -p 5", out: lines("5")},
		{script: "function f { param([Parameter(Position=1)]$a, [Parameter(Position=0)]$b) \"$a $b\" }; f x y", out: lines("y x")},
		{script: "function f { $args -join ',' }; f -x 1 y", out: lines("-x,1,y")},
		{script: "function f { param([Parameter(Position=0)]$a, $b) \"$a|$b\" }; f 1 -b 2", out: lines("1|2")},
		{script: "function f { [CmdletBinding(PositionalBinding=$false)] param($a) $a }; f 1", code: 1,
			errHas: "A positional parameter cannot be found that accepts argument '1'."},
		{script: "function f { param($First, [Parameter(ValueFromRemainingArguments)]$Rest) $First; $Rest -join '+' }; f a b c -d", out: lines("a", "b+c+-d")},
		{script: "$b = { param([int]$x, [int]$y = 2) $x * $y }; & $b 4; & $b -y 3 -x 5", out: lines("8", "15")},
		{script: "function f([int]$x) { $x }; f '12'", out: lines("12")},
		{script: "function f([bool]$On) { $On }; f $false; f 0; f 1", out: lines("False", "False", "True")},
		{script: "function f([bool]$On) { $On }; f 'false'", code: 1,
			errHas: `Cannot process argument transformation on parameter 'On'. Cannot convert value "System.String" to type "System.Boolean". Boolean parameters accept only Boolean values and numbers, such as $True, $False, 1 or 0.`},
		{script: "function f { [CmdletBinding()] param([string]$s) $s }; f a,b", code: 1,
			errHas: "Cannot process argument transformation on parameter 's'. Cannot convert value to type System.String."},
		{script: "function f { param([string]$s) $s }; f a,b", out: lines("a b")},
		// Errors, worded as PowerShell words them.
		{script: "function f([int]$Port) { $Port }; f abc; 'next'", out: lines("next"),
			errHas: `Cannot process argument transformation on parameter 'Port'. Cannot convert value "abc" to type "System.Int32". Error: "Input string was not in a correct format."`},
		{script: "function f { param([Parameter(Mandatory=$true)]$Name, [Parameter(Mandatory)]$Path) $Name }; f", code: 1,
			errHas: "Cannot process command because of one or more missing mandatory parameters: Name Path."},
		{script: "function f { param([Parameter(Mandatory)][string]$Name) $Name }; f ''", code: 1,
			errHas: "Cannot bind argument to parameter 'Name' because it is an empty string."},
		{script: "function f { param([ValidateSet('dev','prod')]$Env) $Env }; f PROD; f test", out: lines("PROD"), code: 1,
			errHas: `Cannot validate argument on parameter 'Env'. The argument "test" does not belong to the set "dev,prod" specified by the ValidateSet attribute. Supply an argument that is in the set and then try the command again.`},
		{script: "function f { param([ValidateNotNullOrEmpty()][string]$Name) $Name }; f ''", code: 1,
			errHas: "Cannot validate argument on parameter 'Name'. The argument is null or empty. Provide an argument that is not null or empty, and then try the command again."},
		{script: "function f { param([ValidateRange(1, 65535)][int]$Port) $Port }; f 70000", code: 1,
			errHas: "Cannot validate argument on parameter 'Port'. The 70000 argument is greater than the maximum allowed range of 65535. Supply an argument that is less than or equal to 65535 and then try the command again."},
		{script: "function f { param([ValidateRange(1, 65535)][int]$Port) $Port }; f 0", code: 1,
			errHas: "The 0 argument is less than the minimum allowed range of 1. Supply an argument that is greater than or equal to 1 and then try the command again."},
		{script: "function f { param([ValidatePattern('^\\d+$')]$n) $n }; f 12; f x", out: lines("12"), code: 1,
			errHas: `The argument "x" does not match the "^\d+$" pattern.`},
		{script: "function f { param([ValidateNotNullOrEmpty()][string[]]$Items) $Items }; f @()", code: 1,
			errHas: "The argument is null, empty, or an element of the argument collection contains a null value. Supply a collection that does not contain any null values and then try the command again."},
		{script: "function f { param([ValidateLength(2, 4)]$s) $s }; f a", code: 1,
			errHas: `The character length (1) of the argument is too short. Specify an argument with a length that is greater than or equal to "2", and then try the command again.`},
		{script: "function f { param([ValidateCount(1, 2)][string[]]$s) $s.Count }; f a,b,c", code: 1,
			errHas: "The parameter requires at least 1 value(s) and no more than 2 value(s) - 3 value(s) were provided."},
		{script: "function f { param([ValidateScript({$_ -gt 1})][int]$n) $n }; f 2; f 0", out: lines("2"), code: 1,
			errHas: `The "$_ -gt 1" validation script for the argument with value "0" did not return a result of True.`},
		{script: "function f { [CmdletBinding()] param($a) $a }; f -b 1", code: 1,
			errHas: "A parameter cannot be found that matches parameter name 'b'."},
		{script: "function f { [CmdletBinding()] param($a) $a }; f 1 2", code: 1,
			errHas: "A positional parameter cannot be found that accepts argument '2'."},
		{script: "function f { [CmdletBinding()] param($a) $a }; f 1 -Verbose -ErrorAction Stop", out: lines("1")},
		// Parameter sets (about_Parameter_Sets): the set the bound
		// parameters fit decides what is mandatory.
		{script: "function f { [CmdletBinding(DefaultParameterSetName='ByName')] param([Parameter(Mandatory, ParameterSetName='ByName')]$Name, [Parameter(Mandatory, ParameterSetName='ById')][int]$Id, $Common) $PSCmdlet.ParameterSetName }; f -Id 3; f -Name x -Common 1", out: lines("ById", "ByName")},
		{script: "function f { param([Parameter(Mandatory, ParameterSetName='A')]$a, [Parameter(Mandatory, ParameterSetName='B')]$b) 'x' }; f -a 1 -b 2", code: 1,
			errHas: "Parameter set cannot be resolved using the specified named parameters. One or more parameters issued cannot be used together or an insufficient number of parameters were provided."},
		{script: "function f { [CmdletBinding(DefaultParameterSetName='A')] param([Parameter(Mandatory, ParameterSetName='A')]$a, [Parameter(ParameterSetName='B')]$b) 'x' }; f", code: 1,
			errHas: "missing mandatory parameters: a."},
		// $PSCmdlet.ShouldProcess and -WhatIf (about_Functions_CmdletBindingAttribute).
		{script: "function Remove-Thing { [CmdletBinding(SupportsShouldProcess)] param($Name) if ($PSCmdlet.ShouldProcess($Name)) { \"removed $Name\" } }; Remove-Thing a; Remove-Thing b -WhatIf",
			out: lines("removed a", `What if: Performing the operation "Remove-Thing" on target "b".`)},
		{script: "function f { [CmdletBinding()] param() try { throw 'inner' } catch { $PSCmdlet.ThrowTerminatingError($_) }; 'not here' }; try { f } catch { \"caught: $($_.Exception.Message)\" }", out: lines("caught: inner")},
		{script: "function f { [CmdletBinding()] param() $PSCmdlet.ParameterSetName; $PSCmdlet.MyInvocation.MyCommand.Name }; f", out: lines("__AllParameterSets", "f")},
		// Common parameters set the call's preferences (about_CommonParameters).
		{script: "function f { [CmdletBinding()] param() Write-Verbose 'details'; 'done' }; f; f -Verbose", out: lines("done", "VERBOSE: details", "done")},
		{script: "function f { [CmdletBinding()] param() 1 }; f -OutVariable o", code: 1,
			errHas: "winkube: PowerShell construct not emulated: the common parameter -outvariable of a function"},
		{script: "function f { [CmdletBinding()] param() Get-Item C:\\nope; 'went on' }; try { f -ErrorAction Stop } catch { 'stopped' }; f -ea SilentlyContinue; 'end'", out: lines("stopped", "went on", "end")},
		{script: "function f { param($Path, $Port) }; f -P 1", code: 1,
			errHas: "Parameter cannot be processed because the parameter name 'P' is ambiguous. Possible matches include: -Path -Port."},
		{script: "function f { param([int]$Port) }; f -Port", code: 1,
			errHas: "Missing an argument for parameter 'Port'. Specify a parameter of type 'System.Int32' and try again."},
	}
	check(t, false, cases)
	check(t, true, cases)
}

// begin runs once, process once per pipeline object ($_, and the
// ValueFromPipeline parameter), end once (about_Functions, "Piping
// Objects to Functions"); a filter's body is its process block.
func TestNamedBlocks(t *testing.T) {
	cases := []tc{
		{script: "function f { begin { 'begin' } process { \"item $_\" } end { 'end' } }; 1, 2 | f", out: lines("begin", "item 1", "item 2", "end")},
		{script: "function f { begin { $sum = 0 } process { $sum += $_ } end { $sum } }; 1..4 | f", out: lines("10")},
		{script: "function f { process { 'once' } }; f", out: lines("once")},
		{script: "function f { process { 'never' } }; @() | f; 'done'", out: lines("done")},
		{script: "function f { param([Parameter(ValueFromPipeline)][int]$n) process { $n * 10 } }; '1', '2' | f; f 3", out: lines("10", "20", "30")},
		{script: "function f { param([Parameter(Mandatory, ValueFromPipeline)]$n) process { $n } }; 7 | f", out: lines("7")},
		{script: "function f { param([Parameter(ValueFromPipelineByPropertyName)]$Name) process { $Name } }; [pscustomobject]@{Name='a'} | f", out: lines("a")},
		{script: "filter Double { $_ * 2 }; 1, 2, 3 | Double", out: lines("2", "4", "6")},
		{script: "function f { process { \"$input\" } }; 'a', 'b' | f", out: lines("a", "b")},
		{script: "function f { $input | % { $_ + 1 } }; 1, 2 | f", out: lines("2", "3")},
		{script: "function f { process { if ($_ -eq 2) { return }; $_ } }; 1..3 | f", out: lines("1", "3")},
		{script: "1, 2 | & { process { $_ + 1 } }", out: lines("2", "3")},
	}
	check(t, false, cases)
	check(t, true, cases)
}

// PowerShell 7's range kinds (about_Functions_Advanced_Parameters,
// "ValidateRange validation attribute").
func TestValidateRangeKind(t *testing.T) {
	check(t, true, []tc{
		{script: "function f { param([ValidateRange('Positive')][int]$n) $n }; f 3; f 0", out: lines("3"), code: 1,
			errHas: `Cannot validate argument on parameter 'n'. The argument "0" cannot be validated because its value is not greater than zero.`},
		{script: "function f { param([ValidateRange('NonNegative')][int]$n) $n }; f 0", out: lines("0")},
		{script: "function f { param([ValidateNotNullOrWhiteSpace()][string]$s) $s }; f ' '", code: 1,
			errHas: "The argument is null, empty, or consists of only white-space characters. Provide an argument that contains non white-space characters, and then try the command again."},
	})
}

// PowerShell 7.3's clean block runs after the others, even after an
// error, and its output goes nowhere; Windows PowerShell has none.
func TestCleanBlock(t *testing.T) {
	check(t, true, []tc{
		{script: "function f { process { $_ } end { 'end' } clean { 'not output'; Write-Host 'cleaned' } }; 1 | f", out: lines("1", "end", "cleaned")},
		{script: "function f { end { throw 'boom' } clean { Write-Host 'cleaned' } }; try { f } catch { 'caught' }", out: lines("cleaned", "caught")},
	})
	check(t, false, []tc{
		{script: "function f { end { 'end' } clean { 'x' } }; f", code: 1, errHas: "Missing closing '}' in statement block or type definition."},
	})
}

// A script's own param block binds the arguments that follow -File
// (about_Scripts, about_PowerShell_exe), in both editions; a script
// run from a script binds the same way.
func TestScriptParameters(t *testing.T) {
	script := "param([Parameter(Mandatory=$true)][int]$Port, [string]$Site = 'Default', [switch]$Verbose2)\r\n\"$Site on $Port $Verbose2\"\r\n"
	for _, exe := range []string{"powershell.exe", "pwsh"} {
		for _, c := range []struct {
			args   []string
			out    string
			errHas string
			code   int
		}{
			{[]string{"-Port", "8080"}, lines("Default on 8080 False"), "", 0},
			{[]string{"81", "web", "-Verbose2"}, lines("web on 81 True"), "", 0},
			{[]string{"-Site:", "api", "-Po", "82"}, lines("api on 82 False"), "", 0},
			{[]string{"-Port", "abc"}, "", `Cannot process argument transformation on parameter 'Port'. Cannot convert value "abc" to type "System.Int32".`, 1},
			{nil, "", "Cannot process command because of one or more missing mandatory parameters: Port.", 1},
		} {
			sys := pwshtest.Sys()
			pwshtest.Put(sys, `C:\app\start.ps1`, script)
			argv := append([]string{exe, "-NoProfile", "-File", `C:\app\start.ps1`}, c.args...)
			out, errOut, code := wintest.Run(context.Background(), sys, pwsh.Main, "", argv...)
			if out != c.out || code != c.code || (c.errHas == "") != (errOut == "") || !strings.Contains(errOut, c.errHas) {
				t.Errorf("%s %v: got %q err %q code %d, want %q err %q code %d", exe, c.args, out, errOut, code, c.out, c.errHas, c.code)
			}
		}
	}
	// The error names the script: by its path in Windows PowerShell's
	// view, by its name in PowerShell 7's.
	for exe, prefix := range map[string]string{"powershell.exe": `C:\app\start.ps1 : Cannot process`, "pwsh": "start.ps1: Cannot process"} {
		sys := pwshtest.Sys()
		pwshtest.Put(sys, `C:\app\start.ps1`, script)
		_, errOut, _ := wintest.Run(context.Background(), sys, pwsh.Main, "", exe, "-File", `C:\app\start.ps1`, "-Port", "x")
		if !strings.HasPrefix(errOut, prefix) {
			t.Errorf("%s: %q, want it to start %q", exe, errOut, prefix)
		}
	}
	// PowerShell 7 reads -Switch:$false after -File as a boolean
	// (CollectPSArgs); Windows PowerShell passes the string, which a
	// switch refuses.
	sys := pwshtest.Sys()
	pwshtest.Put(sys, `C:\app\start.ps1`, script)
	out, _, _ := wintest.Run(context.Background(), sys, pwsh.Main, "", "pwsh", "-File", `C:\app\start.ps1`, "1", "-Verbose2:$false")
	if want := lines("Default on 1 False"); out != want {
		t.Errorf("pwsh -Verbose2:$false: got %q, want %q", out, want)
	}
	_, errOut, _ := wintest.Run(context.Background(), sys, pwsh.Main, "", "powershell.exe", "-File", `C:\app\start.ps1`, "1", "-Verbose2:$false")
	if !strings.Contains(errOut, "Boolean parameters accept only Boolean values and numbers") {
		t.Errorf("powershell -Verbose2:$false: got %q", errOut)
	}
	pwshtest.Put(sys, `C:\app\where.ps1`, "$PSScriptRoot; $PSCommandPath; $MyInvocation.MyCommand.Path; Split-Path -Parent $MyInvocation.MyCommand.Path; function f { $MyInvocation.MyCommand.Name }; f")
	for _, exe := range []string{"powershell.exe", "pwsh"} {
		out, errOut, _ := wintest.Run(context.Background(), sys, pwsh.Main, "", exe, "-File", `C:\app\where.ps1`)
		if want := lines(`C:\app`, `C:\app\where.ps1`, `C:\app\where.ps1`, `C:\app`, "f"); out != want {
			t.Errorf("%s: $PSScriptRoot and $MyInvocation: got %q %q, want %q", exe, out, errOut, want)
		}
	}
	pwshtest.Put(sys, `C:\app\conf.ps1`, "param($Config = \"$PSScriptRoot\\app.json\") $Config")
	if r := pwshtest.Run(sys, `C:\app\conf.ps1`); r.Out != lines(`C:\app\app.json`) {
		t.Errorf("a default using $PSScriptRoot: %q %q", r.Out, r.Err)
	}
	// A dot-sourced script sees its own $PSScriptRoot; its caller's
	// comes back, while what it defines stays.
	pwshtest.Put(sys, `C:\app\lib\common.ps1`, "$libRoot = $PSScriptRoot; function Get-Lib { 'lib' }")
	pwshtest.Put(sys, `C:\app\main.ps1`, ". \"$PSScriptRoot\\lib\\common.ps1\"; $libRoot; $PSScriptRoot; Get-Lib")
	for _, exe := range []string{"powershell.exe", "pwsh"} {
		out, errOut, _ := wintest.Run(context.Background(), sys, pwsh.Main, "", exe, "-File", `C:\app\main.ps1`)
		if want := lines(`C:\app\lib`, `C:\app`, "lib"); out != want {
			t.Errorf("%s: dot-sourcing: got %q %q, want %q", exe, out, errOut, want)
		}
	}
	pwshtest.Put(sys, `C:\app\inner.ps1`, "param([int]$n = 1) $n * 2")
	if r := pwshtest.Run(sys, `C:\app\inner.ps1 -n 4; & C:\app\inner.ps1`); r.Out != lines("8", "2") {
		t.Errorf("script from a script: %q %q", r.Out, r.Err)
	}
}

var _ = program.Name
