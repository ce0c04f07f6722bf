package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// ExecList runs statements. A terminating error goes to a trap of the
// list's scope if there is one (about_Trap); otherwise a
// statement-terminating error is reported and the next statement runs,
// unless a try or a trap of an outer scope is waiting for it.
func (i *Interp) ExecList(ctx context.Context, list []lang.Stmt, emit func(any)) error {
	defer i.pushTraps(list)()
	for _, s := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, ok := s.(*lang.TrapStmt); ok {
			continue
		}
		err := i.exec(ctx, s, emit)
		var re *values.RuntimeError
		if errors.As(err, &re) {
			handled, terr := i.trap(ctx, re, emit)
			if handled {
				if terr != nil {
					return terr
				}
				continue
			}
		}
		if errors.As(err, &re) && !re.Script && i.TryDepth == 0 && !i.trapAbove() {
			i.RecordError(re.Rec)
			i.ErrOut(re.Rec)
			i.ok = false
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (i *Interp) exec(ctx context.Context, s lang.Stmt, emit func(any)) error {
	switch s := s.(type) {
	case *lang.PipelineStmt:
		return i.runPipeline(ctx, s, emit)
	case *lang.AssignStmt:
		return i.assign(ctx, s)
	case *lang.IfStmt:
		for k, c := range s.Conds {
			v, err := i.value(ctx, c)
			if err != nil {
				return err
			}
			if values.ToBool(v) {
				return i.ExecList(ctx, s.Bodies[k], emit)
			}
		}
		return i.ExecList(ctx, s.Els, emit)
	case *lang.WhileStmt:
		return i.loop(ctx, nil, s.Cond, nil, s.Body, emit, false, s.Label)
	case *lang.ForStmt:
		if s.Init != nil {
			if err := i.exec(ctx, s.Init, func(any) {}); err != nil {
				return err
			}
		}
		return i.loop(ctx, nil, s.Cond, s.Iter, s.Body, emit, false, s.Label)
	case *lang.DoStmt:
		return i.loop(ctx, s, s.Cond, nil, s.Body, emit, s.Until, s.Label)
	case *lang.ForeachStmt:
		return i.foreach(ctx, s, emit)
	case *lang.TryStmt:
		return i.try(ctx, s, emit)
	case *lang.FlowStmt:
		return i.flow(ctx, s, emit)
	case *lang.FunctionStmt:
		i.Funcs[strings.ToLower(s.Name)] = s
		return nil
	case *lang.ChainStmt:
		return i.chain(ctx, s, emit)
	case *lang.ParamStmt:
		return nil // bound by the call (package bind)
	case *lang.NamedBlockStmt:
		// Outside a call (a block that ForEach-Object runs) a named
		// block's statements run in turn.
		return i.ExecList(ctx, s.Body, emit)
	}
	if run, ok := Statements[reflect.TypeOf(s)]; ok {
		return run(ctx, i, s, emit)
	}
	return &values.NotEmulatedError{What: fmt.Sprintf("the statement %T", s)}
}

// value runs a statement and collects its output as one value.
func (i *Interp) value(ctx context.Context, s lang.Stmt) (any, error) {
	if s == nil {
		return nil, nil
	}
	var out []any
	err := i.exec(ctx, s, func(v any) { out = append(out, v) })
	return values.FromList(out), err
}

// loop is while, for and do: body runs while cond holds (until: while
// it does not); do runs the body first.
func (i *Interp) loop(ctx context.Context, do *lang.DoStmt, cond, iter lang.Stmt, body []lang.Stmt, emit func(any), until bool, label string) error {
	first := do != nil
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !first && cond != nil {
			v, err := i.value(ctx, cond)
			if err != nil {
				return err
			}
			if values.ToBool(v) == until {
				return nil
			}
		}
		first = false
		if done, err := loopFlow(i.ExecList(ctx, body, emit), label); done || err != nil {
			return err
		}
		if iter != nil {
			if err := i.exec(ctx, iter, func(any) {}); err != nil {
				return err
			}
		}
		if do != nil && cond == nil {
			return nil
		}
	}
}

func (i *Interp) foreach(ctx context.Context, s *lang.ForeachStmt, emit func(any)) error {
	coll, err := i.value(ctx, s.Coll)
	if err != nil {
		return err
	}
	for _, item := range values.ToList(coll) {
		if err := ctx.Err(); err != nil {
			return err
		}
		i.SetVar(s.V, item)
		if done, err := loopFlow(i.ExecList(ctx, s.Body, emit), s.Label); done || err != nil {
			return err
		}
	}
	return nil
}

// loopFlow is what a loop labelled label does after its body ended
// with err: stop (done) on its break, go on after its continue, and
// pass on a break or continue naming another loop (about_Break,
// about_Continue).
func loopFlow(err error, label string) (done bool, _ error) {
	var br values.BreakFlow
	var co values.ContinueFlow
	switch {
	case errors.As(err, &br):
		if br.Of(label) {
			return true, nil
		}
		return true, err
	case errors.As(err, &co):
		if co.Of(label) {
			return false, nil
		}
		return true, err
	}
	return err != nil, err
}

// catching is the first catch block that takes the error: one naming
// no type, or a type the exception is (about_Try_Catch_Finally); -1 for
// none.
func catching(s *lang.TryStmt, rec *values.ErrorRecord) int {
	for k := range s.Catches {
		var types []string
		if k < len(s.CatchTypes) {
			types = s.CatchTypes[k]
		}
		if len(types) == 0 {
			return k
		}
		for _, t := range types {
			if exceptionIs(rec.ExceptionType(), t) {
				return k
			}
		}
	}
	return -1
}

// exceptionIs tells whether an exception of the full type name full is
// a typ: the type itself, System.Exception, or RuntimeException for
// PowerShell's own exceptions (which derive from it).
func exceptionIs(full, typ string) bool {
	short := func(s string) string { return strings.ToLower(s[strings.LastIndex(s, ".")+1:]) }
	t := short(typ)
	switch {
	case t == short(full), t == "exception":
		return true
	case t == "runtimeexception":
		return strings.HasPrefix(full, "System.Management.Automation.")
	case t == "systemexception":
		return strings.HasPrefix(full, "System.") && !strings.HasPrefix(full, "System.Management.Automation.")
	}
	return false
}

// try runs the body; a terminating error goes to the first catch, with
// $_ the error. finally always runs.
func (i *Interp) try(ctx context.Context, s *lang.TryStmt, emit func(any)) error {
	i.TryDepth++
	err := i.ExecList(ctx, s.Body, emit)
	i.TryDepth--
	var re *values.RuntimeError
	if errors.As(err, &re) {
		if k := catching(s, re.Rec); k >= 0 {
			i.RecordError(re.Rec)
			i.Scopes = append(i.Scopes, map[string]any{"_": re.Rec, "psitem": re.Rec})
			err = i.ExecList(ctx, s.Catches[k], emit)
			i.Scopes = i.Scopes[:len(i.Scopes)-1]
		}
	}
	if s.Finally != nil {
		if ferr := i.ExecList(context.WithoutCancel(ctx), s.Finally, emit); ferr != nil {
			return ferr
		}
	}
	return err
}

func (i *Interp) flow(ctx context.Context, s *lang.FlowStmt, emit func(any)) error {
	if s.Kind == "return" {
		// return 'x' writes 'x' to the output, then leaves
		// (about_Return).
		if s.Value != nil {
			if err := i.exec(ctx, s.Value, emit); err != nil {
				return err
			}
		}
		return values.ReturnFlow{}
	}
	v, err := i.value(ctx, s.Value)
	if err != nil {
		return err
	}
	switch s.Kind {
	case "exit":
		code := 0
		if v != nil {
			n, ok := values.ToInt(v)
			if !ok {
				return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: `Cannot convert value "` + values.ToStr(v) + `" to type "System.Int32". Error: "Input string was not in a correct format."`,
					Category: "InvalidArgument", Target: "", Reason: "RuntimeException", Fqid: "InvalidCastFromStringToInteger", Src: i.Src, Pos: s.Pos, End: s.End}}
			}
			code = n
		}
		return values.ExitFlow{Code: code}
	case "break":
		return values.BreakFlow{Label: s.Label}
	case "continue":
		return values.ContinueFlow{Label: s.Label}
	}
	msg := "ScriptHalted"
	if v != nil {
		msg = values.ToStr(v)
	}
	if rec, ok := v.(*values.ErrorRecord); ok {
		return &values.RuntimeError{Rec: rec, Script: true}
	}
	return &values.RuntimeError{Script: true, Rec: &values.ErrorRecord{Msg: msg, Category: "OperationStopped", Target: msg,
		Reason: "RuntimeException", Fqid: msg, Src: i.Src, Pos: s.Pos, End: s.End}}
}

// assigned is the value an assignment stores. An expression is stored
// as it is ($a = @(1) is an array of one, $b = $a the same array, as
// .NET arrays are references); a pipeline's output is collected ($null,
// one object, or an array).
func (i *Interp) assigned(ctx context.Context, s lang.Stmt) (any, error) {
	pl, ok := s.(*lang.PipelineStmt)
	if !ok || len(pl.Elems) != 1 || pl.Elems[0].Expr == nil || len(pl.Elems[0].Redirs) != 0 {
		return i.value(ctx, s)
	}
	switch pl.Elems[0].Expr.(type) {
	case *lang.IncExpr:
		return i.value(ctx, s)
	}
	v, err := i.eval(ctx, pl.Elems[0].Expr)
	if re, ok := err.(*values.RuntimeError); ok && re.Rec.Src == nil {
		re.Rec.Src, re.Rec.Pos, re.Rec.End = i.Src, pl.Pos, pl.End
	}
	return v, err
}

// assignMany is $a, $b, $rest = 1, 2, 3, 4 (about_Assignment_Operators):
// each variable takes one value, the last the rest (an array when more
// than one is left, $null when none).
func (i *Interp) assignMany(t *lang.ArrayExpr, v any) error {
	vals := values.ToList(v)
	for k, item := range t.Items {
		ve, ok := item.(*lang.VarExpr)
		if !ok {
			return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: "The assignment expression is not valid. The input to an assignment operator must be an object that is able to accept assignments, such as a variable or a property.",
				Category: "ParserError", Reason: "ParentContainsErrorRecordException", Fqid: "InvalidLeftHandSide", Src: i.Src}}
		}
		var part any
		switch {
		case k == len(t.Items)-1 && k < len(vals):
			part = values.FromList(vals[k:])
		case k < len(vals):
			part = vals[k]
		}
		if err := i.SetVar(ve.Name, part); err != nil {
			return err
		}
	}
	return nil
}

// assign is $x = ..., $x += ..., $env:X = ..., $a[i] = ..., $o.P = ...
func (i *Interp) assign(ctx context.Context, s *lang.AssignStmt) error {
	err := i.assignTo(ctx, s)
	// An error of the assignment itself ($a[10] = 1) points at it.
	if re, ok := err.(*values.RuntimeError); ok && re.Rec.Src == nil && !re.Rec.NoPos {
		re.Rec.Src, re.Rec.Pos = i.Src, s.Pos
	}
	return err
}

func (i *Interp) assignTo(ctx context.Context, s *lang.AssignStmt) error {
	if s.Op == "??=" {
		// $x ??= v assigns only when $x is $null, and only then
		// evaluates v (about_Operators, PowerShell 7).
		old, err := i.eval(ctx, s.Target)
		if err != nil || old != nil {
			return err
		}
		s = &lang.AssignStmt{Target: s.Target, Op: "=", Value: s.Value, Pos: s.Pos}
	}
	v, err := i.assigned(ctx, s.Value)
	if err != nil {
		return err
	}
	i.ok = true
	target := s.Target
	if c, ok := target.(*lang.CastExpr); ok {
		if v, err = i.Cast(c.Typ, v); err != nil {
			return err
		}
		target = c.X
	}
	if s.Op != "=" {
		old, err := i.eval(ctx, target)
		if err != nil {
			return err
		}
		if v, err = i.binary(strings.TrimSuffix(s.Op, "="), old, v); err != nil {
			return err
		}
	}
	switch t := target.(type) {
	case *lang.VarExpr:
		return i.SetVar(t.Name, v)
	case *lang.ArrayExpr:
		if s.Op == "=" {
			return i.assignMany(t, v)
		}
	case *lang.IndexExpr:
		return i.setIndex(ctx, t, v)
	case *lang.MemberExpr:
		obj, err := i.eval(ctx, t.X)
		if err != nil {
			return err
		}
		name, err := i.eval(ctx, t.Name)
		if err != nil {
			return err
		}
		switch o := obj.(type) {
		case *values.Hashtable:
			o.Set(values.ToStr(name), v)
			return nil
		case *values.Object:
			o.Set(values.ToStr(name), v)
			return nil
		case values.NetObject:
			return SetMember(o, values.ToStr(name), v)
		}
	}
	return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: "The assignment expression is not valid. The input to an assignment operator must be an object that is able to accept assignments, such as a variable or a property.",
		Category: "ParserError", Reason: "ParentContainsErrorRecordException", Fqid: "InvalidLeftHandSide", Src: i.Src, Pos: s.Pos}}
}

func (i *Interp) setIndex(ctx context.Context, t *lang.IndexExpr, v any) error {
	obj, err := i.eval(ctx, t.X)
	if err != nil {
		return err
	}
	idx, err := i.eval(ctx, t.Idx)
	if err != nil {
		return err
	}
	switch o := obj.(type) {
	case *values.Hashtable:
		o.Set(values.ToStr(idx), v)
		return nil
	case values.Indexer:
		return o.SetItem(idx, v)
	case []any:
		n, ok := values.ToInt(idx)
		if n < 0 {
			n += len(o)
		}
		if ok && n >= 0 && n < len(o) {
			o[n] = v
			return nil
		}
		return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: "Index was outside the bounds of the array.", Category: "OperationStopped",
			Reason: "IndexOutOfRangeException", Fqid: "System.IndexOutOfRangeException"}}
	}
	return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: "Unable to index into an object of type " + dotnet.TypeName(obj) + ".",
		Category: "InvalidOperation", Reason: "RuntimeException", Fqid: "CannotIndex"}}
}
