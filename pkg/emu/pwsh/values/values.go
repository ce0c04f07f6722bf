// Package values is what PowerShell values are to the engine: objects,
// hashtables, script blocks, the conversions between them (ToStr, ToBool,
// ToInt, ...), the .NET objects' common shape (Dotnet, NetObject) and the
// errors and flow-of-control signals a script raises.
package values

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
)

// Values are Go values: nil ($null), bool, int, float64, string, []any
// (an array), *object (a .NET object: a file, a web response...),
// *hashtable, *scriptBlock, time.Time, *typeRef and *errorRecord.

// Object is a .NET object with named properties, in order.
type Object struct {
	TypeName string
	Names    []string
	Props    map[string]any // by lower-case name
}

// NewObject is an object of typeName with the properties kv (name,
// value, name, value, ...), in order.
func NewObject(typeName string, kv ...any) *Object {
	o := &Object{TypeName: typeName, Props: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *Object) Set(name string, v any) {
	k := strings.ToLower(name)
	if _, ok := o.Props[k]; !ok {
		o.Names = append(o.Names, name)
	}
	o.Props[k] = v
}

func (o *Object) Get(name string) (any, bool) {
	v, ok := o.Props[strings.ToLower(name)]
	return v, ok
}

// Hashtable is @{...}: keys matched without case, kept in order.
type Hashtable struct {
	Keys []string
	Vals map[string]any
}

// NewHashtable is an empty @{}.
func NewHashtable() *Hashtable { return &Hashtable{Vals: map[string]any{}} }

func (h *Hashtable) Set(k string, v any) {
	lk := strings.ToLower(k)
	if _, ok := h.Vals[lk]; !ok {
		h.Keys = append(h.Keys, k)
	}
	h.Vals[lk] = v
}

// Remove drops a key (matched without case) from the table and its order.
func (h *Hashtable) Remove(k string) {
	lk := strings.ToLower(k)
	if _, ok := h.Vals[lk]; !ok {
		return
	}
	delete(h.Vals, lk)
	for i, key := range h.Keys {
		if strings.ToLower(key) == lk {
			h.Keys = append(h.Keys[:i:i], h.Keys[i+1:]...)
			break
		}
	}
}

func (h *Hashtable) Get(k string) (any, bool) {
	v, ok := h.Vals[strings.ToLower(k)]
	return v, ok
}

// ScriptBlock is { ... }: its statements and source text.
type ScriptBlock struct {
	Stmts []lang.Stmt
	Src   string
}

// TypeRef is a type literal's value, [Name].
type TypeRef struct{ Name string }

// ToStr is a value as PowerShell turns it into a string.
func ToStr(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(x)
	case float64:
		return formatFloat(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = ToStr(e)
		}
		return strings.Join(parts, " ")
	case time.Time:
		return x.Format("01/02/2006 15:04:05")
	case *Object:
		if n, ok := x.Get("FullName"); ok {
			return ToStr(n)
		}
		if x.TypeName == "System.Management.Automation.PSCustomObject" {
			return "@{" + x.listText() + "}"
		}
		return x.TypeName
	case *Hashtable:
		return "System.Collections.Hashtable"
	case *ScriptBlock:
		return x.Src
	case *TypeRef:
		return x.Name
	case *ErrorRecord:
		return x.Msg
	case NetObject:
		return x.String()
	case rune:
		return string(x)
	}
	return ""
}

func (o *Object) listText() string {
	parts := make([]string, len(o.Names))
	for i, n := range o.Names {
		parts[i] = n + "=" + ToStr(o.Props[strings.ToLower(n)])
	}
	return strings.Join(parts, "; ")
}

// formatFloat prints a double as .NET does: up to 15 significant digits.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	s := strconv.FormatFloat(f, 'G', 15, 64)
	if strings.Contains(s, "E") {
		mant, exp, _ := strings.Cut(s, "E")
		sign := exp[:1]
		exp = strings.TrimLeft(exp[1:], "0")
		if len(exp) < 2 {
			exp = strings.Repeat("0", 2-len(exp)) + exp
		}
		return mant + "E" + sign + exp
	}
	return s
}

// ToBool is PowerShell's truth: empty strings, zero, $null and empty
// arrays are false.
func ToBool(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int:
		return x != 0
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		if len(x) == 1 {
			return ToBool(x[0])
		}
		return len(x) > 0
	}
	return true
}

// ToNumber converts for arithmetic; ok is false for text that is not a
// number.
func ToNumber(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return 0, true
	case int, float64:
		return x, true
	case bool:
		return lang.Btoi(x), true
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return 0, true
		}
		// .NET's number parsing takes a leading plus sign ([int]'+5').
		if rest, ok := strings.CutPrefix(s, "+"); ok && rest != "" && rest[0] != '-' && rest[0] != '+' {
			s = rest
		}
		if n, ok := lang.ParseNumber(s); ok {
			return n, true
		}
		return nil, false
	case rune:
		return int(x), true
	}
	return nil, false
}

// ToFloat is a number (int or float64) as a float64; 0 otherwise.
func ToFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// ToInt is v as an int, converted as PowerShell converts it.
func ToInt(v any) (int, bool) {
	n, ok := ToNumber(v)
	if !ok {
		return 0, false
	}
	if f, isF := n.(float64); isF {
		return int(math.RoundToEven(f)), true
	}
	return n.(int), true
}

// ToList is a value as a pipeline enumerates it.
func ToList(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	case enumerable:
		return x.Items()
	}
	return []any{v}
}

// FromList is a statement's output as a value: $null, one value, or an
// array.
func FromList(l []any) any {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	return l
}
