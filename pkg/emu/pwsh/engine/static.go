package engine

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// CanonicalType is a type name without System. and in lower case.
func CanonicalType(name string) string {
	return strings.TrimPrefix(strings.ToLower(name), "system.")
}

// staticProps are the static properties of the types a family adds, by
// canonical type name and lower-case property name; ok false means no
// such property.
var staticProps = map[string]func(i *Interp, name string) (v any, ok bool){}

// RegisterStaticProperty makes [typ]::Name read f for typ (a canonical
// type name). Families call it from init.
func RegisterStaticProperty(typ string, f func(i *Interp, name string) (v any, ok bool)) {
	staticProps[typ] = f
}

func (i *Interp) staticProperty(typ, name string) (any, error) {
	t, n := CanonicalType(typ), strings.ToLower(name)
	if prop, ok := staticProps[t]; ok {
		if v, ok := prop(i, n); ok {
			return v, nil
		}
	}
	return nil, &values.NotEmulatedError{What: "[" + typ + "]::" + name}
}

// statics are the static methods of the types a cmdlet family adds, by
// canonical type name; ok false means no such method.
var statics = map[string]func(ctx context.Context, i *Interp, name string, args []any) (v any, ok bool, err error){}

// RegisterStatic makes [typ]::Name(args) call f for typ (a canonical
// type name: lower case, without System.). Families call it from init.
func RegisterStatic(typ string, f func(ctx context.Context, i *Interp, name string, args []any) (v any, ok bool, err error)) {
	statics[typ] = f
}

func (i *Interp) staticMethod(ctx context.Context, typ, name string, args []any) (any, error) {
	t := CanonicalType(typ)
	if name == "new" && Constructible[t] {
		return i.Construct(typ, args)
	}
	if static, ok := statics[t]; ok {
		if v, ok, err := static(ctx, i, name, args); ok {
			return v, err
		}
	}
	return nil, &values.NotEmulatedError{What: "[" + typ + "]::" + name + "()"}
}

func (i *Interp) ReadFile(path string) ([]byte, error) {
	f, err := i.Sys.FS.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func (i *Interp) WriteFile(path string, b []byte, appendTo bool) error {
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := i.Sys.FS.OpenFile(path, flag, 0o666)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(b)
	return err
}

// Lookup resolves a name through the pod's network.
func (i *Interp) Lookup(ctx context.Context, name string) ([]string, error) {
	if net.ParseIP(name) != nil {
		return []string{name}, nil
	}
	if i.Sys.Net == nil {
		return nil, errors.New("no network")
	}
	addrs, err := i.Sys.Net.LookupHost(ctx, name)
	if err == nil && len(addrs) == 0 {
		err = errors.New("no address")
	}
	return addrs, err
}
