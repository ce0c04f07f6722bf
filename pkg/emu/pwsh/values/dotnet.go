package values

import (
	"context"
	"fmt"
	"strings"
)

// NetObject is a .NET object whose members are Go code (an HttpListener,
// the requests it hands out, an Encoding), where object is only a bag of
// properties. Names reach it in lower case.
type NetObject interface {
	NetType() string // the full .NET type name
	GetProp(name string) (any, bool)
	SetProp(name string, v any) error
	// callMethod is ok false for a method the object does not have.
	CallMethod(ctx context.Context, name string, args []any) (v any, ok bool, err error)
	String() string // ToString()
}

// Dotnet is what every netObject embeds: a type name, no members.
type Dotnet struct{ Typ string }

func (d Dotnet) NetType() string                  { return d.Typ }
func (d Dotnet) GetProp(string) (any, bool)       { return nil, false }
func (d Dotnet) SetProp(name string, _ any) error { return NoSetter(name) }
func (d Dotnet) String() string                   { return d.Typ }
func (d Dotnet) CallMethod(context.Context, string, []any) (any, bool, error) {
	return nil, false, nil
}

// Record is a .NET object of fixed, read-only properties and a text of
// its own: a Uri is its address, an IPEndPoint "ip:port".
type Record struct {
	Dotnet
	props *Object
	text  string
}

// NewRecord is a read-only .NET object of type typ that prints as text.
func NewRecord(typ, text string, kv ...any) *Record {
	return &Record{Dotnet: Dotnet{typ}, props: NewObject(typ, kv...), text: text}
}

func (r *Record) GetProp(name string) (any, bool) { return r.props.Get(name) }

func (r *Record) SetProp(name string, _ any) error {
	if _, ok := r.props.Get(name); ok {
		return ReadOnly(name)
	}
	return NoSetter(name)
}

func (r *Record) String() string {
	if r.text == "" {
		return r.Typ
	}
	return r.text
}

// enumerable is a netObject PowerShell enumerates in a pipeline or
// foreach (a NameValueCollection gives its keys).
type enumerable interface{ Items() []any }

// Indexer is a netObject with an indexer: $headers['Host'].
type Indexer interface {
	Item(key any) any
	SetItem(key, v any) error
}

// DotnetException is an exception a .NET member throws; call and assign
// word it as PowerShell does ("Exception calling ...").
type DotnetException struct {
	Typ string // HttpListenerException, ArgumentException, ...
	Msg string
}

func (e *DotnetException) Error() string { return e.Msg }

// Exception is a .NET exception of type typ with a formatted message.
func Exception(typ, format string, a ...any) error {
	return &DotnetException{Typ: typ, Msg: fmt.Sprintf(format, a...)}
}

// MethodError is a .NET exception out of a method call.
func MethodError(method string, nargs int, e *DotnetException) error {
	return &RuntimeError{Rec: &ErrorRecord{
		Msg:      fmt.Sprintf("Exception calling \"%s\" with \"%d\" argument(s): \"%s\"", method, nargs, e.Msg),
		Category: "NotSpecified", Reason: "MethodInvocationException", Fqid: e.Typ}}
}

// SetterError is a .NET exception out of a property assignment.
func SetterError(prop string, e *DotnetException) error {
	return &RuntimeError{Rec: &ErrorRecord{
		Msg:      fmt.Sprintf("Exception setting \"%s\": \"%s\"", prop, e.Msg),
		Category: "NotSpecified", Reason: "SetValueInvocationException", Fqid: "ExceptionWhenSetting"}}
}

// NoSetter is the error of assigning a property the object lacks.
func NoSetter(name string) error {
	return &RuntimeError{Rec: &ErrorRecord{
		Msg:      "The property '" + name + "' cannot be found on this object. Verify that the property exists and can be set.",
		Category: "InvalidOperation", Reason: "RuntimeException", Fqid: "PropertyNotFound"}}
}

// ReadOnly is the error of assigning a read-only property.
func ReadOnly(name string) error {
	return &RuntimeError{Rec: &ErrorRecord{Msg: "'" + name + "' is a ReadOnly property.",
		Category: "InvalidOperation", Reason: "RuntimeException", Fqid: "PropertyAssignmentException"}}
}

// NameValues is a NameValueCollection (a request's Headers and
// QueryString) or, with web set, a WebHeaderCollection (a response's
// Headers): names matched without case, in the order first added.
type NameValues struct {
	Dotnet
	Names []string
	Vals  map[string][]string
	web   bool
}

// NewNameValues is an empty NameValueCollection; web makes it the
// WebHeaderCollection.
func NewNameValues(web bool) *NameValues {
	typ := "System.Collections.Specialized.NameValueCollection"
	if web {
		typ = "System.Net.WebHeaderCollection"
	}
	return &NameValues{Dotnet: Dotnet{typ}, Vals: map[string][]string{}, web: web}
}

func (c *NameValues) Add(name, v string) {
	k := strings.ToLower(name)
	if _, ok := c.Vals[k]; !ok {
		c.Names = append(c.Names, name)
	}
	c.Vals[k] = append(c.Vals[k], v)
}

func (c *NameValues) Set(name, v string) {
	c.Remove(name)
	c.Add(name, v)
}

func (c *NameValues) Remove(name string) {
	k := strings.ToLower(name)
	delete(c.Vals, k)
	for n, s := range c.Names {
		if strings.ToLower(s) == k {
			c.Names = append(c.Names[:n], c.Names[n+1:]...)
			break
		}
	}
}

// Get is the values of name joined by commas, as Get returns them.
func (c *NameValues) Get(name string) (string, bool) {
	v, ok := c.Vals[strings.ToLower(name)]
	return strings.Join(v, ","), ok
}

func (c *NameValues) keys() []any {
	out := make([]any, len(c.Names))
	for n, s := range c.Names {
		out[n] = s
	}
	return out
}

func (c *NameValues) Items() []any { return c.keys() }

func (c *NameValues) Item(key any) any {
	if n, ok := key.(int); ok {
		if n >= 0 && n < len(c.Names) {
			v, _ := c.Get(c.Names[n])
			return v
		}
		return nil
	}
	if v, ok := c.Get(ToStr(key)); ok {
		return v
	}
	return nil
}

func (c *NameValues) SetItem(key, v any) error {
	c.Set(ToStr(key), ToStr(v))
	return nil
}

func (c *NameValues) GetProp(name string) (any, bool) {
	switch name {
	case "count":
		return len(c.Names), true
	case "allkeys", "keys":
		return c.keys(), true
	}
	return nil, false
}

func (c *NameValues) CallMethod(_ context.Context, name string, args []any) (any, bool, error) {
	arg := func(k int) string {
		if k < len(args) {
			return ToStr(args[k])
		}
		return ""
	}
	switch name {
	case "add":
		if len(args) == 1 && c.web { // Add("Name: value")
			n, v, ok := strings.Cut(arg(0), ":")
			if !ok || strings.TrimSpace(n) == "" {
				return nil, true, Exception("ArgumentException", "Specified value does not have a ':' separator.%s", ParamName("header"))
			}
			c.Add(strings.TrimSpace(n), strings.TrimSpace(v))
			return nil, true, nil
		}
		c.Add(arg(0), arg(1))
		return nil, true, nil
	case "set":
		c.Set(arg(0), arg(1))
		return nil, true, nil
	case "remove":
		c.Remove(arg(0))
		return nil, true, nil
	case "get":
		return c.Item(args[0]), true, nil
	case "getvalues":
		v, ok := c.Vals[strings.ToLower(arg(0))]
		if !ok {
			return nil, true, nil
		}
		out := make([]any, len(v))
		for n, s := range v {
			out[n] = s
		}
		return out, true, nil
	case "getkey":
		n, _ := ToInt(args[0])
		if n >= 0 && n < len(c.Names) {
			return c.Names[n], true, nil
		}
		return nil, true, nil
	case "clear":
		c.Names, c.Vals = nil, map[string][]string{}
		return nil, true, nil
	case "allkeys":
		return c.keys(), true, nil
	}
	return nil, false, nil
}

// String is, for a WebHeaderCollection, the headers as sent.
func (c *NameValues) String() string {
	if !c.web {
		return c.Typ
	}
	var b strings.Builder
	for _, n := range c.Names {
		v, _ := c.Get(n)
		b.WriteString(n + ": " + v + "\r\n")
	}
	return b.String() + "\r\n"
}

// ParamName is the line .NET Framework adds to an ArgumentException.
func ParamName(name string) string { return "\r\nParameter name: " + name }
