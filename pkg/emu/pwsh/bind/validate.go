package bind

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// validate checks a bound value against Mandatory's refusal of $null
// and "" and against the parameter's validation attributes, with
// PowerShell's messages (about_Functions_Advanced_Parameters).
func (b *binder) validate(ctx context.Context, s *spec, v any) error {
	if s.anyMandatory() && !s.allowNull && !s.isSwitch() {
		if v == nil {
			return b.invalid(fmt.Sprintf("Cannot bind argument to parameter '%s' because it is null.", s.p.Name), "ParameterArgumentValidationErrorNullNotAllowed")
		}
		if str, ok := v.(string); ok && str == "" && !s.allowEmpty {
			return b.invalid(fmt.Sprintf("Cannot bind argument to parameter '%s' because it is an empty string.", s.p.Name), "ParameterArgumentValidationErrorEmptyStringNotAllowed")
		}
	}
	for _, a := range s.checks {
		args, named, err := b.attrArgs(ctx, a)
		if err != nil {
			return err
		}
		if msg := b.check(ctx, strings.ToLower(a.Name), args, named, v); msg != "" {
			return b.invalid("Cannot validate argument on parameter '"+s.p.Name+"'. "+msg, "ParameterArgumentValidationError")
		}
	}
	return nil
}

func (b *binder) invalid(msg, fqid string) error {
	return b.fail(msg, "InvalidData", "ParameterBindingValidationException", fqid)
}

func (b *binder) attrArgs(ctx context.Context, a *lang.Attribute) ([]any, map[string]any, error) {
	var args []any
	for _, x := range a.Args {
		v, err := b.i.Eval(ctx, x)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, values.ToList(v)...)
	}
	named := map[string]any{}
	for _, n := range a.Named {
		v, err := b.attrValue(ctx, n)
		if err != nil {
			return nil, nil, err
		}
		named[strings.ToLower(n.Name)] = v
	}
	return args, named, nil
}

// check is one validation attribute's verdict on v: "" when it passes,
// else the reason. A collection is checked element by element.
func (b *binder) check(ctx context.Context, kind string, args []any, named map[string]any, v any) string {
	switch kind {
	case "validatenotnull":
		if v == nil {
			return "The argument is null. Provide a valid value for the argument, and then try running the command again."
		}
		return ""
	case "validatenotnullorempty":
		return notNullOrEmpty(v)
	case "validatenotnullorwhitespace":
		return notNullOrWhiteSpace(v)
	case "validatecount":
		if len(args) != 2 {
			return ""
		}
		n := len(values.ToList(v))
		lo, _ := values.ToInt(args[0])
		hi, _ := values.ToInt(args[1])
		switch {
		case n >= lo && n <= hi:
			return ""
		case lo == hi:
			return fmt.Sprintf("The parameter requires exactly %d value(s) - %d value(s) were provided.", lo, n)
		}
		return fmt.Sprintf("The parameter requires at least %d value(s) and no more than %d value(s) - %d value(s) were provided.", lo, hi, n)
	}
	for _, e := range values.ToList(v) {
		if msg := b.checkOne(ctx, kind, args, named, e); msg != "" {
			return msg
		}
	}
	return ""
}

// notNullOrEmpty is ValidateNotNullOrEmpty: not $null, not "", and a
// collection neither empty nor holding $null or "".
func notNullOrEmpty(v any) string {
	const scalar = "The argument is null or empty. Provide an argument that is not null or empty, and then try the command again."
	const collection = "The argument is null, empty, or an element of the argument collection contains a null value. Supply a collection that does not contain any null values and then try the command again."
	switch x := v.(type) {
	case nil:
		return scalar
	case string:
		if x == "" {
			return scalar
		}
	case []any:
		if len(x) == 0 {
			return collection
		}
		for _, e := range x {
			if s, ok := e.(string); e == nil || ok && s == "" {
				return collection
			}
		}
	}
	return ""
}

// notNullOrWhiteSpace is PowerShell 7.4's ValidateNotNullOrWhiteSpace.
func notNullOrWhiteSpace(v any) string {
	const scalar = "The argument is null, empty, or consists of only white-space characters. Provide an argument that contains non white-space characters, and then try the command again."
	const collection = "An element of the argument collection is null, empty, or consists of only white-space characters. Supply a collection that does not contain any those values and then try the command again."
	blank := func(e any) bool { s, ok := e.(string); return e == nil || ok && strings.TrimSpace(s) == "" }
	if list, ok := v.([]any); ok {
		if len(list) == 0 {
			return scalar
		}
		for _, e := range list {
			if blank(e) {
				return collection
			}
		}
		return ""
	}
	if blank(v) {
		return scalar
	}
	return ""
}

func (b *binder) checkOne(ctx context.Context, kind string, args []any, named map[string]any, v any) string {
	switch kind {
	case "validateset":
		ignore := true
		if c, ok := named["ignorecase"]; ok {
			ignore = values.ToBool(c)
		}
		for _, a := range args {
			if ignore && strings.EqualFold(values.ToStr(a), values.ToStr(v)) || values.ToStr(a) == values.ToStr(v) {
				return ""
			}
		}
		set := make([]string, len(args))
		for k, a := range args {
			set[k] = values.ToStr(a)
		}
		return fmt.Sprintf(`The argument "%s" does not belong to the set "%s" specified by the ValidateSet attribute. Supply an argument that is in the set and then try the command again.`,
			values.ToStr(v), strings.Join(set, ","))
	case "validaterange":
		if len(args) == 1 {
			return b.rangeKind(values.ToStr(args[0]), v)
		}
		if len(args) != 2 {
			return ""
		}
		if lt, _ := b.i.Operator("lt", v, args[0]); values.ToBool(lt) {
			return fmt.Sprintf("The %s argument is less than the minimum allowed range of %s. Supply an argument that is greater than or equal to %s and then try the command again.",
				values.ToStr(v), values.ToStr(args[0]), values.ToStr(args[0]))
		}
		if gt, _ := b.i.Operator("gt", v, args[1]); values.ToBool(gt) {
			return fmt.Sprintf("The %s argument is greater than the maximum allowed range of %s. Supply an argument that is less than or equal to %s and then try the command again.",
				values.ToStr(v), values.ToStr(args[1]), values.ToStr(args[1]))
		}
	case "validatepattern":
		if len(args) == 0 {
			return ""
		}
		pat := values.ToStr(args[0])
		re, err := regexp.Compile("(?i)" + pat)
		if err == nil && !re.MatchString(values.ToStr(v)) {
			return fmt.Sprintf(`The argument "%s" does not match the "%s" pattern. Supply an argument that matches "%s" and try the command again.`, values.ToStr(v), pat, pat)
		}
	case "validatelength":
		if len(args) != 2 {
			return ""
		}
		n := len([]rune(values.ToStr(v)))
		lo, _ := values.ToInt(args[0])
		hi, _ := values.ToInt(args[1])
		if n < lo {
			return fmt.Sprintf(`The character length (%d) of the argument is too short. Specify an argument with a length that is greater than or equal to "%d", and then try the command again.`, n, lo)
		}
		if n > hi {
			return fmt.Sprintf(`The character length (%d) of the argument is too long. Specify an argument with a length that is shorter than or equal to "%d", and then try the command again.`, n, hi)
		}
	case "validatescript":
		if len(args) == 0 {
			return ""
		}
		sb, ok := args[0].(*values.ScriptBlock)
		if !ok {
			return ""
		}
		if b.runCheck(ctx, sb, v) {
			return ""
		}
		return fmt.Sprintf(`The "%s" validation script for the argument with value "%s" did not return a result of True. Determine why the validation script failed, and then try the command again.`,
			strings.TrimSpace(sb.Src), values.ToStr(v))
	}
	return ""
}

// rangeKind is PowerShell 7's [ValidateRange('Positive')] and its
// kin: the value against zero.
func (b *binder) rangeKind(kind string, v any) string {
	cmp := func(op string) bool { r, _ := b.i.Operator(op, v, 0); return values.ToBool(r) }
	var ok bool
	var want string
	switch strings.ToLower(kind) {
	case "positive":
		ok, want = cmp("gt"), "greater than zero"
	case "nonnegative":
		ok, want = cmp("ge"), "greater than or equal to zero"
	case "negative":
		ok, want = cmp("lt"), "less than zero"
	case "nonpositive":
		ok, want = cmp("le"), "less than or equal to zero"
	default:
		return ""
	}
	if ok {
		return ""
	}
	return fmt.Sprintf(`The argument "%s" cannot be validated because its value is not %s.`, values.ToStr(v), want)
}

// runCheck runs a ValidateScript block with $_ the value.
func (b *binder) runCheck(ctx context.Context, sb *values.ScriptBlock, v any) bool {
	b.i.Scopes = append(b.i.Scopes, map[string]any{"_": v, "psitem": v})
	defer func() { b.i.Scopes = b.i.Scopes[:len(b.i.Scopes)-1] }()
	var out []any
	if err := b.i.ExecList(ctx, sb.Stmts, func(x any) { out = append(out, x) }); err != nil {
		return false
	}
	return values.ToBool(values.FromList(out))
}
