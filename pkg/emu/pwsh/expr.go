package pwsh

import (
	"context"
	"strings"
)

func (i *interp) eval(ctx context.Context, e expr) (any, error) {
	switch e := e.(type) {
	case nil:
		return nil, nil
	case *litExpr:
		return e.v, nil
	case *xstrExpr:
		return i.expandString(ctx, e.parts)
	case *varExpr:
		v, _ := i.getVar(e.name)
		return v, nil
	case *subExpr:
		var out []any
		if err := i.execList(ctx, e.stmts, func(v any) { out = append(out, v) }); err != nil {
			return nil, err
		}
		if e.array {
			if out == nil {
				out = []any{}
			}
			return out, nil
		}
		return fromList(out), nil
	case *parenExpr:
		return i.value(ctx, e.s)
	case *hashExpr:
		h := newHashtable()
		for k, key := range e.keys {
			kv, err := i.eval(ctx, key)
			if err != nil {
				return nil, err
			}
			v, err := i.value(ctx, e.vals[k])
			if err != nil {
				return nil, err
			}
			h.set(toStr(kv), v)
		}
		return h, nil
	case *blockExpr:
		return &scriptBlock{stmts: e.stmts, src: e.src}, nil
	case *typeExpr:
		return &typeRef{e.name}, nil
	case *castExpr:
		v, err := i.eval(ctx, e.x)
		if err != nil {
			return nil, err
		}
		return i.cast(e.typ, v)
	case *unaryExpr:
		return i.unary(ctx, e)
	case *binExpr:
		return i.binExpr(ctx, e)
	case *arrayExpr:
		out := make([]any, 0, len(e.items))
		for _, x := range e.items {
			v, err := i.eval(ctx, x)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *memberExpr:
		return i.member(ctx, e)
	case *callExpr:
		return i.call(ctx, e)
	case *indexExpr:
		return i.index(ctx, e)
	case *incExpr:
		return i.increment(ctx, e)
	case *compositeExpr:
		var b strings.Builder
		for _, part := range e.parts {
			v, err := i.eval(ctx, part)
			if err != nil {
				return nil, err
			}
			b.WriteString(toStr(v))
		}
		return b.String(), nil
	}
	return nil, nil
}

// expandString fills a "double-quoted" string.
func (i *interp) expandString(ctx context.Context, parts []strPart) (string, error) {
	var b strings.Builder
	for _, part := range parts {
		switch {
		case part.sub:
			var out []any
			if err := i.execList(ctx, part.stmts, func(v any) { out = append(out, v) }); err != nil {
				return "", err
			}
			b.WriteString(toStr(fromList(out)))
		case part.name != "":
			v, _ := i.getVar(part.name)
			b.WriteString(toStr(v))
		default:
			b.WriteString(part.text)
		}
	}
	return b.String(), nil
}

func (i *interp) unary(ctx context.Context, e *unaryExpr) (any, error) {
	v, err := i.eval(ctx, e.x)
	if err != nil {
		return nil, err
	}
	switch e.op {
	case "not":
		return !toBool(v), nil
	case "-":
		return i.binary("-", 0, v)
	case "+":
		return i.binary("+", 0, v)
	case "bnot":
		n, _ := toInt(v)
		return ^n, nil
	case "join":
		return joinValues(toList(v), ""), nil
	case "split":
		return splitString(toStr(v), `\s+`, true)
	}
	return nil, nil
}

func (i *interp) binExpr(ctx context.Context, e *binExpr) (any, error) {
	l, err := i.eval(ctx, e.l)
	if err != nil {
		return nil, err
	}
	switch e.op { // short-circuit
	case "and":
		if !toBool(l) {
			return false, nil
		}
	case "or":
		if toBool(l) {
			return true, nil
		}
	}
	r, err := i.eval(ctx, e.r)
	if err != nil {
		return nil, err
	}
	return i.binary(e.op, l, r)
}

func (i *interp) index(ctx context.Context, e *indexExpr) (any, error) {
	obj, err := i.eval(ctx, e.x)
	if err != nil {
		return nil, err
	}
	idx, err := i.eval(ctx, e.idx)
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
	case *hashtable:
		v, _ := o.get(toStr(idx))
		return v
	case []any:
		n, ok := toInt(idx)
		if n < 0 {
			n += len(o)
		}
		if ok && n >= 0 && n < len(o) {
			return o[n]
		}
	case string:
		r := []rune(o)
		n, ok := toInt(idx)
		if n < 0 {
			n += len(r)
		}
		if ok && n >= 0 && n < len(r) {
			return string(r[n])
		}
	case nil:
		return nil
	case indexer:
		return o.item(idx)
	default:
		if n, ok := toInt(idx); ok && (n == 0 || n == -1) {
			return obj
		}
	}
	return nil
}

func (i *interp) increment(ctx context.Context, e *incExpr) (any, error) {
	old, err := i.eval(ctx, e.x)
	if err != nil {
		return nil, err
	}
	op := e.op[:1]
	v, err := i.binary(op, old, 1)
	if err != nil {
		return nil, err
	}
	if ve, ok := e.x.(*varExpr); ok {
		if err := i.setVar(ve.name, v); err != nil {
			return nil, err
		}
	}
	if e.post {
		return old, nil
	}
	return v, nil
}
