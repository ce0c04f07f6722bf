package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// Param is a cmdlet parameter: its name, aliases, whether it is a
// switch, and its position (-1: named only; rest: takes all remaining
// positional values).
type Param struct {
	name    string
	aliases []string
	sw      bool
	pos     int
	rest    bool
}

// Cmdlet is a registered cmdlet: its canonical name, parameters and body.
type Cmdlet struct {
	Name   string // the canonical spelling: Get-Content
	params []Param
	Run    func(ctx context.Context, c *Call) error
}

// Call is one invocation of a cmdlet.
type Call struct {
	I        *Interp
	Cl       *Cmdlet
	Cmd      *lang.Command
	Named    map[string]any // by parameter name, lower-case
	Input    []any
	Piped    bool
	Emit     func(any)
	Stop     bool // -ErrorAction Stop
	Silent   bool // -ErrorAction SilentlyContinue / Ignore
	HadError bool
	// Shown lists the common switches given: "verbose", "debug".
	Shown map[string]bool
}

// Cmdlets are the registered cmdlets by lower-case name.
var Cmdlets = map[string]*Cmdlet{}

// Aliases map lower-case aliases to lower-case cmdlet names.
var Aliases = map[string]string{}

// Register adds a cmdlet: its canonical name, its aliases (space
// separated, lower case), its body and its parameters. Families call it
// from init.
func Register(name string, als string, run func(context.Context, *Call) error, params ...Param) {
	cl := &Cmdlet{Name: name, params: params, Run: run}
	Cmdlets[strings.ToLower(name)] = cl
	for _, a := range strings.Fields(als) {
		Aliases[a] = strings.ToLower(name)
	}
}

// P is a positional parameter (with its aliases).
func P(name string, pos int, aliases ...string) Param {
	return Param{name: name, pos: pos, aliases: aliases}
}

// N is a named-only parameter.
func N(name string, aliases ...string) Param { return Param{name: name, pos: -1, aliases: aliases} }

// Sw is a switch parameter.
func Sw(name string, aliases ...string) Param {
	return Param{name: name, pos: -1, sw: true, aliases: aliases}
}

// Rest is a parameter that takes every remaining positional value.
func Rest(name string) Param { return Param{name: name, pos: 0, rest: true} }

func (c *Call) Has(name string) bool { _, ok := c.Named[strings.ToLower(name)]; return ok }

func (c *Call) Get(name string) any { return c.Named[strings.ToLower(name)] }

func (c *Call) Str(name string) string { return values.ToStr(c.Get(name)) }

func (c *Call) Flag(name string) bool { return c.Has(name) && values.ToBool(c.Get(name)) }

// className is the .NET class of a cmdlet, for error ids.
func className(name string) string {
	if c, ok := moduleClasses[strings.ToLower(name)]; ok {
		return c
	}
	return "Microsoft.PowerShell.Commands." + strings.ReplaceAll(name, "-", "") + "Command"
}

// moduleClasses are the classes of cmdlets outside PowerShell's own
// modules, whose error ids name them.
var moduleClasses = map[string]string{
	"resolve-dnsname": "Microsoft.DnsClient.Commands.ResolveDnsName",
	// CIM (CDXML) cmdlets: their ids end with the command's own name
	// ("CmdletizationQuery_NotFound_DisplayName,Get-NetFirewallRule").
	"new-netfirewallrule": "New-NetFirewallRule", "get-netfirewallrule": "Get-NetFirewallRule",
	"remove-netfirewallrule": "Remove-NetFirewallRule", "get-netadapter": "Get-NetAdapter",
	"get-netipaddress": "Get-NetIPAddress", "get-dnsclientserveraddress": "Get-DnsClientServerAddress",
}

func (i *Interp) runCmdlet(ctx context.Context, lower string, cl *Cmdlet, cmd *lang.Command, args []Arg, input []any, piped bool, emit func(any)) error {
	c := &Call{I: i, Cl: cl, Cmd: cmd, Named: map[string]any{}, Input: input, Piped: piped, Emit: emit, Stop: i.stop}
	// $ErrorActionPreference = 'SilentlyContinue' hides the errors
	// -ErrorAction does not decide (about_Preference_Variables).
	if pref, ok := i.GetVar("erroractionpreference"); ok {
		p := strings.ToLower(values.ToStr(pref))
		c.Silent = p == "silentlycontinue" || p == "ignore"
	}
	if err := c.bind(args); err != nil {
		return err
	}
	err := cl.Run(ctx, c)
	if c.HadError {
		i.failed = true
	}
	return err
}

func (c *Call) BindError(msg, fqid string) error {
	rec := &values.ErrorRecord{Msg: msg, CmdName: c.Cl.Name, Category: "InvalidArgument", Reason: "ParameterBindingException",
		Fqid: fqid + "," + className(c.Cl.Name), Src: c.I.Src, Pos: c.Cmd.Pos, End: c.Cmd.End}
	return &values.RuntimeError{Rec: rec}
}

// bind matches arguments to parameters: by name (or unique prefix, or
// alias), then by position.
func (c *Call) bind(args []Arg) error {
	var positional []any
	pending, pendingName := "", "" // a parameter waiting for its value

	for _, a := range args {
		if !a.IsParam {
			if pending == "#erroraction" {
				c.common(Arg{Param: "ErrorAction", IsParam: true, Attached: true, Value: a.Value})
				pending = ""
			} else if pending != "" {
				c.Named[pending] = a.Value
				pending = ""
			} else {
				positional = append(positional, a.Value)
			}
			continue
		}
		if pending != "" {
			return c.BindError(fmt.Sprintf("Missing an argument for parameter '%s'. Specify a parameter of type 'System.Object' and try again.", pendingName), "MissingArgument")
		}
		if c.common(a) {
			continue
		}
		if isErrorAction(a.Param) {
			pending, pendingName = "#erroraction", "ErrorAction"
			continue
		}
		spec := c.match(a.Param)
		if spec == nil {
			return c.BindError(fmt.Sprintf("A parameter cannot be found that matches parameter name '%s'.", a.Param), "NamedParameterNotFound")
		}
		key := strings.ToLower(spec.name)
		switch {
		case a.Attached:
			c.Named[key] = a.Value
		case spec.sw:
			c.Named[key] = true
		default:
			pending, pendingName = key, spec.name
		}
	}
	if pending != "" {
		return c.BindError(fmt.Sprintf("Missing an argument for parameter '%s'. Specify a parameter of type 'System.Object' and try again.", pendingName), "MissingArgument")
	}
	for pos := 0; len(positional) > 0; pos++ {
		spec := c.positional(pos)
		if spec == nil {
			return c.BindError(fmt.Sprintf("A positional parameter cannot be found that accepts argument '%s'.", values.ToStr(positional[0])), "PositionalParameterNotFound")
		}
		key := strings.ToLower(spec.name)
		if spec.rest {
			c.Named[key] = values.FromList(positional)
			return nil
		}
		if _, done := c.Named[key]; !done {
			c.Named[key] = positional[0]
			positional = positional[1:]
		}
	}
	return nil
}

// common takes the common parameters every cmdlet has.
func (c *Call) common(a Arg) bool {
	name := strings.ToLower(a.Param)
	switch name {
	case "erroraction", "ea":
		if !a.Attached {
			return false
		}
		v := strings.ToLower(values.ToStr(a.Value))
		// ActionPreference's numbers: -ea 0 is SilentlyContinue.
		if n, ok := map[string]string{"0": "silentlycontinue", "1": "stop", "2": "continue", "3": "inquire", "4": "ignore"}[v]; ok {
			v = n
		}
		c.Stop = v == "stop"
		c.Silent = v == "silentlycontinue" || v == "ignore"
		return true
	case "verbose", "debug":
		if c.Shown == nil {
			c.Shown = map[string]bool{}
		}
		c.Shown[name] = a.Value == nil || values.ToBool(a.Value)
		return true
	case "whatif", "confirm":
		return true
	}
	return false
}

func (c *Call) match(name string) *Param {
	lower := strings.ToLower(name)
	var found *Param
	for k := range c.Cl.params {
		spec := &c.Cl.params[k]
		if strings.ToLower(spec.name) == lower {
			return spec
		}
		for _, al := range spec.aliases {
			if strings.ToLower(al) == lower {
				return spec
			}
		}
		if strings.HasPrefix(strings.ToLower(spec.name), lower) {
			if found != nil {
				return nil // ambiguous
			}
			found = spec
		}
	}
	return found
}

func (c *Call) positional(pos int) *Param {
	for k := range c.Cl.params {
		if c.Cl.params[k].pos == pos {
			return &c.Cl.params[k]
		}
	}
	return nil
}

// Fail reports a non-terminating error of this cmdlet (terminating with
// -ErrorAction Stop).
func (c *Call) Fail(msg, category, target, reason, fqid string) error {
	c.HadError = true
	rec := &values.ErrorRecord{Msg: msg, CmdName: c.Cl.Name, Category: category, Target: target, Reason: reason,
		Fqid: fqid + "," + className(c.Cl.Name), Src: c.I.Src, Pos: c.Cmd.Pos, End: c.Cmd.End}
	return c.Report(rec)
}

// Report is a cmdlet's error record as -ErrorAction wants it: thrown
// (Stop), printed (Continue) or not (SilentlyContinue); each goes to
// $Error.
func (c *Call) Report(rec *values.ErrorRecord) error {
	c.I.RecordError(rec)
	if c.Stop {
		return &values.RuntimeError{Rec: rec, Script: c.I.TryDepth == 0}
	}
	if !c.Silent {
		c.I.ErrOut(rec)
	}
	return nil
}

// Items is the cmdlet's input: the named parameter, else the pipeline.
func (c *Call) Items(name string) []any {
	if c.Has(name) {
		return values.ToList(c.Get(name))
	}
	if c.Piped {
		return c.Input
	}
	return nil
}

func isErrorAction(name string) bool {
	n := strings.ToLower(name)
	return n == "ea" || n == "erroraction"
}

func (c *Call) NotFound(path string) error {
	return c.Fail("Cannot find path '"+path+"' because it does not exist.", "ObjectNotFound", path, "ItemNotFoundException", "PathNotFound")
}
