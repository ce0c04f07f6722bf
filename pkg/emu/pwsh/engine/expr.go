package engine

import (
	"context"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func (i *Interp) eval(ctx context.Context, e lang.Expr) (any, error) {
	switch e := e.(type) {
	case nil:
		return nil, nil
	case *lang.LitExpr:
		return e.V, nil
	case *lang.XstrExpr:
		return i.expandString(ctx, e.Parts)
	case *lang.VarExpr:
		v, _ := i.GetVar(e.Name)
		return v, nil
	case *lang.SubExpr:
		var out []any
		if err := i.ExecList(ctx, e.Stmts, func(v any) { out = append(out, v) }); err != nil {
			return nil, err
		}
		if e.Array {
			if out == nil {
				out = []any{}
			}
			return out, nil
		}
		return values.FromList(out), nil
	case *lang.ParenExpr:
		return i.value(ctx, e.S)
	case *lang.HashExpr:
		h := values.NewHashtable()
		for k, key := range e.Keys {
			kv, err := i.eval(ctx, key)
			if err != nil {
				return nil, err
			}
			v, err := i.value(ctx, e.Vals[k])
			if err != nil {
				return nil, err
			}
			h.Set(values.ToStr(kv), v)
		}
		return h, nil
	case *lang.BlockExpr:
		return &values.ScriptBlock{Stmts: e.Stmts, Src: e.Src}, nil
	case *lang.TypeExpr:
		return &values.TypeRef{Name: e.Name}, nil
	case *lang.CastExpr:
		v, err := i.eval(ctx, e.X)
		if err != nil {
			return nil, err
		}
		return i.Cast(e.Typ, v)
	case *lang.UnaryExpr:
		return i.unary(ctx, e)
	case *lang.BinExpr:
		return i.binExpr(ctx, e)
	case *lang.TernaryExpr:
		c, err := i.eval(ctx, e.Cond)
		if err != nil {
			return nil, err
		}
		if values.ToBool(c) {
			return i.eval(ctx, e.Then)
		}
		return i.eval(ctx, e.Else)
	case *lang.ArrayExpr:
		out := make([]any, 0, len(e.Items))
		for _, x := range e.Items {
			v, err := i.eval(ctx, x)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *lang.MemberExpr:
		return i.member(ctx, e)
	case *lang.CallExpr:
		return i.call(ctx, e)
	case *lang.IndexExpr:
		return i.index(ctx, e)
	case *lang.IncExpr:
		return i.increment(ctx, e)
	case *lang.CompositeExpr:
		var b strings.Builder
		for _, part := range e.Parts {
			v, err := i.eval(ctx, part)
			if err != nil {
				return nil, err
			}
			b.WriteString(values.ToStr(v))
		}
		return b.String(), nil
	}
	return nil, nil
}

// expandString fills a "double-quoted" string.
func (i *Interp) expandString(ctx context.Context, parts []lang.StrPart) (string, error) {
	var b strings.Builder
	for _, part := range parts {
		switch {
		case part.Sub:
			var out []any
			if err := i.ExecList(ctx, part.Stmts, func(v any) { out = append(out, v) }); err != nil {
				return "", err
			}
			b.WriteString(values.ToStr(values.FromList(out)))
		case part.Name != "":
			v, _ := i.GetVar(part.Name)
			b.WriteString(values.ToStr(v))
		default:
			b.WriteString(part.Text)
		}
	}
	return b.String(), nil
}

func (i *Interp) unary(ctx context.Context, e *lang.UnaryExpr) (any, error) {
	v, err := i.eval(ctx, e.X)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case "not":
		return !values.ToBool(v), nil
	case "-":
		return i.binary("-", 0, v)
	case "+":
		return i.binary("+", 0, v)
	case "bnot":
		n, _ := values.ToInt(v)
		return ^n, nil
	case "join":
		return dotnet.JoinValues(values.ToList(v), ""), nil
	case "split":
		return dotnet.Split(strings.TrimSpace(values.ToStr(v)), `\s+`, true, -1)
	}
	return nil, nil
}

func (i *Interp) binExpr(ctx context.Context, e *lang.BinExpr) (any, error) {
	l, err := i.eval(ctx, e.L)
	if err != nil {
		return nil, err
	}
	switch e.Op { // short-circuit
	case "??": // PowerShell 7: R only when L is $null
		if l != nil {
			return l, nil
		}
		return i.eval(ctx, e.R)
	case "and":
		if !values.ToBool(l) {
			return false, nil
		}
	case "or":
		if values.ToBool(l) {
			return true, nil
		}
	}
	r, err := i.eval(ctx, e.R)
	if err != nil {
		return nil, err
	}
	return i.binary(e.Op, l, r)
}

func (i *Interp) index(ctx context.Context, e *lang.IndexExpr) (any, error) {
	obj, err := i.eval(ctx, e.X)
	if err != nil || obj == nil && e.NullCond {
		return nil, err
	}
	idx, err := i.eval(ctx, e.Idx)
	if err != nil {
		return nil, err
	}
	if list, ok := idx.([]any); ok {
		var out []any
		for _, k := range list {
			out = append(out, indexOne(obj, k))
		}
		return out, nil
	}
	return indexOne(obj, idx), nil
}

func indexOne(obj, idx any) any {
	switch o := obj.(type) {
	case *values.Hashtable:
		v, _ := o.Get(values.ToStr(idx))
		return v
	case []any:
		n, ok := values.ToInt(idx)
		if n < 0 {
			n += len(o)
		}
		if ok && n >= 0 && n < len(o) {
			return o[n]
		}
	case string:
		r := []rune(o)
		n, ok := values.ToInt(idx)
		if n < 0 {
			n += len(r)
		}
		if ok && n >= 0 && n < len(r) {
			return string(r[n])
		}
	case nil:
		return nil
	case values.Indexer:
		return o.Item(idx)
	default:
		if n, ok := values.ToInt(idx); ok && (n == 0 || n == -1) {
			return obj
		}
	}
	return nil
}

func (i *Interp) increment(ctx context.Context, e *lang.IncExpr) (any, error) {
	old, err := i.eval(ctx, e.X)
	if err != nil {
		return nil, err
	}
	op := e.Op[:1]
	v, err := i.binary(op, old, 1)
	if err != nil {
		return nil, err
	}
	if ve, ok := e.X.(*lang.VarExpr); ok {
		if err := i.SetVar(ve.Name, v); err != nil {
			return nil, err
		}
	}
	if e.Post {
		return old, nil
	}
	return v, nil
}
