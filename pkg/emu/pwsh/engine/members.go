package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// typeName is the short .NET type name of a value, lower-case.
func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int:
		return "int32"
	case float64:
		return "double"
	case []any:
		return "object[]"
	case *values.Hashtable:
		return "collections.hashtable"
	case time.Time:
		return "datetime"
	case *values.ScriptBlock:
		return "management.automation.scriptblock"
	case *values.ErrorRecord:
		return "management.automation.errorrecord"
	case *values.Object:
		return strings.ToLower(strings.TrimPrefix(x.TypeName, "System."))
	case values.NetObject:
		return strings.ToLower(strings.TrimPrefix(x.NetType(), "System."))
	}
	return "object"
}

// addMonths is DateTime.AddMonths: a day past the new month's end is
// its last day (1/31 plus a month is 2/29 in 2024), not an overflow.
func addMonths(t time.Time, n int) time.Time {
	first := time.Date(t.Year(), t.Month(), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location()).AddDate(0, n, 0)
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(t.Day(), last)-1)
}

// splitAny splits s at every character of seps, keeping empty fields.
func splitAny(s, seps string) []string {
	var out []string
	start := 0
	for k, r := range s {
		if strings.ContainsRune(seps, r) {
			out = append(out, s[start:k])
			start = k + len(string(r))
		}
	}
	return append(out, s[start:])
}

// ToCultureString is a value as .NET's ToString() gives it, with the
// culture (en-US): what Write-Host and String.Format print.
func ToCultureString(v any) string { return toString(v, nil) }

// toString is a value's .NET ToString(format): unlike PowerShell's
// [string], a DateTime's ToString() uses the culture (en-US) and a
// number's takes a format.
func toString(v any, args []any) string {
	format := ""
	if len(args) > 0 {
		format = values.ToStr(args[0])
	}
	switch x := v.(type) {
	case time.Time:
		if format == "" {
			return x.Format("1/2/2006 3:04:05 PM")
		}
		return DotnetTime(x, format)
	case int, float64:
		if format != "" {
			return formatSpec(x, format)
		}
	case []any:
		return "System.Object[]" // Object.ToString of an array
	}
	return values.ToStr(v)
}

// fullTypeName is the .NET type of a value as GetType().FullName gives
// it.
func fullTypeName(v any) string {
	switch x := v.(type) {
	case string:
		return "System.String"
	case bool:
		return "System.Boolean"
	case int:
		return "System.Int32"
	case float64:
		return "System.Double"
	case []any:
		return "System.Object[]"
	case *values.Hashtable:
		return "System.Collections.Hashtable"
	case time.Time:
		return "System.DateTime"
	case *values.ScriptBlock:
		return "System.Management.Automation.ScriptBlock"
	case *values.ErrorRecord:
		return "System.Management.Automation.ErrorRecord"
	case *values.Object:
		return x.TypeName
	}
	return "System.Object"
}

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
			if v := Property(item, name); v != nil {
				out = append(out, v)
			}
		}
		return values.FromList(out), nil
	}
	return Property(obj, name), nil
}

// Property is a property of one value ($null when it has none).
func Property(obj any, name string) any {
	lower := strings.ToLower(name)
	switch x := obj.(type) {
	case string:
		if lower == "length" {
			return len([]rune(x))
		}
	case *values.Object:
		v, _ := x.Get(name)
		return v
	case values.NetObject:
		v, _ := x.GetProp(lower)
		return v
	case *values.Hashtable:
		switch lower {
		case "count":
			return len(x.Keys)
		case "values":
			out := make([]any, len(x.Keys))
			for k, key := range x.Keys {
				out[k], _ = x.Get(key)
			}
			return out
		case "keys":
			out := make([]any, len(x.Keys))
			for k, key := range x.Keys {
				out[k] = key
			}
			return out
		}
		v, _ := x.Get(name)
		return v
	case time.Time:
		switch lower {
		case "year":
			return x.Year()
		case "month":
			return int(x.Month())
		case "day":
			return x.Day()
		case "hour":
			return x.Hour()
		case "minute":
			return x.Minute()
		case "second":
			return x.Second()
		case "dayofweek":
			return x.Weekday().String()
		case "ticks":
			// 100 ns intervals since 1/1/0001 of the wall-clock time (a
			// Duration cannot span the two thousand years).
			y, m, d := x.Date()
			h, mi, sec := x.Clock()
			wall := time.Date(y, m, d, h, mi, sec, x.Nanosecond(), time.UTC)
			return int((wall.Unix()+62135596800)*10000000 + int64(wall.Nanosecond()/100))
		}
	case *values.ErrorRecord:
		switch lower {
		case "exception":
			return values.NewObject(x.ExceptionType(), "Message", x.Msg)
		case "categoryinfo":
			return x.CategoryInfo()
		case "fullyqualifiederrorid":
			return x.Fqid
		}
	}
	if lower == "count" || lower == "length" {
		if obj == nil {
			return 0
		}
		return 1
	}
	return nil
}

func (i *Interp) call(ctx context.Context, e *lang.CallExpr) (any, error) {
	obj, err := i.eval(ctx, e.M.X)
	if err != nil {
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
				return nil, &values.NotEmulatedError{What: fmt.Sprintf("the method %s() of [%s]", values.ToStr(nv), typeName(item))}
			}
			out = append(out, v)
		}
		return values.FromList(out), nil
	}
	return nil, &values.NotEmulatedError{What: fmt.Sprintf("the method %s() of [%s]", values.ToStr(nv), typeName(obj))}
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
		return toString(obj, args), true, nil
	}
	if o, ok := obj.(values.NetObject); ok && name == "gettype" {
		full := o.NetType()
		return values.NewObject("System.RuntimeType", "Name", full[strings.LastIndex(full, ".")+1:], "FullName", full), true, nil
	}
	if name == "gettype" {
		full := fullTypeName(obj)
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
				parts = splitAny(x, sep)
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
			return DotnetTime(x, arg(0)), true, nil
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
			return addMonths(x, n), true, nil
		}
	}
	return nil, false, nil
}

// toDate is [datetime] of a value: a date, or text in the invariant
// culture's forms.
func toDate(v any) (time.Time, bool) {
	if t, ok := v.(time.Time); ok {
		return t, true
	}
	for _, layout := range []string{"01/02/2006 15:04:05", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02", "01/02/2006"} {
		if t, err := time.Parse(layout, values.ToStr(v)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// netTypes are the .NET names of the numeric types a cast names.
var netTypes = map[string]string{"int": "Int32", "int32": "Int32", "int64": "Int64", "long": "Int64", "byte": "Byte",
	"int16": "Int16", "uint32": "UInt32", "uint64": "UInt64", "double": "Double", "float": "Single", "single": "Single",
	"decimal": "Decimal", "byte[]": "Byte"}

// castError is a failed conversion as PowerShell reports it
// (PSInvalidCastException: category InvalidArgument); a string that is
// not a number names the parse failure and the numeric kind.
func castError(v any, lower string) error {
	if lower == "datetime" {
		return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: fmt.Sprintf(`Cannot convert value "%s" to type "System.DateTime". Error: "String was not recognized as a valid DateTime."`, values.ToStr(v)),
			Category: "InvalidArgument", Reason: "RuntimeException", Fqid: "InvalidCastParseTargetInvocation"}}
	}
	name := netTypes[lower]
	msg := fmt.Sprintf(`Cannot convert value "%s" to type "System.%s".`, values.ToStr(v), name)
	fqid := "InvalidCastFromStringToInteger"
	switch name {
	case "Double", "Single":
		fqid = "InvalidCastFromStringToDoubleOrSingle"
	case "Decimal":
		fqid = "InvalidCastFromStringToDecimal"
	}
	if _, ok := v.(string); ok {
		msg += ` Error: "Input string was not in a correct format."`
	} else {
		msg = fmt.Sprintf(`Cannot convert the "%s" value of type "%s" to type "System.%s".`, values.ToStr(v), fullTypeName(v), name)
		fqid = "ConvertToFinalInvalidCastException"
	}
	return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: msg, Category: "InvalidArgument", Reason: "RuntimeException", Fqid: fqid}}
}

// Cast converts a value to a type written [type].
func (i *Interp) Cast(typ string, v any) (any, error) {
	lower := strings.TrimPrefix(strings.ToLower(typ), "system.")
	bad := func() error { return castError(v, lower) }
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
					return nil, castError(e, "int")
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
		if t, ok := toDate(v); ok {
			return t, nil
		}
		return nil, bad()
	case "regex", "scriptblock":
		return v, nil
	}
	return nil, &values.NotEmulatedError{What: "the type [" + typ + "]"}
}

func parseIntArg(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
