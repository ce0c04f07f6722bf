// Package dotnet is how .NET shows and reads PowerShell values without
// a session: ToString and String.Format (the -f operator), DateTime
// formats, the text operators (-replace, -split, -join, wildcards),
// the properties of plain values and the wording of failed casts.
package dotnet

import (
	"fmt"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// typeName is the short .NET type name of a value, lower-case.
func TypeName(v any) string {
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
func AddMonths(t time.Time, n int) time.Time {
	first := time.Date(t.Year(), t.Month(), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location()).AddDate(0, n, 0)
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(t.Day(), last)-1)
}

// splitAny splits s at every character of seps, keeping empty fields.
func SplitAny(s, seps string) []string {
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
func ToCultureString(v any) string { return ToString(v, nil) }

// toString is a value's .NET ToString(format): unlike PowerShell's
// [string], a DateTime's ToString() uses the culture (en-US) and a
// number's takes a format.
func ToString(v any, args []any) string {
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
func FullTypeName(v any) string {
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

// toDate is [datetime] of a value: a date, or text in the invariant
// culture's forms.
func ToDate(v any) (time.Time, bool) {
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
func CastError(v any, lower string) error {
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
		msg = fmt.Sprintf(`Cannot convert the "%s" value of type "%s" to type "System.%s".`, values.ToStr(v), FullTypeName(v), name)
		fqid = "ConvertToFinalInvalidCastException"
	}
	return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: msg, Category: "InvalidArgument", Reason: "RuntimeException", Fqid: fqid}}
}
