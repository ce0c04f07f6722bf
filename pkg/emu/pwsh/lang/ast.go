// Package lang is the PowerShell language as the emulator reads it: a
// context-aware lexer, a recursive-descent parser and the syntax tree it
// builds. It evaluates nothing; the engine walks the tree.
package lang

// The syntax tree of a script. Statements and expressions are plain
// structs; the evaluator switches on their types.

// Stmt is a statement: one of the *...Stmt types below.
type Stmt interface{}

// Expr is an expression: one of the *...Expr types below.
type Expr interface{}

// PipelineStmt is elements joined by |; the first may be an expression,
// the others are commands.
type PipelineStmt struct {
	Elems    []*Element
	Pos, End int
}

// Element is one stage of a pipeline: an expression or a command, with
// its redirections.
type Element struct {
	Expr   Expr // an expression element
	Cmd    *Command
	Redirs []Redirect
}

// Command is a command invocation: a name (or expression) and its
// arguments.
type Command struct {
	Invoke   string // "", "&" or "."
	Name     Expr
	Args     []Arg
	Pos, End int
}

// Arg is one command argument: a -Parameter, a value, or both.
type Arg struct {
	Param    string // -Name, or "" for a positional value
	Value    Expr   // nil for a switch
	pos, end int
}

// Redirect is an output redirection such as 2>&1 or > file.
type Redirect struct {
	Op     string // > >> 2> 2>&1 *> ...
	Target Expr
}

// AssignStmt is target = value, or a compound assignment (+= ...).
type AssignStmt struct {
	Target Expr
	Op     string
	Value  Stmt
	Pos    int
}

// IfStmt is if/elseif/else: Conds[k] guards Bodies[k]; Els runs when
// none holds.
type IfStmt struct {
	Conds  []Stmt
	Bodies [][]Stmt
	Els    []Stmt
}

// WhileStmt is while (Cond) { Body }.
type WhileStmt struct {
	Cond  Stmt
	Body  []Stmt
	Label string // :name before the loop, for break name
}

// DoStmt is do { Body } while/until (Cond).
type DoStmt struct {
	Body  []Stmt
	Cond  Stmt
	Until bool
	Label string
}

// ForStmt is for (Init; Cond; Iter) { Body }.
type ForStmt struct {
	Init, Cond, Iter Stmt
	Body             []Stmt
	Label            string
}

// ForeachStmt is foreach ($Var in Coll) { Body }.
type ForeachStmt struct {
	V     string
	Coll  Stmt
	Body  []Stmt
	Label string
}

// TryStmt is try { Body } catch { ... } finally { ... }.
type TryStmt struct {
	Body    []Stmt
	Catches [][]Stmt
	// CatchTypes are the exception types each catch names; none
	// catches every error.
	CatchTypes [][]string
	Finally    []Stmt
}

// TrapStmt is trap [Type] { Body } (about_Trap): it handles the
// terminating errors of the statements of the script block it is in.
type TrapStmt struct {
	Types []string
	Body  []Stmt
	Pos   int
}

// FlowStmt is exit, return, throw, break or continue; Label is the
// loop break or continue names.
type FlowStmt struct {
	Kind  string
	Value Stmt
	Label string
	Pos   int
	End   int
}

// FunctionStmt defines a function (or, with Filter, a filter: a
// function whose body is its process block, about_Functions).
type FunctionStmt struct {
	Name string
	// Params are the parameters written after the name:
	// function f([int]$x = 1) { }.
	Params []*Param
	Body   []Stmt
	Filter bool
}

// ParamStmt is the param(...) block that opens a script, a function's
// body or a script block, with the attributes written before it
// ([CmdletBinding()]).
type ParamStmt struct {
	Attrs  []*Attribute
	Params []*Param
	Pos    int
}

// Param is one parameter: [attributes][type]$Name = Default.
type Param struct {
	Name    string
	Type    string // "" when untyped
	Default Expr
	Attrs   []*Attribute
	Pos     int
}

// Attribute is [Name(Args, Named = Value)]; a named argument written
// without a value (Mandatory) has a nil Value, meaning $true.
type Attribute struct {
	Name  string
	Args  []Expr
	Named []NamedArg
}

// NamedArg is Name = Value inside an attribute.
type NamedArg struct {
	Name  string
	Value Expr
}

// NamedBlockStmt is a begin, process or end block of a script block.
type NamedBlockStmt struct {
	Kind string // begin, process or end
	Body []Stmt
}

// SwitchStmt is switch [-Regex|-Wildcard|-Exact] [-CaseSensitive]
// (Value) or -File Path { Clauses } (about_Switch).
type SwitchStmt struct {
	Regex, Wildcard, Exact, CaseSensitive bool
	Value                                 Stmt // (pipeline), when not -File
	File                                  Expr // -File path
	Clauses                               []SwitchClause
	Default                               []Stmt
	HasDefault                            bool
	Pos                                   int
	Label                                 string
}

// SwitchClause is a condition and the statements it guards; Cond is a
// value to compare, or a *BlockExpr to run.
type SwitchClause struct {
	Cond Expr
	Body []Stmt
}

// ChainStmt is PowerShell 7's pipeline chain: Left && Right runs Right
// when Left succeeded, Left || Right when it failed
// (about_Pipeline_Chain_Operators).
type ChainStmt struct {
	Left  Stmt
	Op    string // && or ||
	Right Stmt
}

// LitExpr is a literal value: a number or a single-quoted string.
type LitExpr struct{ V any }

// XstrExpr is an expandable "double-quoted" string.
type XstrExpr struct{ Parts []StrPart }

// VarExpr is a variable reference: $name, $env:NAME, ${...}.
type VarExpr struct{ Name string }

// SubExpr is $(...) or @(...).
type SubExpr struct {
	Stmts []Stmt
	Array bool
}

// ParenExpr is (statement).
type ParenExpr struct{ S Stmt }

// HashExpr is a hashtable literal @{ key = value }.
type HashExpr struct {
	Keys []Expr
	Vals []Stmt
}

// BlockExpr is a script block { ... }, with its source text.
type BlockExpr struct {
	Stmts []Stmt
	Src   string
}

// TypeExpr is a type literal [Name].
type TypeExpr struct{ Name string }

// CastExpr is [Typ]X.
type CastExpr struct {
	Typ string
	X   Expr
}

// UnaryExpr is a prefix operator applied to X.
type UnaryExpr struct {
	Op string
	X  Expr
}

// BinExpr is L Op R.
type BinExpr struct {
	Op   string
	L, R Expr
}

// ArrayExpr is a comma-separated list.
type ArrayExpr struct{ Items []Expr }

// MemberExpr is X.Name, or [Type]::Name when Static.
type MemberExpr struct {
	X      Expr
	Name   Expr
	Static bool
	// NullCond is PowerShell 7's ?.: $null when X is $null, arguments
	// unevaluated (about_Operators, "Null-conditional operators").
	NullCond bool
}

// CallExpr is a method call X.Name(Args).
type CallExpr struct {
	M    *MemberExpr
	Args []Expr
}

// IndexExpr is X[Idx].
type IndexExpr struct {
	X, Idx   Expr
	NullCond bool // ?[]
}

// TernaryExpr is PowerShell 7's Cond ? Then : Else
// (about_Operators, "Ternary operator").
type TernaryExpr struct {
	Cond, Then, Else Expr
}

// IncExpr is ++ or -- before or after a variable.
type IncExpr struct {
	Op   string
	X    Expr
	Post bool
}

// SplatExpr is @name as a command argument: the hashtable's entries
// are named arguments, the array's elements positional ones
// (about_Splatting).
type SplatExpr struct{ Name string }

// CompositeExpr is a command argument made of adjacent pieces:
// $env:ROOT\bin\x.exe.
type CompositeExpr struct{ Parts []Expr }
