// Package switchstmt evaluates the switch statement (about_Switch): each
// input value (each element of an array, each line of a -File) is
// tested against every clause in turn, and every clause that matches
// runs, unless break ends the switch or continue moves to the next
// value; default runs for a value no clause matched. The engine calls
// it through engine.Statements, which it fills when imported.
package switchstmt

import (
	"context"
	"errors"
	"reflect"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func init() {
	engine.Statements[reflect.TypeOf(&lang.SwitchStmt{})] = run
}

func run(ctx context.Context, i *engine.Interp, st lang.Stmt, emit func(any)) error {
	s := st.(*lang.SwitchStmt)
	items, err := inputs(ctx, i, s)
	if err != nil {
		return err
	}
	// $_ is the value under test, in the scope the switch runs in; it
	// is what it was before once the switch ends.
	top := i.Scopes[len(i.Scopes)-1]
	defer i.SaveItem()()
	for _, item := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		top["_"], top["psitem"] = item, item
		done, err := each(ctx, i, s, item, emit)
		if done || err != nil {
			return err
		}
	}
	return nil
}

// each tests one value against the clauses; done is a break.
func each(ctx context.Context, i *engine.Interp, s *lang.SwitchStmt, item any, emit func(any)) (done bool, err error) {
	matched := false
	for _, c := range s.Clauses {
		ok, err := matches(ctx, i, s, c.Cond, item)
		if err != nil {
			return true, err
		}
		if !ok {
			continue
		}
		matched = true
		if stop, next, err := body(ctx, i, s, c.Body, emit); stop || next || err != nil {
			return stop, err
		}
	}
	if !matched && s.HasDefault {
		stop, _, err := body(ctx, i, s, s.Default, emit)
		return stop, err
	}
	return false, nil
}

// body runs a clause's statements: break stops the switch, continue
// moves on to the next value; one naming another label passes on.
func body(ctx context.Context, i *engine.Interp, s *lang.SwitchStmt, list []lang.Stmt, emit func(any)) (stop, next bool, err error) {
	err = i.ExecList(ctx, list, emit)
	var br values.BreakFlow
	var co values.ContinueFlow
	switch {
	case errors.As(err, &br) && br.Of(s.Label):
		return true, false, nil
	case errors.As(err, &co) && co.Of(s.Label):
		return false, true, nil
	}
	return err != nil, false, err
}

// matches tests a value against a clause's condition as PowerShell's
// compiler does: a script block runs with $_ the value, in a scope of
// its own; a $null condition matches $null; any other condition and the
// value are turned into strings and compared as -Regex (setting
// $Matches) or -Wildcard say, else for equality; without case unless
// -CaseSensitive. -Exact is that default.
func matches(ctx context.Context, i *engine.Interp, s *lang.SwitchStmt, cond lang.Expr, item any) (bool, error) {
	if b, ok := cond.(*lang.BlockExpr); ok {
		return runCondition(ctx, i, b.Stmts, item)
	}
	c, err := i.Eval(ctx, cond)
	if err != nil {
		return false, err
	}
	switch c := c.(type) {
	case nil:
		return item == nil, nil
	case *values.ScriptBlock:
		return runCondition(ctx, i, c.Stmts, item)
	}
	prefix := ""
	if s.CaseSensitive {
		prefix = "c"
	}
	str, pattern := values.ToStr(item), values.ToStr(c)
	switch {
	case s.Regex:
		v, err := i.Operator(prefix+"match", str, pattern)
		return values.ToBool(v), err
	case s.Wildcard:
		v, err := i.Operator(prefix+"like", str, pattern)
		return values.ToBool(v), err
	case s.CaseSensitive:
		return str == pattern, nil
	}
	return strings.EqualFold(str, pattern), nil
}

// runCondition runs a { } condition in a scope of its own.
func runCondition(ctx context.Context, i *engine.Interp, list []lang.Stmt, item any) (bool, error) {
	i.Scopes = append(i.Scopes, map[string]any{"_": item, "psitem": item})
	defer func() { i.Scopes = i.Scopes[:len(i.Scopes)-1] }()
	var out []any
	err := i.ExecList(ctx, list, func(v any) { out = append(out, v) })
	return values.ToBool(values.FromList(out)), err
}

// inputs are the values the switch tests: each line of -File; else the
// value in parentheses, an array element by element ($null is one
// value, @() none).
func inputs(ctx context.Context, i *engine.Interp, s *lang.SwitchStmt) ([]any, error) {
	if s.File != nil {
		return fileLines(ctx, i, s.File)
	}
	if pl, ok := s.Value.(*lang.PipelineStmt); ok && len(pl.Elems) == 1 && pl.Elems[0].Expr != nil && len(pl.Elems[0].Redirs) == 0 {
		v, err := i.Eval(ctx, pl.Elems[0].Expr)
		if list, ok := v.([]any); ok {
			return list, err
		}
		return []any{v}, err
	}
	var out []any
	err := i.Exec(ctx, s.Value, func(v any) { out = append(out, v) })
	return out, err
}

func fileLines(ctx context.Context, i *engine.Interp, e lang.Expr) ([]any, error) {
	v, err := i.Eval(ctx, e)
	if err != nil {
		return nil, err
	}
	path := i.Abs(values.ToStr(v))
	b, err := i.ReadFile(path)
	if err != nil {
		return nil, &values.RuntimeError{Rec: &values.ErrorRecord{Msg: "The file '" + path + "' cannot be read: Could not find file '" + path + "'.",
			Category: "ReadError", Target: path, Reason: "RuntimeException", Fqid: "FileReadError"}}
	}
	text := strings.ReplaceAll(engine.DecodeText(b), "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	var out []any
	if text == "" {
		return out, nil
	}
	for _, line := range strings.Split(text, "\n") {
		out = append(out, line)
	}
	return out, nil
}
