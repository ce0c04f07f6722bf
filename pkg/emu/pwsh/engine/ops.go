package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
)

func opError(msg, fqid string) error {
	return &runtimeError{rec: &errorRecord{msg: msg, category: "InvalidOperation", reason: "RuntimeException", fqid: fqid}}
}

// binary applies an operator; the left operand's type decides how the
// right one is converted, as in PowerShell.
func (i *Interp) binary(op string, l, r any) (any, error) {
	switch op {
	case "+", "-", "*", "/", "%":
		return arith(op, l, r)
	case "..":
		a, ok1 := toInt(l)
		b, ok2 := toInt(r)
		if !ok1 || !ok2 {
			return nil, opError("Cannot convert value to type System.Int32.", "InvalidCastFromStringToInteger")
		}
		var out []any
		for step := sign(b - a); ; a += step {
			out = append(out, a)
			if a == b || len(out) > 1e7 {
				return out, nil
			}
		}
	case "and":
		return toBool(l) && toBool(r), nil
	case "or":
		return toBool(l) || toBool(r), nil
	case "xor":
		return toBool(l) != toBool(r), nil
	case "band", "bor", "bxor":
		a, _ := toInt(l)
		b, _ := toInt(r)
		return map[string]int{"band": a & b, "bor": a | b, "bxor": a ^ b}[op], nil
	case "f":
		return formatOp(toStr(l), toList(r)), nil
	case "join", "ijoin", "cjoin":
		return joinValues(toList(l), toStr(r)), nil
	case "is", "isnot":
		return (typeName(l) == strings.TrimPrefix(strings.ToLower(toStr(r)), "system.")) == (op == "is"), nil
	case "as":
		v, err := i.cast(toStr(r), l)
		if err != nil {
			return nil, nil
		}
		return v, nil
	}
	base, fold := op, true
	if len(op) > 2 && (op[0] == 'i' || op[0] == 'c') && lang.DashOps[op[1:]] && lang.DashOps["i"+op[1:]] {
		base, fold = op[1:], op[0] == 'i'
	}
	return i.compareOp(base, fold, l, r)
}

func sign(n int) int {
	if n < 0 {
		return -1
	}
	return 1
}

func arith(op string, l, r any) (any, error) {
	switch x := l.(type) {
	case string:
		switch op {
		case "+":
			return x + toStr(r), nil
		case "*":
			n, _ := toInt(r)
			return strings.Repeat(x, max(n, 0)), nil
		}
		if _, ok := toNumber(x); !ok {
			return nil, opError(fmt.Sprintf("Method invocation failed because [System.String] does not contain a method named 'op_%s'.", opName(op)), "MethodNotFound")
		}
	case []any:
		switch op {
		case "+":
			return append(append([]any{}, x...), toList(r)...), nil
		case "*":
			n, _ := toInt(r)
			var out []any
			for k := 0; k < n; k++ {
				out = append(out, x...)
			}
			return out, nil
		}
		return nil, opError(fmt.Sprintf("Method invocation failed because [System.Object[]] does not contain a method named 'op_%s'.", opName(op)), "MethodNotFound")
	case *hashtable:
		if h, ok := r.(*hashtable); ok && op == "+" {
			out := newHashtable()
			for _, k := range append(append([]string{}, x.keys...), h.keys...) {
				v, ok := h.get(k)
				if !ok {
					v, _ = x.get(k)
				}
				out.set(k, v)
			}
			return out, nil
		}
	case time.Time:
		return nil, opError("Date arithmetic is not supported here.", "MethodNotFound")
	case nil:
		if op == "+" {
			if _, ok := r.(string); ok {
				return r, nil
			}
			if list, ok := r.([]any); ok {
				return append([]any{}, list...), nil
			}
		}
	}
	a, ok1 := toNumber(l)
	b, ok2 := toNumber(r)
	if !ok1 || !ok2 {
		bad := l
		if ok1 {
			bad = r
		}
		return nil, opError(fmt.Sprintf(`Cannot convert value "%s" to type "System.Int32". Error: "Input string was not in a correct format."`, toStr(bad)), "InvalidCastFromStringToInteger")
	}
	ai, aInt := a.(int)
	bi, bInt := b.(int)
	if aInt && bInt {
		switch op {
		case "+":
			return ai + bi, nil
		case "-":
			return ai - bi, nil
		case "*":
			return ai * bi, nil
		case "%":
			if bi == 0 {
				return nil, opError("Attempted to divide by zero.", "RuntimeException")
			}
			return ai % bi, nil
		case "/":
			if bi == 0 {
				return nil, opError("Attempted to divide by zero.", "RuntimeException")
			}
			if ai%bi == 0 {
				return ai / bi, nil
			}
		}
	}
	x, y := toFloat(a), toFloat(b)
	switch op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "%":
		return math.Mod(x, y), nil
	}
	if y == 0 {
		return nil, opError("Attempted to divide by zero.", "RuntimeException")
	}
	return x / y, nil
}

func opName(op string) string {
	return map[string]string{"+": "Addition", "-": "Subtraction", "*": "Multiply", "/": "Division", "%": "Modulus"}[op]
}

// compareOp is -eq, -like, -match, -contains, -replace, -split... With
// an array on the left, the comparison filters it.
func (i *Interp) compareOp(op string, fold bool, l, r any) (any, error) {
	switch op {
	case "contains", "notcontains":
		found := false
		for _, e := range toList(l) {
			if equal(e, r, fold) {
				found = true
			}
		}
		return found == (op == "contains"), nil
	case "in", "notin":
		return i.compareOp(map[string]string{"in": "contains", "notin": "notcontains"}[op], fold, r, l)
	case "replace":
		return replaceOp(l, r, fold)
	case "split":
		return splitString(toStr(l), toStr(r), fold)
	}
	if list, ok := l.([]any); ok {
		out := []any{}
		for _, e := range list {
			m, err := i.compareOne(op, fold, e, r)
			if err != nil {
				return nil, err
			}
			if m {
				out = append(out, e)
			}
		}
		return out, nil
	}
	return i.compareOne(op, fold, l, r)
}

func (i *Interp) compareOne(op string, fold bool, l, r any) (bool, error) {
	switch op {
	case "eq":
		return equal(l, r, fold), nil
	case "ne":
		return !equal(l, r, fold), nil
	case "gt", "ge", "lt", "le":
		c := compare(l, r, fold)
		return map[string]bool{"gt": c > 0, "ge": c >= 0, "lt": c < 0, "le": c <= 0}[op], nil
	case "like", "notlike":
		return wildcard(toStr(r), toStr(l), fold) == (op == "like"), nil
	case "match", "notmatch":
		re, err := compileRegex(toStr(r), fold)
		if err != nil {
			return false, err
		}
		m := re.FindStringSubmatch(toStr(l))
		if m != nil {
			h := newHashtable()
			for k, s := range m {
				h.set(strconv.Itoa(k), s)
			}
			i.setVar("Matches", h)
		}
		return (m != nil) == (op == "match"), nil
	}
	return false, opError("The operator -"+op+" is not supported.", "OperatorNotSupported")
}

func equal(l, r any, fold bool) bool {
	if l == nil || r == nil {
		return l == nil && r == nil
	}
	return compare(l, r, fold) == 0
}

// compare orders two values, converting the right to the left's type.
func compare(l, r any, fold bool) int {
	switch l.(type) {
	case int, float64:
		if b, ok := toNumber(r); ok {
			x, y := toFloat(l), toFloat(b)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	case bool:
		a, b := lang.Btoi(toBool(l)), lang.Btoi(toBool(r))
		return a - b
	case time.Time:
		if t, ok := r.(time.Time); ok {
			return l.(time.Time).Compare(t)
		}
	}
	a, b := toStr(l), toStr(r)
	if fold {
		a, b = strings.ToLower(a), strings.ToLower(b)
	}
	return strings.Compare(a, b)
}
