package engine

import (
	"context"
	"fmt"
	"strings"
)

// netObject is a .NET object whose members are Go code (an HttpListener,
// the requests it hands out, an Encoding), where object is only a bag of
// properties. Names reach it in lower case.
type netObject interface {
	netType() string // the full .NET type name
	getProp(name string) (any, bool)
	setProp(name string, v any) error
	// callMethod is ok false for a method the object does not have.
	callMethod(ctx context.Context, name string, args []any) (v any, ok bool, err error)
	String() string // ToString()
}

// dotnet is what every netObject embeds: a type name, no members.
type dotnet struct{ typ string }

func (d dotnet) netType() string                  { return d.typ }
func (d dotnet) getProp(string) (any, bool)       { return nil, false }
func (d dotnet) setProp(name string, _ any) error { return noSetter(name) }
func (d dotnet) String() string                   { return d.typ }
func (d dotnet) callMethod(context.Context, string, []any) (any, bool, error) {
	return nil, false, nil
}

// record is a .NET object of fixed, read-only properties and a text of
// its own: a Uri is its address, an IPEndPoint "ip:port".
type record struct {
	dotnet
	props *object
	text  string
}

func newRecord(typ, text string, kv ...any) *record {
	return &record{dotnet: dotnet{typ}, props: newObject(typ, kv...), text: text}
}

func (r *record) getProp(name string) (any, bool) { return r.props.get(name) }

func (r *record) setProp(name string, _ any) error {
	if _, ok := r.props.get(name); ok {
		return readOnly(name)
	}
	return noSetter(name)
}

func (r *record) String() string {
	if r.text == "" {
		return r.typ
	}
	return r.text
}

// enumerable is a netObject PowerShell enumerates in a pipeline or
// foreach (a NameValueCollection gives its keys).
type enumerable interface{ items() []any }

// indexer is a netObject with an indexer: $headers['Host'].
type indexer interface {
	item(key any) any
	setItem(key, v any) error
}

// dotnetException is an exception a .NET member throws; call and assign
// word it as PowerShell does ("Exception calling ...").
type dotnetException struct {
	typ string // HttpListenerException, ArgumentException, ...
	msg string
}

func (e *dotnetException) Error() string { return e.msg }

func exception(typ, format string, a ...any) error {
	return &dotnetException{typ: typ, msg: fmt.Sprintf(format, a...)}
}

// methodError is a .NET exception out of a method call.
func methodError(method string, nargs int, e *dotnetException) error {
	return &runtimeError{rec: &errorRecord{
		msg:      fmt.Sprintf("Exception calling \"%s\" with \"%d\" argument(s): \"%s\"", method, nargs, e.msg),
		category: "NotSpecified", reason: "MethodInvocationException", fqid: e.typ}}
}

// setterError is a .NET exception out of a property assignment.
func setterError(prop string, e *dotnetException) error {
	return &runtimeError{rec: &errorRecord{
		msg:      fmt.Sprintf("Exception setting \"%s\": \"%s\"", prop, e.msg),
		category: "NotSpecified", reason: "SetValueInvocationException", fqid: "ExceptionWhenSetting"}}
}

func noSetter(name string) error {
	return &runtimeError{rec: &errorRecord{
		msg:      "The property '" + name + "' cannot be found on this object. Verify that the property exists and can be set.",
		category: "InvalidOperation", reason: "RuntimeException", fqid: "PropertyNotFound"}}
}

func readOnly(name string) error {
	return &runtimeError{rec: &errorRecord{msg: "'" + name + "' is a ReadOnly property.",
		category: "InvalidOperation", reason: "RuntimeException", fqid: "PropertyAssignmentException"}}
}

// nameValues is a NameValueCollection (a request's Headers and
// QueryString) or, with web set, a WebHeaderCollection (a response's
// Headers): names matched without case, in the order first added.
type nameValues struct {
	dotnet
	names []string
	vals  map[string][]string
	web   bool
}

func newNameValues(web bool) *nameValues {
	typ := "System.Collections.Specialized.NameValueCollection"
	if web {
		typ = "System.Net.WebHeaderCollection"
	}
	return &nameValues{dotnet: dotnet{typ}, vals: map[string][]string{}, web: web}
}

func (c *nameValues) add(name, v string) {
	k := strings.ToLower(name)
	if _, ok := c.vals[k]; !ok {
		c.names = append(c.names, name)
	}
	c.vals[k] = append(c.vals[k], v)
}

func (c *nameValues) set(name, v string) {
	c.remove(name)
	c.add(name, v)
}

func (c *nameValues) remove(name string) {
	k := strings.ToLower(name)
	delete(c.vals, k)
	for n, s := range c.names {
		if strings.ToLower(s) == k {
			c.names = append(c.names[:n], c.names[n+1:]...)
			break
		}
	}
}

// get is the values of name joined by commas, as Get returns them.
func (c *nameValues) get(name string) (string, bool) {
	v, ok := c.vals[strings.ToLower(name)]
	return strings.Join(v, ","), ok
}

func (c *nameValues) keys() []any {
	out := make([]any, len(c.names))
	for n, s := range c.names {
		out[n] = s
	}
	return out
}

func (c *nameValues) items() []any { return c.keys() }

func (c *nameValues) item(key any) any {
	if n, ok := key.(int); ok {
		if n >= 0 && n < len(c.names) {
			v, _ := c.get(c.names[n])
			return v
		}
		return nil
	}
	if v, ok := c.get(toStr(key)); ok {
		return v
	}
	return nil
}

func (c *nameValues) setItem(key, v any) error {
	c.set(toStr(key), toStr(v))
	return nil
}

func (c *nameValues) getProp(name string) (any, bool) {
	switch name {
	case "count":
		return len(c.names), true
	case "allkeys", "keys":
		return c.keys(), true
	}
	return nil, false
}

func (c *nameValues) callMethod(_ context.Context, name string, args []any) (any, bool, error) {
	arg := func(k int) string {
		if k < len(args) {
			return toStr(args[k])
		}
		return ""
	}
	switch name {
	case "add":
		if len(args) == 1 && c.web { // Add("Name: value")
			n, v, ok := strings.Cut(arg(0), ":")
			if !ok || strings.TrimSpace(n) == "" {
				return nil, true, exception("ArgumentException", "Specified value does not have a ':' separator.%s", paramName("header"))
			}
			c.add(strings.TrimSpace(n), strings.TrimSpace(v))
			return nil, true, nil
		}
		c.add(arg(0), arg(1))
		return nil, true, nil
	case "set":
		c.set(arg(0), arg(1))
		return nil, true, nil
	case "remove":
		c.remove(arg(0))
		return nil, true, nil
	case "get":
		return c.item(args[0]), true, nil
	case "getvalues":
		v, ok := c.vals[strings.ToLower(arg(0))]
		if !ok {
			return nil, true, nil
		}
		out := make([]any, len(v))
		for n, s := range v {
			out[n] = s
		}
		return out, true, nil
	case "getkey":
		n, _ := toInt(args[0])
		if n >= 0 && n < len(c.names) {
			return c.names[n], true, nil
		}
		return nil, true, nil
	case "clear":
		c.names, c.vals = nil, map[string][]string{}
		return nil, true, nil
	case "allkeys":
		return c.keys(), true, nil
	}
	return nil, false, nil
}

// String is, for a WebHeaderCollection, the headers as sent.
func (c *nameValues) String() string {
	if !c.web {
		return c.typ
	}
	var b strings.Builder
	for _, n := range c.names {
		v, _ := c.get(n)
		b.WriteString(n + ": " + v + "\r\n")
	}
	return b.String() + "\r\n"
}

// paramName is the line .NET Framework adds to an ArgumentException.
func paramName(name string) string { return "\r\nParameter name: " + name }
