package engine

import (
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// Constructible are the types New-Object and [Type]::new() build.
var Constructible = map[string]bool{
	"net.httplistener": true, "io.streamreader": true, "io.streamwriter": true,
	"text.utf8encoding": true, "text.asciiencoding": true, "text.unicodeencoding": true,
	"byte[]": true, "psobject": true, "pscustomobject": true, "management.automation.psobject": true,
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

// Construct builds a .NET object from its constructor's arguments, as
// New-Object and [Type]::new do.
func (i *Interp) Construct(typ string, args []any) (any, error) {
	if f, ok := constructors[CanonicalType(typ)]; ok {
		return f(i, typ, args)
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

// SetMember assigns a property of an object, a hashtable or a .NET
// object, as $x.Name = v does.
func SetMember(obj any, name string, v any) error {
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
