package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func (i *Interp) member(ctx context.Context, e *lang.MemberExpr) (any, error) {
	obj, err := i.eval(ctx, e.X)
	if err != nil {
		return nil, err
	}
	nv, err := i.eval(ctx, e.Name)
	if err != nil {
		return nil, err
	}
	name := values.ToStr(nv)
	if t, ok := obj.(*values.TypeRef); ok && e.Static {
		return i.staticProperty(t.Name, name)
	}
	if list, ok := obj.([]any); ok {
		switch strings.ToLower(name) {
		case "length", "count":
			return len(list), nil
		}
		var out []any // member enumeration
		for _, item := range list {
			if v := dotnet.Property(item, name); v != nil {
				out = append(out, v)
			}
		}
		return values.FromList(out), nil
	}
	return dotnet.Property(obj, name), nil
}

func (i *Interp) call(ctx context.Context, e *lang.CallExpr) (any, error) {
	obj, err := i.eval(ctx, e.M.X)
	if err != nil || obj == nil && e.M.NullCond {
		return nil, err
	}
	nv, err := i.eval(ctx, e.M.Name)
	if err != nil {
		return nil, err
	}
	args := make([]any, len(e.Args))
	for k, a := range e.Args {
		if args[k], err = i.eval(ctx, a); err != nil {
			return nil, err
		}
	}
	name := strings.ToLower(values.ToStr(nv))
	if t, ok := obj.(*values.TypeRef); ok && e.M.Static {
		v, err := i.staticMethod(ctx, t.Name, name, args)
		if e, ok := err.(*values.DotnetException); ok {
			return nil, values.MethodError(values.ToStr(nv), len(args), e)
		}
		return v, err
	}
	if v, ok, err := i.method(obj, name, args); ok || err != nil {
		return v, err
	}
	if o, ok := obj.(values.NetObject); ok {
		v, ok, err := o.CallMethod(ctx, name, args)
		if e, isEx := err.(*values.DotnetException); isEx {
			return nil, values.MethodError(values.ToStr(nv), len(args), e)
		}
		if ok || err != nil {
			return v, err
		}
	}
	if obj == nil {
		return nil, opError("You cannot call a method on a null-valued expression.", "InvokeMethodOnNull")
	}
	// Member enumeration (about_Member-Access_Enumeration): a method
	// the array lacks is called on each of its items.
	if list, ok := obj.([]any); ok && len(list) > 0 {
		var out []any
		for _, item := range list {
			v, ok, err := i.method(item, name, args)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, &values.NotEmulatedError{What: fmt.Sprintf("the method %s() of [%s]", values.ToStr(nv), dotnet.TypeName(item))}
			}
			out = append(out, v)
		}
		return values.FromList(out), nil
	}
	return nil, &values.NotEmulatedError{What: fmt.Sprintf("the method %s() of [%s]", values.ToStr(nv), dotnet.TypeName(obj))}
}

// method calls one of the common instance methods.
func (i *Interp) method(obj any, name string, args []any) (any, bool, error) {
	arg := func(k int) string {
		if k < len(args) {
			return values.ToStr(args[k])
		}
		return ""
	}
	if name == "tostring" {
		return dotnet.ToString(obj, args), true, nil
	}
	if o, ok := obj.(values.NetObject); ok && name == "gettype" {
		full := o.NetType()
		return values.NewObject("System.RuntimeType", "Name", full[strings.LastIndex(full, ".")+1:], "FullName", full), true, nil
	}
	if name == "gettype" {
		full := dotnet.FullTypeName(obj)
		return values.NewObject("System.RuntimeType", "Name", full[strings.LastIndex(full, ".")+1:], "FullName", full), true, nil
	}
	switch x := obj.(type) {
	case string:
		switch name {
		case "trim":
			if len(args) > 0 {
				return strings.Trim(x, arg(0)), true, nil
			}
			return strings.TrimSpace(x), true, nil
		case "trimstart":
			if len(args) > 0 {
				return strings.TrimLeft(x, arg(0)), true, nil
			}
			return strings.TrimLeft(x, " \t\r\n"), true, nil
		case "padleft", "padright":
			// PadLeft(totalWidth[, paddingChar]): a space by default.
			w, _ := values.ToInt(args[0])
			pad := " "
			if len(args) > 1 && arg(1) != "" {
				pad = string([]rune(arg(1))[:1])
			}
			n := max(0, w-len([]rune(x)))
			if name == "padleft" {
				return strings.Repeat(pad, n) + x, true, nil
			}
			return x + strings.Repeat(pad, n), true, nil
		case "trimend":
			if len(args) > 0 {
				return strings.TrimRight(x, arg(0)), true, nil
			}
			return strings.TrimRight(x, " \t\r\n"), true, nil
		case "toupper", "toupperinvariant":
			return strings.ToUpper(x), true, nil
		case "tolower", "tolowerinvariant":
			return strings.ToLower(x), true, nil
		case "contains":
			return strings.Contains(x, arg(0)), true, nil
		case "startswith":
			return strings.HasPrefix(x, arg(0)), true, nil
		case "endswith":
			return strings.HasSuffix(x, arg(0)), true, nil
		case "indexof":
			return strings.Index(x, arg(0)), true, nil
		case "replace":
			return strings.ReplaceAll(x, arg(0), arg(1)), true, nil
		case "split":
			// .NET keeps empty fields. PowerShell 7 (.NET Core) has
			// Split(string), which splits on the whole separator;
			// 5.1 converts it to char[], any of whose characters splits.
			var parts []string
			switch {
			case i.Pwsh7 && len(args) > 0:
				parts = strings.Split(x, arg(0))
			default:
				sep := arg(0)
				if len(args) == 0 {
					sep = " \t\r\n"
				}
				parts = dotnet.SplitAny(x, sep)
			}
			out := make([]any, len(parts))
			for k, p := range parts {
				out[k] = p
			}
			return out, true, nil
		case "substring":
			r := []rune(x)
			a, _ := values.ToInt(args[0])
			b := len(r) - a
			if len(args) > 1 {
				b, _ = values.ToInt(args[1])
			}
			switch {
			case a < 0 || a > len(r):
				return nil, true, values.MethodError("Substring", len(args), values.Exception("ArgumentOutOfRangeException",
					"startIndex cannot be larger than length of string.%s", values.ParamName("startIndex")).(*values.DotnetException))
			case a+b > len(r) || b < 0:
				return nil, true, values.MethodError("Substring", len(args), values.Exception("ArgumentOutOfRangeException",
					"Index and length must refer to a location within the string.%s", values.ParamName("length")).(*values.DotnetException))
			}
			return string(r[a : a+b]), true, nil
		}
	case []any:
		if name == "contains" && len(args) == 1 {
			for _, e := range x {
				if Equal(e, args[0], false) {
					return true, true, nil
				}
			}
			return false, true, nil
		}
	case *values.Hashtable:
		switch name {
		case "containskey":
			_, ok := x.Get(arg(0))
			return ok, true, nil
		case "get_item", "item":
			// The indexer's accessor methods: $h.Get_Item(k), $h.Item(k).
			v, _ := x.Get(arg(0))
			return v, true, nil
		case "set_item":
			x.Set(arg(0), args[1])
			return nil, true, nil
		case "add":
			if _, dup := x.Get(arg(0)); dup {
				return nil, true, values.MethodError("Add", len(args), values.Exception("ArgumentException",
					"Item has already been added. Key in dictionary: '%s'  Key being added: '%s'", arg(0), arg(0)).(*values.DotnetException))
			}
			x.Set(arg(0), args[1])
			return nil, true, nil
		case "getenumerator":
			// DictionaryEntry objects: Key and Value (Name is Key's
			// alias), as a pipeline sees them.
			out := make([]any, len(x.Keys))
			for k, key := range x.Keys {
				v, _ := x.Get(key)
				out[k] = values.NewObject("System.Collections.DictionaryEntry", "Name", key, "Key", key, "Value", v)
			}
			return out, true, nil
		case "remove":
			x.Remove(arg(0))
			return nil, true, nil
		case "clear":
			x.Keys, x.Vals = nil, map[string]any{}
			return nil, true, nil
		}
	case time.Time:
		switch name {
		case "tostring":
			return dotnet.DotnetTime(x, arg(0)), true, nil
		case "adddays":
			n, _ := values.ToNumber(args[0])
			return x.Add(time.Duration(values.ToFloat(n) * 24 * float64(time.Hour))), true, nil
		case "addseconds", "addminutes", "addhours", "addmilliseconds":
			n, _ := values.ToNumber(FirstArg(args))
			unit := map[string]time.Duration{"addseconds": time.Second, "addminutes": time.Minute, "addhours": time.Hour, "addmilliseconds": time.Millisecond}[name]
			return x.Add(time.Duration(values.ToFloat(n) * float64(unit))), true, nil
		case "addmonths", "addyears":
			n, _ := values.ToInt(FirstArg(args))
			if name == "addyears" {
				n *= 12
			}
			return dotnet.AddMonths(x, n), true, nil
		}
	}
	return nil, false, nil
}

// Cast converts a value to a type written [type].
func (i *Interp) Cast(typ string, v any) (any, error) {
	lower := strings.TrimPrefix(strings.ToLower(typ), "system.")
	bad := func() error { return dotnet.CastError(v, lower) }
	if o, ok := v.(values.NetObject); ok && CanonicalType(o.NetType()) == lower {
		return v, nil
	}
	switch lower {
	case "int", "int32", "int64", "long", "byte", "int16", "uint32", "uint64":
		n, ok := values.ToInt(v)
		if !ok {
			return nil, bad()
		}
		return n, nil
	case "double", "float", "single", "decimal":
		n, ok := values.ToNumber(v)
		if !ok {
			return nil, bad()
		}
		return values.ToFloat(n), nil
	case "string":
		return values.ToStr(v), nil
	case "bool", "boolean", "switch":
		return values.ToBool(v), nil
	case "array", "object[]", "string[]", "int[]", "byte[]":
		list := append([]any{}, values.ToList(v)...)
		for k, e := range list {
			switch lower {
			case "string[]":
				list[k] = values.ToStr(e)
			case "byte[]":
				n, ok := values.ToInt(e)
				if !ok || n < 0 || n > 255 {
					return nil, bad()
				}
				list[k] = n
			case "int[]":
				n, ok := values.ToInt(e)
				if !ok {
					return nil, dotnet.CastError(e, "int")
				}
				list[k] = n
			}
		}
		return list, nil
	case "void":
		return nil, nil
	case "object", "psobject":
		return v, nil
	case "hashtable", "ordered":
		if _, ok := v.(*values.Hashtable); ok {
			return v, nil
		}
		return nil, bad()
	case "pscustomobject":
		if h, ok := v.(*values.Hashtable); ok {
			o := values.NewObject("System.Management.Automation.PSCustomObject")
			for _, k := range h.Keys {
				val, _ := h.Get(k)
				o.Set(k, val)
			}
			return o, nil
		}
		return v, nil
	case "char":
		if s, ok := v.(string); ok && len([]rune(s)) == 1 {
			return s, nil
		}
		n, ok := values.ToInt(v)
		if !ok {
			return nil, bad()
		}
		return string(rune(n)), nil
	case "datetime":
		if t, ok := dotnet.ToDate(v); ok {
			return t, nil
		}
		return nil, bad()
	case "regex", "scriptblock":
		return v, nil
	}
	return nil, &values.NotEmulatedError{What: "the type [" + typ + "]"}
}
