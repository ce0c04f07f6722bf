package engine

import (
	"context"
	"reflect"

	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// Invocation is one call of a function, a script block or a script:
// what package bind needs to bind its parameters (about_Functions,
// about_Functions_Advanced_Parameters) and run its named blocks.
type Invocation struct {
	Name string // the function or script as called, for errors; "" for a script block
	// Body is the statements, a *lang.ParamStmt and
	// *lang.NamedBlockStmt among them.
	Body   []lang.Stmt
	Params []*lang.Param // function f(...) parameters
	Filter bool          // a filter: the body is the process block
	Script bool          // a script file: Name is its full path
	Args   []Arg
	Input  []any
	Piped  bool // Input comes from a pipeline (even an empty one)
	Emit   func(any)
	// NewScope is false for a dot-sourced call and for the script run
	// by -Command or -File, which run in the scope they are in.
	NewScope bool
	Cmd      *lang.Command // the call, for error positions; nil at the top
}

// Invoke runs an Invocation. Package bind sets it when imported (package
// pwsh imports it), as the cmdlet families register their cmdlets.
var Invoke func(ctx context.Context, i *Interp, inv *Invocation) error

// Statements are evaluators of statements that packages above the
// engine implement (the switch statement), by the statement's type.
var Statements = map[reflect.Type]func(ctx context.Context, i *Interp, s lang.Stmt, emit func(any)) error{}

func (i *Interp) callBody(ctx context.Context, inv *Invocation) error {
	if Invoke == nil {
		return &values.NotEmulatedError{What: "calls of functions and script blocks without package bind"}
	}
	return Invoke(ctx, i, inv)
}

// Exec runs one statement, as ExecList does each of its list.
func (i *Interp) Exec(ctx context.Context, s lang.Stmt, emit func(any)) error {
	return i.exec(ctx, s, emit)
}

// Eval evaluates an expression.
func (i *Interp) Eval(ctx context.Context, e lang.Expr) (any, error) { return i.eval(ctx, e) }

// chain runs a pipeline chain: the right side runs when the left
// succeeded (&&) or failed (||), as $? tells after it
// (about_Pipeline_Chain_Operators).
func (i *Interp) chain(ctx context.Context, s *lang.ChainStmt, emit func(any)) error {
	if err := i.exec(ctx, s.Left, emit); err != nil {
		return err
	}
	if i.ok == (s.Op == "&&") {
		return i.exec(ctx, s.Right, emit)
	}
	return nil
}
