package bind

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// binder is one call's binding.
type binder struct {
	i     *engine.Interp
	inv   *engine.Invocation
	name  string
	ps    []*spec
	adv   bool // an advanced function: [CmdletBinding()] or [Parameter()]
	scope map[string]any
	bound *values.Hashtable // $PSBoundParameters
	set   map[string]bool   // parameters bound, by lower-case name
	rest  []any             // $args
	// prefs are the preference variables common parameters set for
	// the call (-Verbose, -ErrorAction), by lower-case name.
	prefs map[string]any
	// whatIf and confirm are -WhatIf and -Confirm, for $PSCmdlet.
	whatIf, confirm bool
	// defaultSet is [CmdletBinding(DefaultParameterSetName)]; setName
	// the parameter set the call resolved to.
	defaultSet, setName string
	setNames            map[string]string // as written, by lower-case name
}

const allSets = "__allparametersets"

// spec is a parameter as its attributes describe it.
type spec struct {
	p         *lang.Param
	typ       string // lower-case, without System.
	mandatory bool   // in the parameter set the call binds
	// sets are the parameter sets the parameter is in, by lower-case
	// name ("__allparametersets" for all), and whether it is mandatory
	// there.
	sets       map[string]bool
	position   int // -1: by name only
	pipeline   bool
	byProperty bool
	remaining  bool // ValueFromRemainingArguments
	aliases    []string
	checks     []*lang.Attribute
	allowNull  bool
	allowEmpty bool
}

// anyMandatory tells whether the parameter is mandatory in a set.
func (s *spec) anyMandatory() bool {
	for _, m := range s.sets {
		if m {
			return true
		}
	}
	return false
}

func (s *spec) isSwitch() bool {
	return s.typ == "switch" || s.typ == "management.automation.switchparameter"
}

// Attributes are the parameter attributes binding follows, by
// lower-case name; others are refused rather than ignored.
var Attributes = map[string]bool{"parameter": true, "alias": true, "validateset": true, "validatenotnullorempty": true,
	"validatenotnull": true, "validaterange": true, "validatepattern": true, "validatescript": true, "validatecount": true,
	"validatelength": true, "validatenotnullorwhitespace": true, "allownull": true, "allowemptystring": true, "allowemptycollection": true,
	"supportswildcards": true, "psdefaultvalue": true, "argumentcompleter": true}

// specs reads the parameters' attributes.
func (b *binder) specs(ctx context.Context, ps *lang.ParamStmt) error {
	params := b.inv.Params
	// Positions follow the declaration order unless a parameter names
	// its position or parameter set, or [CmdletBinding(PositionalBinding
	// = $false)] (Compiler.GetParameterMetaData).
	automatic := true
	if ps != nil {
		params = ps.Params
		for _, a := range ps.Attrs {
			if !strings.EqualFold(a.Name, "CmdletBinding") {
				continue
			}
			b.adv = true
			for _, n := range a.Named {
				v, err := b.attrValue(ctx, n)
				if err != nil {
					return err
				}
				switch strings.ToLower(n.Name) {
				case "positionalbinding":
					automatic = automatic && values.ToBool(v)
				case "defaultparametersetname":
					b.defaultSet = strings.ToLower(values.ToStr(v))
				}
			}
		}
	}
	for _, p := range params {
		s := &spec{p: p, typ: engine.CanonicalType(p.Type), position: -1, sets: map[string]bool{}}
		for _, a := range p.Attrs {
			kind := strings.ToLower(a.Name)
			if !Attributes[kind] {
				return &values.NotEmulatedError{What: "the parameter attribute [" + a.Name + "()]"}
			}
			switch kind {
			case "parameter":
				b.adv = true
				set, mandatory := allSets, false
				for _, n := range a.Named {
					v, err := b.attrValue(ctx, n)
					if err != nil {
						return err
					}
					switch strings.ToLower(n.Name) {
					case "mandatory":
						mandatory = values.ToBool(v)
					case "position":
						s.position, _ = values.ToInt(v)
						automatic = false
					case "parametersetname":
						set = strings.ToLower(values.ToStr(v))
						if b.setNames == nil {
							b.setNames = map[string]string{}
						}
						b.setNames[set] = values.ToStr(v)
						automatic = automatic && set == allSets
					case "valuefromremainingarguments":
						s.remaining = values.ToBool(v)
					case "valuefrompipeline":
						s.pipeline = values.ToBool(v)
					case "valuefrompipelinebypropertyname":
						s.byProperty = values.ToBool(v)
					}
				}
				s.sets[set] = mandatory
			case "alias":
				for _, x := range a.Args {
					v, err := b.i.Eval(ctx, x)
					if err != nil {
						return err
					}
					for _, al := range values.ToList(v) {
						s.aliases = append(s.aliases, values.ToStr(al))
					}
				}
			case "allownull":
				s.allowNull = true
			case "allowemptystring", "allowemptycollection":
				s.allowEmpty = true
			case "supportswildcards", "psdefaultvalue", "argumentcompleter":
			case "validatenotnullorwhitespace":
				if !b.i.Pwsh7 { // PowerShell 7.4's
					return &values.NotEmulatedError{What: "the parameter attribute [" + a.Name + "()]"}
				}
				s.checks = append(s.checks, a)
			case "validaterange":
				// A range kind ('Positive') is PowerShell 6.1's.
				if len(a.Args) == 1 && !b.i.Pwsh7 {
					return &values.NotEmulatedError{What: "[ValidateRange()] with one argument in Windows PowerShell"}
				}
				s.checks = append(s.checks, a)
			default:
				s.checks = append(s.checks, a)
			}
		}
		if len(s.sets) == 0 {
			s.sets[allSets] = false
		}
		b.ps = append(b.ps, s)
	}
	if automatic { // switches take no position
		n := 0
		for _, s := range b.ps {
			if !s.isSwitch() {
				s.position = n
				n++
			}
		}
	}
	return nil
}

func (b *binder) attrValue(ctx context.Context, n lang.NamedArg) (any, error) {
	if n.Value == nil {
		return true, nil
	}
	return b.i.Eval(ctx, n.Value)
}

// match finds the parameter -name names: its name or alias, or a
// prefix of one name only.
func (b *binder) match(name string) (*spec, error) {
	var found []*spec
	for _, s := range b.ps {
		if strings.EqualFold(s.p.Name, name) {
			return s, nil
		}
		for _, al := range s.aliases {
			if strings.EqualFold(al, name) {
				return s, nil
			}
		}
		if strings.HasPrefix(strings.ToLower(s.p.Name), strings.ToLower(name)) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	var names []string
	for _, s := range found {
		names = append(names, "-"+s.p.Name)
	}
	return nil, b.fail(fmt.Sprintf("Parameter cannot be processed because the parameter name '%s' is ambiguous. Possible matches include: %s.", name, strings.Join(names, " ")),
		"InvalidArgument", "ParameterBindingException", "AmbiguousParameter")
}

// commonParams are the common parameters of an advanced function
// (about_CommonParameters), and whether each takes a value.
var commonParams = map[string]bool{"verbose": false, "debug": false, "erroraction": true, "ea": true, "warningaction": true,
	"wa": true, "informationaction": true, "infa": true, "errorvariable": true, "ev": true, "warningvariable": true, "wv": true,
	"informationvariable": true, "iv": true, "outvariable": true, "ov": true, "outbuffer": true, "ob": true,
	"pipelinevariable": true, "pv": true, "whatif": false, "confirm": false, "progressaction": true, "proga": true}

// bindArgs binds named arguments, then positional ones in order; what
// neither binds is the rest ($args, or the ValueFromRemainingArguments
// parameter), in the order it was written.
func (b *binder) bindArgs(ctx context.Context) error {
	type left struct {
		at   int
		vals []any
	}
	var positional, rest []left
	args := b.inv.Args
	for n := 0; n < len(args); n++ {
		a := args[n]
		if !a.IsParam {
			positional = append(positional, left{n, []any{a.Value}})
			continue
		}
		s, err := b.match(a.Param)
		if err != nil {
			return err
		}
		if s == nil {
			takes, common := commonParams[strings.ToLower(a.Param)]
			switch {
			case b.adv && common:
				v := a.Value
				if takes && !a.Attached && n+1 < len(args) && !args[n+1].IsParam {
					n++
					v = args[n].Value
				}
				if err := b.common(strings.ToLower(a.Param), v, a.Attached || takes); err != nil {
					return err
				}
			case b.adv && b.remainder() == nil:
				return b.fail(fmt.Sprintf("A parameter cannot be found that matches parameter name '%s'.", a.Param),
					"InvalidArgument", "ParameterBindingException", "NamedParameterNotFound")
			default:
				rest = append(rest, left{n, engine.PlainArgs([]engine.Arg{a})})
			}
			continue
		}
		v := a.Value
		switch {
		case s.isSwitch() && !a.Attached:
			v = true
		case !a.Attached && n+1 < len(args) && !args[n+1].IsParam:
			n++
			v = args[n].Value
		case !a.Attached:
			return b.fail(fmt.Sprintf("Missing an argument for parameter '%s'. Specify a parameter of type '%s' and try again.", s.p.Name, netType(s.p.Type)),
				"InvalidArgument", "ParameterBindingException", "MissingArgument")
		}
		if err := b.bindOne(ctx, s, v); err != nil {
			return err
		}
	}
	order := append([]*spec(nil), b.ps...)
	sort.SliceStable(order, func(x, y int) bool { return order[x].position < order[y].position })
	for _, p := range positional {
		var s *spec
		for _, c := range order {
			if c.position >= 0 && !c.remaining && !b.set[strings.ToLower(c.p.Name)] {
				s = c
				break
			}
		}
		if s == nil {
			if b.adv && b.remainder() == nil {
				return b.fail(fmt.Sprintf("A positional parameter cannot be found that accepts argument '%s'.", values.ToStr(p.vals[0])),
					"InvalidArgument", "ParameterBindingException", "PositionalParameterNotFound")
			}
			rest = append(rest, p)
			continue
		}
		if err := b.bindOne(ctx, s, p.vals[0]); err != nil {
			return err
		}
	}
	sort.SliceStable(rest, func(x, y int) bool { return rest[x].at < rest[y].at })
	for _, r := range rest {
		b.rest = append(b.rest, r.vals...)
	}
	if r := b.remainder(); r != nil && len(b.rest) > 0 && !b.set[strings.ToLower(r.p.Name)] {
		rest := b.rest
		b.rest = nil
		return b.bindOne(ctx, r, rest)
	}
	return nil
}

// remainder is the ValueFromRemainingArguments parameter, if any.
func (b *binder) remainder() *spec {
	for _, s := range b.ps {
		if s.remaining {
			return s
		}
	}
	return nil
}

// common notes what a common parameter asks of the call's preference
// variables (about_CommonParameters): -Verbose shows Write-Verbose's
// messages, -ErrorAction sets $ErrorActionPreference, both for this call
// and what it calls.
func (b *binder) common(name string, v any, valued bool) error {
	if b.prefs == nil {
		b.prefs = map[string]any{}
	}
	switch name {
	case "errorvariable", "ev", "warningvariable", "wv", "informationvariable", "iv", "outvariable", "ov", "pipelinevariable", "pv":
		// Variables the call would fill: refused rather than left
		// unset.
		return &values.NotEmulatedError{What: "the common parameter -" + name + " of a function"}
	case "verbose":
		on := !valued || values.ToBool(v)
		b.prefs["verbosepreference"] = map[bool]string{true: "Continue", false: "SilentlyContinue"}[on]
	case "whatif", "confirm":
		on := !valued || values.ToBool(v)
		if name == "whatif" {
			b.whatIf = on
		} else {
			b.confirm = on
		}
	case "erroraction", "ea":
		action := values.ToStr(v)
		// ActionPreference's numbers: -ea 0 is SilentlyContinue.
		if named, ok := map[string]string{"0": "SilentlyContinue", "1": "Stop", "2": "Continue", "3": "Inquire", "4": "Ignore"}[action]; ok {
			action = named
		}
		b.prefs["erroractionpreference"] = action
	}
	return nil
}

// bindOne converts a value to the parameter's type, checks it and
// binds it.
func (b *binder) bindOne(ctx context.Context, s *spec, v any) error {
	v, err := b.convert(s, v, true)
	if err != nil {
		return err
	}
	if err := b.validate(ctx, s, v); err != nil {
		return err
	}
	key := strings.ToLower(s.p.Name)
	b.set[key] = true
	b.bound.Set(s.p.Name, v)
	b.scope[key] = v
	return nil
}

// convert turns a value into the parameter's type. An argument (not a
// default) meets the argument transformation's own checks first
// (ArgumentTypeConverterAttribute): a [bool] or [switch] takes only
// booleans and numbers, and an advanced function's [string] no array.
func (b *binder) convert(s *spec, v any, arg bool) (any, error) {
	if s.typ == "" || s.typ == "object" {
		return v, nil
	}
	transformError := func(msg string) error {
		return b.fail(fmt.Sprintf("Cannot process argument transformation on parameter '%s'. %s", s.p.Name, msg),
			"InvalidData", "ParameterBindingArgumentTransformationException", "ParameterArgumentTransformationError")
	}
	boolean := s.isSwitch() || s.typ == "bool" || s.typ == "boolean"
	if arg && boolean {
		switch v.(type) {
		case bool, int, float64:
		default:
			target := "System.Boolean"
			if s.isSwitch() {
				target = "System.Management.Automation.SwitchParameter"
			}
			from := ""
			if v != nil {
				from = dotnet.FullTypeName(v)
			}
			return nil, transformError(fmt.Sprintf(`Cannot convert value "%s" to type "%s". Boolean parameters accept only Boolean values and numbers, such as $True, $False, 1 or 0.`, from, target))
		}
	}
	if _, isList := v.([]any); arg && isList && b.adv && s.typ == "string" {
		return nil, transformError("Cannot convert value to type System.String.")
	}
	if s.isSwitch() {
		return values.ToBool(v), nil
	}
	out, err := b.i.Cast(s.typ, v)
	if re, ok := err.(*values.RuntimeError); ok {
		return nil, transformError(re.Rec.Msg)
	}
	return out, err
}

// finish checks Mandatory, then gives each parameter not bound its
// default (evaluated now, in the call's scope, so that it may use the
// parameters before it) or its type's empty value; it sets $args and
// $PSBoundParameters.
func (b *binder) finish(ctx context.Context) error {
	if err := b.resolveSet(); err != nil {
		return err
	}
	var missing []string
	for _, s := range b.ps {
		if s.mandatory && !b.set[strings.ToLower(s.p.Name)] && !(s.pipeline && b.inv.Piped) {
			missing = append(missing, s.p.Name)
		}
	}
	if len(missing) > 0 {
		// Without a console to prompt on, PowerShell fails the call.
		return b.fail("Cannot process command because of one or more missing mandatory parameters: "+strings.Join(missing, " ")+".",
			"InvalidArgument", "ParameterBindingException", "MissingMandatoryParameter")
	}
	rest := b.rest
	if rest == nil {
		rest = []any{}
	}
	b.scope["args"] = rest
	b.scope["psboundparameters"] = b.bound
	for _, s := range b.ps {
		key := strings.ToLower(s.p.Name)
		if b.set[key] {
			continue
		}
		v := zero(s)
		if s.p.Default != nil {
			d, err := b.i.Eval(ctx, s.p.Default)
			if err != nil {
				return err
			}
			if v, err = b.convert(s, d, false); err != nil {
				return err
			}
		}
		b.scope[key] = v
	}
	return nil
}

// zero is what a parameter not bound holds: "" for a string, 0 for a
// number, $false for a switch or bool, else $null.
func zero(s *spec) any {
	switch s.typ {
	case "string":
		return ""
	case "int", "int32", "int64", "long", "byte", "int16", "uint32", "uint64":
		return 0
	case "double", "float", "single", "decimal":
		return 0.0
	case "bool", "boolean":
		return false
	}
	if s.isSwitch() {
		return false
	}
	return nil
}

// resolveSet picks the parameter set the call binds
// (about_Parameter_Sets): one that holds every parameter bound; of
// several, the default set, else the one whose mandatory parameters are
// all there. The chosen set decides which parameters are mandatory.
func (b *binder) resolveSet() error {
	declared := map[string]bool{}
	for _, s := range b.ps {
		for set := range s.sets {
			if set != allSets {
				declared[set] = true
			}
		}
	}
	in := func(s *spec, set string) bool { _, ok := s.sets[set]; _, all := s.sets[allSets]; return ok || all }
	var candidates []string
	for set := range declared {
		fits := true
		for _, s := range b.ps {
			if b.set[strings.ToLower(s.p.Name)] && !in(s, set) {
				fits = false
			}
		}
		if fits {
			candidates = append(candidates, set)
		}
	}
	sort.Strings(candidates)
	switch {
	case len(declared) == 0:
		b.setName = allSets
	case len(candidates) == 1:
		b.setName = candidates[0]
	case len(candidates) > 1 && declared[b.defaultSet] && contains(candidates, b.defaultSet):
		b.setName = b.defaultSet
	default:
		var complete []string
		for _, set := range candidates {
			if len(b.missing(set)) == 0 {
				complete = append(complete, set)
			}
		}
		if len(complete) != 1 {
			return b.fail("Parameter set cannot be resolved using the specified named parameters. One or more parameters issued cannot be used together or an insufficient number of parameters were provided.",
				"InvalidArgument", "ParameterBindingException", "AmbiguousParameterSet")
		}
		b.setName = complete[0]
	}
	for _, s := range b.ps {
		s.mandatory = s.sets[b.setName] || s.sets[allSets]
	}
	return nil
}

// missing are the mandatory parameters of a set the call has not bound.
func (b *binder) missing(set string) []string {
	var out []string
	for _, s := range b.ps {
		if (s.sets[set] || s.sets[allSets]) && !b.set[strings.ToLower(s.p.Name)] && !(s.pipeline && b.inv.Piped) {
			out = append(out, s.p.Name)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pipelineItem binds one input object to the ValueFromPipeline
// parameter, or to ValueFromPipelineByPropertyName ones by its
// properties.
func (b *binder) pipelineItem(ctx context.Context, item any) error {
	for _, s := range b.ps {
		if s.pipeline {
			return b.bindOne(ctx, s, item)
		}
	}
	o, ok := item.(*values.Object)
	if !ok {
		return nil
	}
	for _, s := range b.ps {
		if !s.byProperty {
			continue
		}
		for _, name := range append([]string{s.p.Name}, s.aliases...) {
			if v, ok := o.Get(name); ok {
				if err := b.bindOne(ctx, s, v); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// fail is a parameter binding error of this call, at the call.
func (b *binder) fail(msg, category, reason, fqid string) error {
	rec := &values.ErrorRecord{Msg: msg, CmdName: b.name, Category: category, Reason: reason, Fqid: fqid}
	if b.inv.Script {
		// Windows PowerShell's error view names a script by its path
		// (MyCommand.Path), PowerShell 7's by its name.
		rec.Invoked = b.inv.Name
	}
	if b.name != "" {
		rec.Fqid += "," + b.name
	}
	if c := b.inv.Cmd; c != nil {
		rec.Src, rec.Pos, rec.End = b.i.Src, c.Pos, c.End
	}
	return &values.RuntimeError{Rec: rec}
}

// netTypes are the .NET names of the type literals parameters use most.
var netTypes = map[string]string{"": "System.Object", "object": "System.Object", "string": "System.String",
	"int": "System.Int32", "int32": "System.Int32", "long": "System.Int64", "int64": "System.Int64",
	"bool": "System.Boolean", "boolean": "System.Boolean", "double": "System.Double", "string[]": "System.String[]",
	"int[]": "System.Int32[]", "hashtable": "System.Collections.Hashtable", "datetime": "System.DateTime",
	"scriptblock": "System.Management.Automation.ScriptBlock", "object[]": "System.Object[]"}

func netType(typ string) string {
	if n, ok := netTypes[engine.CanonicalType(typ)]; ok {
		return n
	}
	return typ
}
