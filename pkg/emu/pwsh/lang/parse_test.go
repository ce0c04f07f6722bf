package lang

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// sexp prints a parsed script compactly, so that a test states the tree
// it expects in one line.
func sexp(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case []Stmt:
		parts := make([]string, len(x))
		for k, s := range x {
			parts[k] = sexp(s)
		}
		return strings.Join(parts, "; ")
	case *PipelineStmt:
		parts := make([]string, len(x.Elems))
		for k, e := range x.Elems {
			parts[k] = sexp(e)
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return "(| " + strings.Join(parts, " ") + ")"
	case *Element:
		s := ""
		if x.Cmd != nil {
			s = sexp(x.Cmd)
		} else {
			s = sexp(x.Expr)
		}
		for _, r := range x.Redirs {
			s += " " + r.Op + sexp(r.Target)
		}
		return s
	case *Command:
		s := "(cmd" + x.Invoke + " " + sexp(x.Name)
		for _, a := range x.Args {
			switch {
			case a.Param != "" && a.Value != nil:
				s += " -" + a.Param + ":" + sexp(a.Value)
			case a.Param != "":
				s += " -" + a.Param
			default:
				s += " " + sexp(a.Value)
			}
		}
		return s + ")"
	case *LitExpr:
		if str, ok := x.V.(string); ok {
			return "'" + str + "'"
		}
		return fmt.Sprint(x.V)
	case *XstrExpr:
		s := `"`
		for _, p := range x.Parts {
			switch {
			case p.Sub:
				s += "$(" + sexp(p.Stmts) + ")"
			case p.Name != "":
				s += "$" + p.Name
			default:
				s += p.Text
			}
		}
		return s + `"`
	case *VarExpr:
		return "$" + x.Name
	case *SubExpr:
		if x.Array {
			return "@(" + sexp(x.Stmts) + ")"
		}
		return "$(" + sexp(x.Stmts) + ")"
	case *ParenExpr:
		return "(" + sexp(x.S) + ")"
	case *HashExpr:
		parts := make([]string, len(x.Keys))
		for k := range x.Keys {
			parts[k] = sexp(x.Keys[k]) + "=" + sexp(x.Vals[k])
		}
		return "@{" + strings.Join(parts, " ") + "}"
	case *BlockExpr:
		return "{" + sexp(x.Stmts) + "}"
	case *TypeExpr:
		return "[" + x.Name + "]"
	case *CastExpr:
		return "([" + x.Typ + "] " + sexp(x.X) + ")"
	case *UnaryExpr:
		return "(" + x.Op + " " + sexp(x.X) + ")"
	case *BinExpr:
		return "(" + x.Op + " " + sexp(x.L) + " " + sexp(x.R) + ")"
	case *ArrayExpr:
		parts := make([]string, len(x.Items))
		for k, e := range x.Items {
			parts[k] = sexp(e)
		}
		return "(, " + strings.Join(parts, " ") + ")"
	case *MemberExpr:
		op := "."
		if x.Static {
			op = "::"
		}
		return "(" + op + " " + sexp(x.X) + " " + sexp(x.Name) + ")"
	case *CallExpr:
		s := "(call " + sexp(x.M)
		for _, a := range x.Args {
			s += " " + sexp(a)
		}
		return s + ")"
	case *IndexExpr:
		return "([] " + sexp(x.X) + " " + sexp(x.Idx) + ")"
	case *IncExpr:
		if x.Post {
			return "(" + sexp(x.X) + x.Op + ")"
		}
		return "(" + x.Op + sexp(x.X) + ")"
	case *CompositeExpr:
		parts := make([]string, len(x.Parts))
		for k, e := range x.Parts {
			parts[k] = sexp(e)
		}
		return "(cat " + strings.Join(parts, " ") + ")"
	case *AssignStmt:
		return "(" + x.Op + " " + sexp(x.Target) + " " + sexp(x.Value) + ")"
	case *IfStmt:
		s := "(if"
		for k := range x.Conds {
			s += " " + sexp(x.Conds[k]) + " {" + sexp(x.Bodies[k]) + "}"
		}
		if x.Els != nil {
			s += " else {" + sexp(x.Els) + "}"
		}
		return s + ")"
	case *WhileStmt:
		return "(while " + sexp(x.Cond) + " {" + sexp(x.Body) + "})"
	case *DoStmt:
		kw := "while"
		if x.Until {
			kw = "until"
		}
		return "(do {" + sexp(x.Body) + "} " + kw + " " + sexp(x.Cond) + ")"
	case *ForStmt:
		return "(for " + sexp(x.Init) + "; " + sexp(x.Cond) + "; " + sexp(x.Iter) + " {" + sexp(x.Body) + "})"
	case *ForeachStmt:
		return "(foreach $" + x.V + " " + sexp(x.Coll) + " {" + sexp(x.Body) + "})"
	case *TryStmt:
		s := "(try {" + sexp(x.Body) + "}"
		for _, c := range x.Catches {
			s += " catch {" + sexp(c) + "}"
		}
		if x.Finally != nil {
			s += " finally {" + sexp(x.Finally) + "}"
		}
		return s + ")"
	case *FlowStmt:
		if x.Value == nil {
			return "(" + x.Kind + ")"
		}
		return "(" + x.Kind + " " + sexp(x.Value) + ")"
	case *FunctionStmt:
		kw := "function"
		if x.Filter {
			kw = "filter"
		}
		return "(" + kw + " " + x.Name + "(" + sexpParams(x.Params) + ") {" + sexp(x.Body) + "})"
	case *ParamStmt:
		s := "(param"
		for _, a := range x.Attrs {
			s += " " + sexpAttr(a)
		}
		return s + " " + sexpParams(x.Params) + ")"
	case *NamedBlockStmt:
		return "(" + x.Kind + " {" + sexp(x.Body) + "})"
	case *SwitchStmt:
		s := "(switch"
		for _, f := range []struct {
			on   bool
			name string
		}{{x.Regex, "-regex"}, {x.Wildcard, "-wildcard"}, {x.Exact, "-exact"}, {x.CaseSensitive, "-casesensitive"}} {
			if f.on {
				s += " " + f.name
			}
		}
		if x.File != nil {
			s += " -file " + sexp(x.File)
		} else {
			s += " " + sexp(x.Value)
		}
		for _, c := range x.Clauses {
			s += " [" + sexp(c.Cond) + " {" + sexp(c.Body) + "}]"
		}
		if x.HasDefault {
			s += " [default {" + sexp(x.Default) + "}]"
		}
		return s + ")"
	case *SplatExpr:
		return "@" + x.Name
	case *TrapStmt:
		s := "(trap "
		for _, t := range x.Types {
			s += "[" + t + "] "
		}
		return s + "{" + sexp(x.Body) + "})"
	case *ChainStmt:
		return "(" + x.Op + " " + sexp(x.Left) + " " + sexp(x.Right) + ")"
	case *TernaryExpr:
		return "(? " + sexp(x.Cond) + " " + sexp(x.Then) + " " + sexp(x.Else) + ")"
	}
	return fmt.Sprintf("?%T", v)
}

func sexpParams(list []*Param) string {
	parts := make([]string, len(list))
	for k, p := range list {
		s := ""
		for _, a := range p.Attrs {
			s += sexpAttr(a)
		}
		if p.Type != "" {
			s += "[" + p.Type + "]"
		}
		s += "$" + p.Name
		if p.Default != nil {
			s += "=" + sexp(p.Default)
		}
		parts[k] = s
	}
	return strings.Join(parts, ",")
}

func sexpAttr(a *Attribute) string {
	var args []string
	for _, x := range a.Args {
		args = append(args, sexp(x))
	}
	for _, n := range a.Named {
		if n.Value == nil {
			args = append(args, n.Name)
		} else {
			args = append(args, n.Name+"="+sexp(n.Value))
		}
	}
	return "[" + a.Name + "(" + strings.Join(args, ",") + ")]"
}

func parse(t *testing.T, src string) string {
	t.Helper()
	list, err := ParseStatements(src)
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return sexp(list)
}

// Operators bind as about_Operator_Precedence lists them: * / % over
// + -, those over the bitwise operators, those over comparisons, those
// over -and/-or; -f over arithmetic; unary minus over all binaries.
func TestPrecedence(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"1 + 2 * 3", "(+ 1 (* 2 3))"},
		{"(1 + 2) * 3", "(* ((+ 1 2)) 3)"},
		{"10 - 4 - 3", "(- (- 10 4) 3)"},
		{"1 + 2 -eq 3", "(eq (+ 1 2) 3)"},
		{"$a -eq 1 -and $b -ne 2", "(and (eq $a 1) (ne $b 2))"},
		{"$a -or $b -and $c", "(and (or $a $b) $c)"},
		{"5 -band 3 -eq 1", "(eq (band 5 3) 1)"},
		{"1 -bor 2 + 4", "(bor 1 (+ 2 4))"},
		{"'{0}' -f 1 + 1", "(+ (f '{0}' 1) 1)"},
		{"-not $a -eq $b", "(eq (not $a) $b)"},
		{"!$a", "(not $a)"},
		{"-1 + 2", "(+ -1 2)"},
		{"- $x * 2", "(* (- $x) 2)"},
		{"1..3", "(.. 1 3)"},
		{"1, 2 + 3", "(+ (, 1 2) 3)"},
		{"'a' -replace 'a', 'b'", "(replace 'a' (, 'a' 'b'))"},
		{"$x -is [int]", "(is $x [int])"},
		{"$s -split ',' -join ';'", "(join (split $s ',') ';')"},
	} {
		if got := parse(t, tc.src); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// The parser switches between expression mode and argument mode
// (about_Parsing): a statement that starts with a bare word is a
// command, whose arguments are strings unless they start with $, (, @,
// a quote or a number; -Name is a parameter, -Name:value binds a value.
func TestArgumentMode(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"Write-Output hello world", "(cmd 'Write-Output' 'hello' 'world')"},
		{"Get-ChildItem -Path C:\\data -Recurse", `(cmd 'Get-ChildItem' -Path 'C:\data' -Recurse)`},
		{"Get-Item -Path:C:\\x", `(cmd 'Get-Item' -Path:'C:\x')`},
		{"Write-Output 2+3", "(cmd 'Write-Output' '2+3')"},
		{"Write-Output (2+3)", "(cmd 'Write-Output' ((+ 2 3)))"},
		{"Write-Output $a.Length", "(cmd 'Write-Output' (. $a 'Length'))"},
		{`Write-Output $env:ROOT\bin`, `(cmd 'Write-Output' (cat $env:ROOT '\bin'))`},
		{"Write-Output a,b", "(cmd 'Write-Output' (, 'a' 'b'))"},
		{`& "C:\tool.exe" -x`, `(cmd& "C:\tool.exe" -x)`},
		{". .\\lib.ps1", `(cmd. '.\lib.ps1')`},
		{"ping -n 1 host", "(cmd 'ping' -n 1 'host')"},
		{"cmd /c echo hi", "(cmd 'cmd' '/c' 'echo' 'hi')"},
		{"2 + 3", "(+ 2 3)"},
		{"$x = Get-Date", "(= $x (cmd 'Get-Date'))"},
		{"$x += 1", "(+= $x 1)"},
		{"$h.a.b = 1", "(= (. (. $h 'a') 'b') 1)"},
		{"$a[0] = 'x'", "(= ([] $a 0) 'x')"},
		{"Get-Process | Where-Object { $_.CPU -gt 1 } | Select-Object -First 2",
			"(| (cmd 'Get-Process') (cmd 'Where-Object' {(gt (. $_ 'CPU') 1)}) (cmd 'Select-Object' -First 2))"},
		{"1..3 | % { $_ }", "(| (.. 1 3) (cmd '%' {$_}))"},
		{"Write-Output x > C:\\out.txt 2>&1", `(cmd 'Write-Output' 'x') >'C:\out.txt' 2>&1nil`},
	} {
		if got := parse(t, tc.src); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// Expressions: member access and calls, static members, indexes,
// casts, hashtables, arrays, script blocks, ++/--.
func TestExpressions(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"$s.Trim().ToUpper()", "(call (. (call (. $s 'Trim')) 'ToUpper'))"},
		{"$s.Substring(1, 2)", "(call (. $s 'Substring') 1 2)"},
		{"[Math]::Max(1, 2)", "(call (:: [Math] 'Max') 1 2)"},
		{"[Environment]::MachineName", "(:: [Environment] 'MachineName')"},
		{"[int]'5' + 1", "(+ ([int] '5') 1)"},
		{"[string[]]$x", "([string[]] $x)"},
		{"$a[1][0]", "([] ([] $a 1) 0)"},
		{"$a[-1]", "([] $a -1)"},
		{"@{a = 1; 'b c' = 2}", "@{'a'=1 'b c'=2}"},
		{"@{\n a = 1\n b = 2\n}", "@{'a'=1 'b'=2}"},
		{"@(1; 2)", "@(1; 2)"},
		{"@()", "@()"},
		{"$(1 + 1)", "$((+ 1 1))"},
		{"& { $args[0] } 5", "(cmd& {([] $args 0)} 5)"},
		{"$i++", "($i++)"},
		{"++$i", "(++$i)"},
		{"$i--", "($i--)"},
		{"${my var}", "$my var"},
		{"$env:PATH", "$env:PATH"},
		{"$global:x = 1", "(= $global:x 1)"},
		{"0x10", "16"},
		{"1kb", "1024"},
		{"2MB", "2097152"},
		{"1.5", "1.5"},
		{"1e2", "100"},
		{"$true", "$true"},
	} {
		list, err := ParseStatements(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if got := sexp(list); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// Strings (about_Quoting_Rules): single quotes are literal with ”
// for a quote; double quotes expand $var, ${var}, $(...) and `
// escapes, and "" is a quote; here-strings run from the line after @"
// to a line starting "@.
func TestStrings(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`'it''s $x'`, `'it's $x'`},
		{`"a $x b"`, `"a $x b"`},
		{`"$x.Length"`, `"$x.Length"`},
		{`"${x}y"`, `"$xy"`},
		{`"$env:USERNAME!"`, `"$env:USERNAME!"`},
		{`"v=$($a.b)"`, `"v=$((. $a 'b'))"`},
		{"\"tab`there\"", "\"tab\there\""},
		{"\"nl`n\"", "\"nl\n\""},
		{"\"``$x\"", "\"`$x\""},
		{"\"`$x\"", "\"$x\""},
		{`"say ""hi"""`, `"say "hi""`},
		{`"cost: $"`, `"cost: $"`},
		{"@'\nline $x\n'@", "'line $x'"},
		{"@\"\na $x\nb\n\"@", "\"a $x\nb\""},
	} {
		if got := parse(t, tc.src); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// Statements: the keywords and their blocks.
func TestStatements(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"if ($a) { 1 } elseif ($b) { 2 } else { 3 }", "(if $a {1} $b {2} else {3})"},
		{"if ($a)\n{\n 1\n}\nelse\n{\n 2\n}", "(if $a {1} else {2})"},
		{"while ($i -lt 3) { $i++ }", "(while (lt $i 3) {($i++)})"},
		{"do { $i-- } until ($i -le 0)", "(do {($i--)} until (le $i 0))"},
		{"do { 1 } while ($false)", "(do {1} while $false)"},
		{"for ($i = 0; $i -lt 2; $i++) { $i }", "(for (= $i 0); (lt $i 2); ($i++) {$i})"},
		{"foreach ($f in Get-ChildItem) { $f.Name }", "(foreach $f (cmd 'Get-ChildItem') {(. $f 'Name')})"},
		{"try { 1 } catch { 2 } finally { 3 }", "(try {1} catch {2} finally {3})"},
		{"try { 1 } finally { 3 }", "(try {1} finally {3})"},
		{"function Add($a, $b) { $a + $b }", "(function Add($a,$b) {(+ $a $b)})"},
		{"exit 3", "(exit 3)"},
		{"return", "(return)"},
		{"throw 'boom'", "(throw 'boom')"},
		{"break; continue", "(break); (continue)"},
		{"1; 2\n3", "1; 2; 3"},
		{"# a comment\n1 <# block\ncomment #> + 2", "(+ 1 2)"},
		{"Write-Output a `\n  b", "(cmd 'Write-Output' 'a' 'b')"},
	} {
		if got := parse(t, tc.src); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// Parse errors carry PowerShell's own wording (the ParserStrings
// resource behind about_Parsing's examples) and the offset at which
// PowerShell reports them.
func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		src string
		msg string
	}{
		{"(1 + 2", "Missing closing ')' in expression."},
		{"if (", "Missing condition in if statement after 'if ('."},
		{"if (1) {} elseif (\n", "Missing condition in elseif statement after 'elseif ('."},
		{"'abc", "The string is missing the terminator: '."},
		{`"abc`, `The string is missing the terminator: ".`},
		{"@'\nabc", "The string is missing the terminator: '@."},
		{"{ 1", "Missing closing '}' in statement block or type definition."},
		{"$(1", "Missing closing ')' in subexpression."},
		{"a && b", "The token '&&' is not a valid statement separator in this version."},
		{"1 < 2", "The '<' operator is reserved for future use."},
		{"1 -bogus 2", "Unexpected token '-bogus' in expression or statement."},
		{"1 != 2", "Unexpected token '!=' in expression or statement."},
		{"Get-Item |", "An empty pipe element is not allowed."},
		{"Get-Item | 1", "Expressions are only allowed as the first element of a pipeline."},
		{"Write-Output x >", "Missing file specification after redirection operator."},
		{"[int", "Missing ] at end of type token."},
		{"$a.", "Missing property name after reference operator."},
		{"$a.b(1", "Missing ')' in method call."},
		{"1 +", "You must provide a value expression following the '+' operator."},
		{"@{a}", "Missing '=' operator after key in hash literal."},
		{"do { 1 }", "Missing while or until keyword in do loop."},
		{"foreach (x in 1) {}", "Missing variable name after foreach."},
		{"foreach ($x 1) {}", "Missing 'in' after variable in foreach loop."},
		{"try { 1 }", "The Try statement is missing its Catch or Finally block."},
		{"function { 1 }", "Missing name after function keyword."},
	} {
		_, err := ParseStatements(tc.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: %v, want a syntax error", tc.src, err)
			continue
		}
		if !strings.HasPrefix(se.Error(), tc.msg) {
			t.Errorf("%q: %q, want %q", tc.src, se.Error(), tc.msg)
		}
		if se.ID() == "ParseError" {
			t.Errorf("%q: no FullyQualifiedErrorId for %q", tc.src, se.Error())
		}
		if se.Pos < 0 || se.Pos > len([]rune(tc.src)) {
			t.Errorf("%q: position %d outside the script", tc.src, se.Pos)
		}
	}
}

// ParseNumber reads what [int]/[double] conversion of text accepts.
func TestParseNumber(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want any
		ok   bool
	}{
		{"42", 42, true},
		{"-42", -42, true},
		{"0x1f", 31, true},
		{"0XFF", 255, true},
		{"3.25", 3.25, true},
		{".5", 0.5, true},
		{"1e-2", 0.01, true},
		{"", nil, false},
		{".", nil, false},
		{"+1", nil, false},
		{"1.2.3", nil, false},
		{"0x", nil, false},
		{"twelve", nil, false},
	} {
		got, ok := ParseNumber(tc.s)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseNumber(%q) = %#v %v, want %#v %v", tc.s, got, ok, tc.want, tc.ok)
		}
	}
}

// What the interpreter does not follow fails the parse with an
// UnsupportedError naming it, so that nothing of the script runs.
func TestUnsupportedConstructs(t *testing.T) {
	for src, what := range map[string]string{
		"function f { 1; param($x) $x }":                     "the param statement",
		"function f { begin {} process {} dynamicparam {} }": "the dynamicparam block",
		"switch -Parallel (1) { 1 { 'one' } }":               "switch -Parallel",
		"class Foo { }":                                      "the class statement",
	} {
		_, err := ParseStatements(src)
		var ue *UnsupportedError
		if !errors.As(err, &ue) || ue.What != what {
			t.Errorf("%s: %v, want %q not emulated", src, err, what)
		}
	}
}

// A catch may name exception types, nested brackets included; the
// parser keeps them for the evaluator to match.
func TestCatchTypes(t *testing.T) {
	list, err := ParseStatements("try { 1 } catch [System.IO.IOException], [string[]] { 2 } catch { 3 }")
	if err != nil {
		t.Fatal(err)
	}
	s := list[0].(*TryStmt)
	if len(s.CatchTypes) != 2 || strings.Join(s.CatchTypes[0], ",") != "System.IO.IOException,string[]" || len(s.CatchTypes[1]) != 0 {
		t.Errorf("catch types %q", s.CatchTypes)
	}
	if got := sexp(list); got != "(try {1} catch {2} catch {3})" {
		t.Errorf("tree %s", got)
	}
}

// Statements run over lines where PowerShell lets them (about_Parsing):
// after |, a binary operator, a backtick, an open
// brace, parenthesis or @( and inside hashtables, whose entries a
// newline separates; comments end at the line end or #>.
func TestMultiLine(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"1..3 |\n  Where-Object { $_ -gt 1 } |\n  ForEach-Object { $_ }", "(| (.. 1 3) (cmd 'Where-Object' {(gt $_ 1)}) (cmd 'ForEach-Object' {$_}))"},
		{"$h = @{\n  a = 1   # first\n  b = @(\n    1,\n    2\n  )\n}", "(= $h @{'a'=1 'b'=@((, 1 2))})"},
		{"function f {\n  <#\n    .SYNOPSIS\n  #>\n  'body'\n}", "(function f() {'body'})"},
		{"$x = 'a' +\n  'b'", "(= $x (+ 'a' 'b'))"},
		{"if ($true) { 'x' } else {\n  'y' }", "(if $true {'x'} else {'y'})"},
		{"$list = @(\n  'one'\n  'two'\n)", "(= $list @('one'; 'two'))"},
		{"Get-Thing `\n  -Name x `\n  -Force", "(cmd 'Get-Thing' -Name 'x' -Force)"},
		{"foreach ($i in\n  1..2) { $i }", "(foreach $i (.. 1 2) {$i})"},
	} {
		if got := parse(t, c.src); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

// Command arguments (about_Parsing, argument mode): a word glued to a
// variable or subexpression is one argument; quotes end where they
// close; a leading -- or a number is a value; & and . invoke
// expressions.
func TestArguments(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`echo "$a"x`, `(cmd 'echo' (cat "$a" 'x'))`},
		{`echo $a.b`, `(cmd 'echo' (. $a 'b'))`},
		{`echo C:\$name\bin`, `(cmd 'echo' (cat 'C:\' $name '\bin'))`},
		{`echo $(1 + 1)px`, `(cmd 'echo' (cat $((+ 1 1)) 'px'))`},
		{`echo -1 5 1.5`, `(cmd 'echo' -1 5 1.5)`},
		{`echo @(1, 2)`, `(cmd 'echo' @((, 1 2)))`},
		{`echo @{a = 1}`, `(cmd 'echo' @{'a'=1})`},
		{`echo {x}`, `(cmd 'echo' {(cmd 'x')})`},
		{`& $cmd -v`, `(cmd& $cmd -v)`},
		{`& { 1 }`, `(cmd& {1})`},
		{`. $script`, `(cmd. $script)`},
		{`Get-Item -Path:$p -Force:$false`, `(cmd 'Get-Item' -Path:$p -Force:$false)`},
		{`echo a>b`, `(cmd 'echo' 'a') >'b'`},
		{`echo a 2>$null`, `(cmd 'echo' 'a') 2>$null`},
		{`echo a *>&1`, `(cmd 'echo' 'a') *>&1nil`},
	} {
		if got := parse(t, c.src); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

// The parser records where statements and commands are, in runes: the
// evaluator points at them in error messages.
func TestPositions(t *testing.T) {
	src := "$x = 1\n  Get-Item C:\\x -Force | Out-Null; 'é' ; exit 3"
	list, err := ParseStatements(src)
	if err != nil {
		t.Fatal(err)
	}
	rs := []rune(src)
	at := func(pos, end int) string { return strings.TrimSpace(string(rs[pos:min(end, len(rs))])) }
	if a := list[0].(*AssignStmt); a.Pos != 0 {
		t.Errorf("assignment at %d", a.Pos)
	}
	pl := list[1].(*PipelineStmt)
	if got := at(pl.Pos, pl.End); got != `Get-Item C:\x -Force | Out-Null` {
		t.Errorf("pipeline extent %q", got)
	}
	if cmd := pl.Elems[0].Cmd; at(cmd.Pos, cmd.End) != `Get-Item C:\x -Force` {
		t.Errorf("command extent %q", at(cmd.Pos, cmd.End))
	}
	if s := list[2].(*PipelineStmt); at(s.Pos, s.End) != "'é'" {
		t.Errorf("after a non-ASCII rune: %q", at(s.Pos, s.End))
	}
	if f := list[3].(*FlowStmt); at(f.Pos, f.End) != "exit 3" {
		t.Errorf("exit extent %q", at(f.Pos, f.End))
	}
	_, err = ParseStatements("$a = 'é'; 1 +")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pos != len([]rune("$a = 'é'; 1 +")) {
		t.Errorf("error position %v", err)
	}
}
