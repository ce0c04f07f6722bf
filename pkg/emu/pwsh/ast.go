package pwsh

// The syntax tree of a script. Statements and expressions are plain
// structs; the evaluator switches on their types.

type stmt interface{}

type expr interface{}

// pipelineStmt is elements joined by |; the first may be an expression,
// the others are commands.
type pipelineStmt struct {
	elems    []*element
	pos, end int
}

type element struct {
	expr   expr // an expression element
	cmd    *command
	redirs []redirect
}

type command struct {
	invoke   string // "", "&" or "."
	name     expr
	args     []arg
	pos, end int
}

type arg struct {
	param    string // -Name, or "" for a positional value
	value    expr   // nil for a switch
	pos, end int
}

type redirect struct {
	op     string // > >> 2> 2>&1 *> ...
	target expr
}

type assignStmt struct {
	target expr
	op     string
	value  stmt
	pos    int
}

type ifStmt struct {
	conds  []stmt
	bodies [][]stmt
	els    []stmt
}

type whileStmt struct {
	cond stmt
	body []stmt
}

type doStmt struct {
	body  []stmt
	cond  stmt
	until bool
}

type forStmt struct {
	init, cond, iter stmt
	body             []stmt
}

type foreachStmt struct {
	v    string
	coll stmt
	body []stmt
}

type tryStmt struct {
	body    []stmt
	catches [][]stmt
	finally []stmt
}

// flowStmt is exit, return, throw, break or continue.
type flowStmt struct {
	kind  string
	value stmt
	pos   int
	end   int
}

type functionStmt struct {
	name   string
	params []string
	body   []stmt
}

type litExpr struct{ v any }

type xstrExpr struct{ parts []strPart }

type varExpr struct{ name string }

// subExpr is $(...) or @(...).
type subExpr struct {
	stmts []stmt
	array bool
}

type parenExpr struct{ s stmt }

type hashExpr struct {
	keys []expr
	vals []stmt
}

type blockExpr struct {
	stmts []stmt
	src   string
}

type typeExpr struct{ name string }

type castExpr struct {
	typ string
	x   expr
}

type unaryExpr struct {
	op string
	x  expr
}

type binExpr struct {
	op   string
	l, r expr
}

type arrayExpr struct{ items []expr }

type memberExpr struct {
	x      expr
	name   expr
	static bool
}

type callExpr struct {
	m    *memberExpr
	args []expr
}

type indexExpr struct {
	x, idx expr
}

// incExpr is ++ or -- before or after a variable.
type incExpr struct {
	op   string
	x    expr
	post bool
}

// compositeExpr is a command argument made of adjacent pieces:
// $env:ROOT\bin\x.exe.
type compositeExpr struct{ parts []expr }
