package engine

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
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
	switch t + "::" + n {
	case "environment::machinename":
		return strings.ToUpper(i.Sys.Hostname), nil
	case "environment::newline":
		return values.NL, nil
	case "environment::username":
		return i.Sys.User.Account, nil
	case "environment::currentdirectory":
		return i.Dir, nil
	case "environment::osversion":
		return i.osVersion(), nil
	case "int::maxvalue", "int32::maxvalue":
		return math.MaxInt32, nil
	case "int::minvalue", "int32::minvalue":
		return math.MinInt32, nil
	case "datetime::now":
		return i.Sys.Clock.Now().Local(), nil
	case "datetime::utcnow":
		return i.Sys.Clock.Now().UTC(), nil
	case "string::empty":
		return "", nil
	case "math::pi":
		return math.Pi, nil
	case "net.httplistener::issupported":
		return true, nil
	}
	if prop, ok := staticProps[t]; ok {
		if v, ok := prop(i, n); ok {
			return v, nil
		}
	}
	return nil, &values.NotEmulatedError{What: "[" + typ + "]::" + name}
}

// statics are the static methods of the types a cmdlet family adds, by
// canonical type name; ok false means no such method.
var statics = map[string]func(i *Interp, name string, args []any) (v any, ok bool, err error){}

// RegisterStatic makes [typ]::Name(args) call f for typ (a canonical
// type name: lower case, without System.). Families call it from init.
func RegisterStatic(typ string, f func(i *Interp, name string, args []any) (v any, ok bool, err error)) {
	statics[typ] = f
}

func (i *Interp) staticMethod(ctx context.Context, typ, name string, args []any) (any, error) {
	t := CanonicalType(typ)
	arg := func(k int) string {
		if k < len(args) {
			return values.ToStr(args[k])
		}
		return ""
	}
	num := func(k int) float64 {
		if k < len(args) {
			n, _ := values.ToNumber(args[k])
			return values.ToFloat(n)
		}
		return 0
	}
	if name == "new" && Constructible[t] {
		return i.construct(typ, args)
	}
	switch t + "::" + name {
	case "environment::getenvironmentvariable":
		if len(args) > 1 && !strings.EqualFold(arg(1), "Process") {
			return nil, &values.NotEmulatedError{What: "[Environment]::GetEnvironmentVariable with target " + arg(1)}
		}
		v, ok := i.getenv(arg(0))
		if !ok {
			return nil, nil
		}
		return v, nil
	case "environment::setenvironmentvariable":
		if len(args) > 2 && !strings.EqualFold(arg(2), "Process") {
			return nil, &values.NotEmulatedError{What: "[Environment]::SetEnvironmentVariable with target " + arg(2)}
		}
		i.Setenv(arg(0), arg(1))
		return nil, nil
	case "environment::exit":
		n, _ := values.ToInt(args[0])
		return nil, values.ExitFlow{Code: n}
	case "net.dns::gethostname":
		return i.Sys.Hostname, nil
	case "net.dns::gethostaddresses", "net.dns::resolve", "net.dns::gethostentry":
		addrs, err := i.Lookup(ctx, arg(0))
		if err != nil {
			return nil, values.Exception("SocketException", "No such host is known")
		}
		out := make([]any, len(addrs))
		for k, a := range addrs {
			out[k] = values.NewObject("System.Net.IPAddress", "IPAddressToString", a, "AddressFamily", "InterNetwork")
		}
		return values.FromList(out), nil
	case "math::round":
		// Round(x) and Round(x, digits): to even, as Math.Round does.
		scale := math.Pow(10, num(1))
		return math.RoundToEven(num(0)*scale) / scale, nil
	case "math::truncate":
		return math.Trunc(num(0)), nil
	case "math::floor":
		return math.Floor(num(0)), nil
	case "math::ceiling":
		return math.Ceil(num(0)), nil
	case "math::abs":
		return math.Abs(num(0)), nil
	case "math::max":
		return math.Max(num(0), num(1)), nil
	case "math::min":
		return math.Min(num(0), num(1)), nil
	case "math::pow":
		return math.Pow(num(0), num(1)), nil
	case "math::sqrt":
		return math.Sqrt(num(0)), nil
	case "string::isnullorempty":
		return arg(0) == "", nil
	case "string::isnullorwhitespace":
		return strings.TrimSpace(arg(0)) == "", nil
	case "string::join":
		if len(args) > 1 {
			return dotnet.JoinValues(flatten(args[1:]), arg(0)), nil
		}
		return "", nil
	case "io.file::exists", "io.directory::exists", "io.path::exists":
		fi, err := i.Sys.FS.Stat(i.Abs(arg(0)))
		return err == nil && (t == "io.file" && !fi.IsDir() || t == "io.directory" && fi.IsDir() || t == "io.path"), nil
	case "io.file::readalltext":
		b, err := i.ReadFile(i.Abs(arg(0)))
		if err != nil {
			return nil, values.MethodError("ReadAllText", len(args), values.Exception("FileNotFoundException", "Could not find file '%s'.", i.Abs(arg(0))).(*values.DotnetException))
		}
		return DecodeText(b), nil
	case "io.file::writealltext":
		return nil, i.WriteFile(i.Abs(arg(0)), []byte(arg(1)), false)
	case "io.directory::createdirectory":
		return nil, i.Sys.FS.MkdirAll(i.Abs(arg(0)), 0o777)
	case "io.path::combine":
		p := arg(0)
		for k := 1; k < len(args); k++ {
			p = strings.TrimRight(p, `\`) + `\` + strings.TrimLeft(arg(k), `\`)
		}
		return p, nil
	case "io.path::getfilename":
		s := arg(0)
		return s[strings.LastIndexAny(s, `\/`)+1:], nil
	case "io.path::gettemppath":
		return i.GetenvOr("TEMP", `C:\Windows\TEMP`) + `\`, nil
	case "convert::tobase64string":
		return base64.StdEncoding.EncodeToString(BytesOf(args)), nil
	case "convert::frombase64string":
		b, err := base64.StdEncoding.DecodeString(arg(0))
		if err != nil {
			return nil, opError(`Exception calling "FromBase64String" with "1" argument(s): "The input is not a valid Base-64 string."`, "FormatException")
		}
		out := make([]any, len(b))
		for k, c := range b {
			out[k] = int(c)
		}
		return out, nil
	}
	if static, ok := statics[t]; ok {
		if v, ok, err := static(i, name, args); ok {
			return v, err
		}
	}
	return nil, &values.NotEmulatedError{What: "[" + typ + "]::" + name + "()"}
}

func flatten(args []any) []any {
	var out []any
	for _, a := range args {
		out = append(out, values.ToList(a)...)
	}
	return out
}

// BytesOf is a byte array argument ([byte[]] or a list of numbers) as
// bytes.
func BytesOf(args []any) []byte {
	var b []byte
	for _, a := range flatten(args) {
		n, _ := values.ToInt(a)
		b = append(b, byte(n))
	}
	return b
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

// osVersion is [Environment]::OSVersion: .NET gives the version without
// the UBR.
func (i *Interp) osVersion() *values.Object {
	os := i.Sys.OS
	v := values.NewRecord("System.Version", os.NTVersion(), "Major", os.Major, "Minor", os.Minor, "Build", os.Build, "Revision", 0)
	return values.NewObject("System.OperatingSystem", "Platform", "Win32NT", "ServicePack", "", "Version", v,
		"VersionString", "Microsoft Windows NT "+os.NTVersion())
}
