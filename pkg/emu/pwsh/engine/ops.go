package engine

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func opError(msg, fqid string) error { return dotnet.OpError(msg, fqid) }

// widen is an integer result as PowerShell types it: Int32 operands
// whose result leaves Int32 give a Double ([int]::MaxValue + 1 is
// 2147483648, a Double).
func widen(a, b, r int) any {
	in32 := func(n int) bool { return n >= math.MinInt32 && n <= math.MaxInt32 }
	if in32(a) && in32(b) && !in32(r) {
		return float64(r)
	}
	return r
}

// Operator applies a binary operator written without its dash ("eq",
// "clike", "+"), as a script would: Where-Object's comparison
// parameters use it.
func (i *Interp) Operator(op string, l, r any) (any, error) { return i.binary(op, l, r) }

// Method calls a .NET method of a value by name (ForEach-Object
// -MemberName); ok is false when the value has none of that name.
func (i *Interp) Method(obj any, name string, args []any) (any, bool, error) {
	return i.method(obj, strings.ToLower(name), args)
}

// binary applies an operator; the left operand's type decides how the
// right one is converted, as in PowerShell.
func (i *Interp) binary(op string, l, r any) (any, error) {
	switch op {
	case "+", "-", "*", "/", "%":
		return Arith(op, l, r)
	case "..":
		a, ok1 := values.ToInt(l)
		b, ok2 := values.ToInt(r)
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
		return values.ToBool(l) && values.ToBool(r), nil
	case "or":
		return values.ToBool(l) || values.ToBool(r), nil
	case "xor":
		return values.ToBool(l) != values.ToBool(r), nil
	case "band", "bor", "bxor":
		a, _ := values.ToInt(l)
		b, _ := values.ToInt(r)
		return map[string]int{"band": a & b, "bor": a | b, "bxor": a ^ b}[op], nil
	case "f":
		return dotnet.FormatOp(values.ToStr(l), values.ToList(r)), nil
	case "join", "ijoin", "cjoin":
		return dotnet.JoinValues(values.ToList(l), values.ToStr(r)), nil
	case "is", "isnot":
		return isType(l, values.ToStr(r)) == (op == "is"), nil
	case "as":
		v, err := i.Cast(values.ToStr(r), l)
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

// Arith applies an arithmetic operator (+ - * / %) with PowerShell's
// conversions, the left operand deciding.
func Arith(op string, l, r any) (any, error) {
	switch x := l.(type) {
	case string:
		switch op {
		case "+":
			return x + values.ToStr(r), nil
		case "*":
			n, _ := values.ToInt(r)
			return strings.Repeat(x, max(n, 0)), nil
		}
		if _, ok := values.ToNumber(x); !ok {
			return nil, opError(fmt.Sprintf("Method invocation failed because [System.String] does not contain a method named 'op_%s'.", opName(op)), "MethodNotFound")
		}
	case []any:
		switch op {
		case "+":
			return append(append([]any{}, x...), values.ToList(r)...), nil
		case "*":
			n, _ := values.ToInt(r)
			var out []any
			for k := 0; k < n; k++ {
				out = append(out, x...)
			}
			return out, nil
		}
		return nil, opError(fmt.Sprintf("Method invocation failed because [System.Object[]] does not contain a method named 'op_%s'.", opName(op)), "MethodNotFound")
	case *values.Hashtable:
		if h, ok := r.(*values.Hashtable); ok && op == "+" {
			out := values.NewHashtable()
			for _, k := range append(append([]string{}, x.Keys...), h.Keys...) {
				v, ok := h.Get(k)
				if !ok {
					v, _ = x.Get(k)
				}
				out.Set(k, v)
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
	a, ok1 := values.ToNumber(l)
	b, ok2 := values.ToNumber(r)
	if !ok1 || !ok2 {
		bad := l
		if ok1 {
			bad = r
		}
		return nil, dotnet.CastError(bad, "int")
	}
	ai, aInt := a.(int)
	bi, bInt := b.(int)
	if aInt && bInt {
		switch op {
		case "+", "-", "*":
			return widen(ai, bi, map[string]int{"+": ai + bi, "-": ai - bi, "*": ai * bi}[op]), nil
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
	x, y := values.ToFloat(a), values.ToFloat(b)
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
		for _, e := range values.ToList(l) {
			if Equal(e, r, fold) {
				found = true
			}
		}
		return found == (op == "contains"), nil
	case "in", "notin":
		return i.compareOp(map[string]string{"in": "contains", "notin": "notcontains"}[op], fold, r, l)
	case "replace":
		return dotnet.Replace(l, r, fold)
	case "split":
		// -split pattern, max: at most max substrings (about_Split).
		pattern, limit := r, -1
		if list, ok := r.([]any); ok && len(list) == 2 {
			pattern = list[0]
			if n, ok := values.ToInt(list[1]); ok && n > 0 {
				limit = n
			}
		}
		return dotnet.Split(values.ToStr(l), values.ToStr(pattern), fold, limit)
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
		return Equal(l, r, fold), nil
	case "ne":
		return !Equal(l, r, fold), nil
	case "gt", "ge", "lt", "le":
		c := Compare(l, r, fold)
		return map[string]bool{"gt": c > 0, "ge": c >= 0, "lt": c < 0, "le": c <= 0}[op], nil
	case "like", "notlike":
		return dotnet.Wildcard(values.ToStr(r), values.ToStr(l), fold) == (op == "like"), nil
	case "match", "notmatch":
		re, err := dotnet.CompileRegex(values.ToStr(r), fold)
		if err != nil {
			return false, err
		}
		m := re.FindStringSubmatchIndex(values.ToStr(l))
		if m != nil {
			i.SetVar("Matches", matches(re, values.ToStr(l), m))
		}
		return (m != nil) == (op == "match"), nil
	}
	return false, opError("The operator -"+op+" is not supported.", "OperatorNotSupported")
}

// matches is $Matches: the groups that took part in the match, keyed
// as .NET numbers them (unnamed groups first, left to right) and named
// groups by their names.
func matches(re *regexp.Regexp, s string, m []int) *values.Hashtable {
	h := values.NewHashtable()
	names := re.SubexpNames()
	h.Set("0", s[m[0]:m[1]])
	n := 1
	for k := 1; k < len(names); k++ {
		if names[k] == "" {
			if m[2*k] >= 0 {
				h.Set(strconv.Itoa(n), s[m[2*k]:m[2*k+1]])
			}
			n++
		}
	}
	for k := 1; k < len(names); k++ {
		if names[k] != "" && m[2*k] >= 0 {
			h.Set(names[k], s[m[2*k]:m[2*k+1]])
		}
	}
	return h
}

// typeAliases are PowerShell's type accelerators for -is.
var typeAliases = map[string]string{"int": "int32", "long": "int64", "bool": "boolean", "hashtable": "collections.hashtable",
	"array": "object[]", "scriptblock": "management.automation.scriptblock",
	"pscustomobject": "management.automation.pscustomobject", "float": "single"}

// isType is -is: every value but $null is an [object] (and a
// [psobject]).
func isType(v any, typ string) bool {
	n := strings.TrimPrefix(strings.ToLower(strings.Trim(typ, "[]")), "system.")
	if strings.HasSuffix(strings.ToLower(typ), "[]") {
		n += "[]"
	}
	if a, ok := typeAliases[n]; ok {
		n = a
	}
	if n == "object" || n == "psobject" || n == "management.automation.psobject" {
		return v != nil
	}
	return dotnet.TypeName(v) == n
}

// Equal is -eq between two scalars; fold compares strings without case.
func Equal(l, r any, fold bool) bool {
	if l == nil || r == nil {
		return l == nil && r == nil
	}
	return Compare(l, r, fold) == 0
}

// Compare orders two values, converting the right to the left's type.
func Compare(l, r any, fold bool) int {
	switch l.(type) {
	case int, float64:
		if b, ok := values.ToNumber(r); ok {
			x, y := values.ToFloat(l), values.ToFloat(b)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	case bool:
		a, b := lang.Btoi(values.ToBool(l)), lang.Btoi(values.ToBool(r))
		return a - b
	case time.Time:
		// The right operand converts to the left's type: a date.
		if t, ok := dotnet.ToDate(r); ok {
			return l.(time.Time).Compare(t)
		}
	}
	a, b := values.ToStr(l), values.ToStr(r)
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 || fold {
		return c
	}
	// The culture's order (en-US), not the ordinal one: letters first
	// without case, then a lower-case letter before its upper case
	// ('a' -clt 'A' is True).
	for k, ra := range []rune(a) {
		rb := []rune(b)[k]
		if ra != rb {
			if unicode.IsLower(ra) {
				return -1
			}
			return 1
		}
	}
	return 0
}
