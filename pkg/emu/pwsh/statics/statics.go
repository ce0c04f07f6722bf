// Package statics holds the static members of the .NET System types that
// scripts reach for most ([Environment], [Math], [String], [IO.File],
// [IO.Directory], [IO.Path], [Convert], [Net.Dns], [Int32], [DateTime])
// and New-Object with the plain types it builds ([byte[]], PSObject). It
// registers them with the engine, as the cmdlet families register theirs,
// so the engine keeps only the mechanism.
package statics

import (
	"context"
	"encoding/base64"
	"math"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func init() {
	engine.Register("New-Object", "", newObject, engine.P("TypeName", 0), engine.P("ArgumentList", 1, "Args"),
		engine.N("Property"), engine.N("ComObject", "Com"), engine.Sw("Strict"))
	engine.RegisterConstructor("byte[]", newBytes)
	for _, t := range []string{"psobject", "pscustomobject", "management.automation.psobject"} {
		engine.RegisterConstructor(t, func(*engine.Interp, string, []any) (any, error) {
			return values.NewObject("System.Management.Automation.PSCustomObject"), nil
		})
	}
	for _, t := range []string{"environment", "int", "int32", "datetime", "string", "math", "net.httplistener"} {
		engine.RegisterStaticProperty(t, func(i *engine.Interp, name string) (any, bool) {
			return property(i, t+"::"+name)
		})
	}
	for _, t := range []string{"environment", "net.dns", "math", "string", "io.file", "io.directory", "io.path", "convert"} {
		engine.RegisterStatic(t, func(ctx context.Context, i *engine.Interp, name string, args []any) (any, bool, error) {
			return method(ctx, i, t, name, args)
		})
	}
}

// property is [Type]::Name, key being the canonical type and the
// property's name in lower case joined by "::".
func property(i *engine.Interp, key string) (any, bool) {
	switch key {
	case "environment::machinename":
		return strings.ToUpper(i.Sys.Hostname), true
	case "environment::newline":
		return values.NL, true
	case "environment::username":
		return i.Sys.User.Account, true
	case "environment::currentdirectory":
		return i.Dir, true
	case "environment::osversion":
		return osVersion(i), true
	case "int::maxvalue", "int32::maxvalue":
		return math.MaxInt32, true
	case "int::minvalue", "int32::minvalue":
		return math.MinInt32, true
	case "datetime::now":
		return i.Sys.Clock.Now().Local(), true
	case "datetime::utcnow":
		return i.Sys.Clock.Now().UTC(), true
	case "string::empty":
		return "", true
	case "math::pi":
		return math.Pi, true
	case "net.httplistener::issupported":
		return true, true
	}
	return nil, false
}

// method is [Type]::Name(args) for t, a canonical type name.
func method(ctx context.Context, i *engine.Interp, t, name string, args []any) (any, bool, error) {
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
	switch t + "::" + name {
	case "environment::getenvironmentvariable":
		if len(args) > 1 && !strings.EqualFold(arg(1), "Process") {
			return nil, true, &values.NotEmulatedError{What: "[Environment]::GetEnvironmentVariable with target " + arg(1)}
		}
		v, ok := i.Getenv(arg(0))
		if !ok {
			return nil, true, nil
		}
		return v, true, nil
	case "environment::setenvironmentvariable":
		if len(args) > 2 && !strings.EqualFold(arg(2), "Process") {
			return nil, true, &values.NotEmulatedError{What: "[Environment]::SetEnvironmentVariable with target " + arg(2)}
		}
		i.Setenv(arg(0), arg(1))
		return nil, true, nil
	case "environment::exit":
		n, _ := values.ToInt(args[0])
		return nil, true, values.ExitFlow{Code: n}
	case "net.dns::gethostname":
		return i.Sys.Hostname, true, nil
	case "net.dns::gethostaddresses", "net.dns::resolve", "net.dns::gethostentry":
		addrs, err := i.Lookup(ctx, arg(0))
		if err != nil {
			return nil, true, values.Exception("SocketException", "No such host is known")
		}
		out := make([]any, len(addrs))
		for k, a := range addrs {
			out[k] = values.NewObject("System.Net.IPAddress", "IPAddressToString", a, "AddressFamily", "InterNetwork")
		}
		return values.FromList(out), true, nil
	case "math::round":
		// Round(x) and Round(x, digits): to even, as Math.Round does.
		scale := math.Pow(10, num(1))
		return math.RoundToEven(num(0)*scale) / scale, true, nil
	case "math::truncate":
		return math.Trunc(num(0)), true, nil
	case "math::floor":
		return math.Floor(num(0)), true, nil
	case "math::ceiling":
		return math.Ceil(num(0)), true, nil
	case "math::abs":
		return math.Abs(num(0)), true, nil
	case "math::max":
		return math.Max(num(0), num(1)), true, nil
	case "math::min":
		return math.Min(num(0), num(1)), true, nil
	case "math::pow":
		return math.Pow(num(0), num(1)), true, nil
	case "math::sqrt":
		return math.Sqrt(num(0)), true, nil
	case "string::isnullorempty":
		return arg(0) == "", true, nil
	case "string::isnullorwhitespace":
		return strings.TrimSpace(arg(0)) == "", true, nil
	case "string::join":
		if len(args) > 1 {
			return dotnet.JoinValues(values.Flatten(args[1:]), arg(0)), true, nil
		}
		return "", true, nil
	case "io.file::exists", "io.directory::exists", "io.path::exists":
		fi, err := i.Sys.FS.Stat(i.Abs(arg(0)))
		return err == nil && (t == "io.file" && !fi.IsDir() || t == "io.directory" && fi.IsDir() || t == "io.path"), true, nil
	case "io.file::readalltext":
		b, err := i.ReadFile(i.Abs(arg(0)))
		if err != nil {
			return nil, true, values.MethodError("ReadAllText", len(args), values.Exception("FileNotFoundException", "Could not find file '%s'.", i.Abs(arg(0))).(*values.DotnetException))
		}
		return engine.DecodeText(b), true, nil
	case "io.file::writealltext":
		return nil, true, i.WriteFile(i.Abs(arg(0)), []byte(arg(1)), false)
	case "io.directory::createdirectory":
		return nil, true, i.Sys.FS.MkdirAll(i.Abs(arg(0)), 0o777)
	case "io.path::combine":
		p := arg(0)
		for k := 1; k < len(args); k++ {
			p = strings.TrimRight(p, `\`) + `\` + strings.TrimLeft(arg(k), `\`)
		}
		return p, true, nil
	case "io.path::getfilename":
		s := arg(0)
		return s[strings.LastIndexAny(s, `\/`)+1:], true, nil
	case "io.path::gettemppath":
		return i.GetenvOr("TEMP", `C:\Windows\TEMP`) + `\`, true, nil
	case "convert::tobase64string":
		return base64.StdEncoding.EncodeToString(values.BytesOf(args)), true, nil
	case "convert::frombase64string":
		b, err := base64.StdEncoding.DecodeString(arg(0))
		if err != nil {
			return nil, true, dotnet.OpError(`Exception calling "FromBase64String" with "1" argument(s): "The input is not a valid Base-64 string."`, "FormatException")
		}
		out := make([]any, len(b))
		for k, c := range b {
			out[k] = int(c)
		}
		return out, true, nil
	}
	return nil, false, nil
}

// osVersion is [Environment]::OSVersion: .NET gives the version without
// the UBR.
func osVersion(i *engine.Interp) *values.Object {
	os := i.Sys.OS
	v := values.NewRecord("System.Version", os.NTVersion(), "Major", os.Major, "Minor", os.Minor, "Build", os.Build, "Revision", 0)
	return values.NewObject("System.OperatingSystem", "Platform", "Win32NT", "ServicePack", "", "Version", v,
		"VersionString", "Microsoft Windows NT "+os.NTVersion())
}

// newObject is New-Object: the types registered with the engine, and
// -Property's values set on the new object.
func newObject(_ context.Context, c *engine.Call) error {
	if c.Has("ComObject") {
		return &values.NotEmulatedError{What: "New-Object -ComObject " + c.Str("ComObject")}
	}
	v, err := c.I.Construct(c.Str("TypeName"), values.ToList(c.Get("ArgumentList")))
	if err != nil {
		return err
	}
	if h, ok := c.Get("Property").(*values.Hashtable); ok {
		for _, k := range h.Keys {
			val, _ := h.Get(k)
			if err := engine.SetMember(v, k, val); err != nil {
				return err
			}
		}
	}
	c.Emit(v)
	return nil
}

// newBytes is [byte[]]::new(n): n zeros.
func newBytes(_ *engine.Interp, _ string, args []any) (any, error) {
	n, ok := values.ToInt(engine.FirstArg(args))
	if !ok || n < 0 {
		return nil, values.Exception("OverflowException", "Arithmetic operation resulted in an overflow.")
	}
	b := make([]any, n)
	for k := range b {
		b[k] = 0
	}
	return b, nil
}
