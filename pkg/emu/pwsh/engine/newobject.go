package engine

import (
	"context"

	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func init() {
	Register("New-Object", "", newObjectCmd, P("TypeName", 0), P("ArgumentList", 1, "Args"), N("Property"), N("ComObject", "Com"), Sw("Strict"))
}

// Constructible are the types New-Object and [Type]::new() build.
var Constructible = map[string]bool{
	"net.httplistener": true, "io.streamreader": true, "io.streamwriter": true,
	"text.utf8encoding": true, "text.asciiencoding": true, "text.unicodeencoding": true,
	"byte[]": true, "psobject": true, "pscustomobject": true, "management.automation.psobject": true,
}

func newObjectCmd(_ context.Context, c *Call) error {
	if c.Has("ComObject") {
		return &values.NotEmulatedError{What: "New-Object -ComObject " + c.Str("ComObject")}
	}
	v, err := c.I.construct(c.Str("TypeName"), values.ToList(c.Get("ArgumentList")))
	if err != nil {
		return err
	}
	if h, ok := c.Get("Property").(*values.Hashtable); ok {
		for _, k := range h.Keys {
			val, _ := h.Get(k)
			if err := setMember(v, k, val); err != nil {
				return err
			}
		}
	}
	c.Emit(v)
	return nil
}

// constructors build the .NET types a cmdlet family adds, by canonical
// type name.
var constructors = map[string]func(i *Interp, typ string, args []any) (any, error){}

// RegisterConstructor makes New-Object and [typ]::new build typ (a
// canonical type name: lower case, without System.) with f, which is
// given the type as the script spells it. Families call it from init.
func RegisterConstructor(typ string, f func(i *Interp, typ string, args []any) (any, error)) {
	constructors[typ] = f
}

// construct builds a .NET object from its constructor's arguments.
func (i *Interp) construct(typ string, args []any) (any, error) {
	t := CanonicalType(typ)
	if f, ok := constructors[t]; ok {
		return f(i, typ, args)
	}
	switch t {
	case "byte[]":
		n, ok := values.ToInt(FirstArg(args))
		if !ok || n < 0 {
			return nil, values.Exception("OverflowException", "Arithmetic operation resulted in an overflow.")
		}
		b := make([]any, n)
		for k := range b {
			b[k] = 0
		}
		return b, nil
	case "psobject", "pscustomobject", "management.automation.psobject":
		return values.NewObject("System.Management.Automation.PSCustomObject"), nil
	}
	return nil, &values.NotEmulatedError{What: "New-Object " + typ}
}

// FirstArg is args[0], or nil when there is none.
func FirstArg(args []any) any {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}

// setMember assigns a property of an object, a hashtable or a .NET
// object, as $x.Name = v does.
func setMember(obj any, name string, v any) error {
	switch o := obj.(type) {
	case *values.Hashtable:
		o.Set(name, v)
		return nil
	case *values.Object:
		o.Set(name, v)
		return nil
	case values.NetObject:
		err := o.SetProp(name, v)
		if e, ok := err.(*values.DotnetException); ok {
			return values.SetterError(name, e)
		}
		return err
	}
	return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: "The property '" + name + "' cannot be found on this object. Verify that the property exists and can be set.",
		Category: "InvalidOperation", Reason: "RuntimeException", Fqid: "PropertyNotFound"}}
}
