// Package utilcmd is PowerShell's everyday cmdlets: the Write-* and
// Out-* streams, ForEach-Object, Where-Object, Select-, Sort- and
// Measure-Object, Start-Sleep, Get-Date, Invoke-Expression, Get-Process
// and the session's own (Get-Command, Get-Alias, $PSVersionTable's
// kin). It registers itself with the engine when imported.
package utilcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/format"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func init() {
	engine.Register("Write-Host", "", writeHost, engine.Rest("Object"), engine.Sw("NoNewline"), engine.N("Separator"), engine.N("ForegroundColor", "fore"), engine.N("BackgroundColor"))
	engine.Register("Write-Output", "echo write", writeOutput, engine.Rest("InputObject"), engine.Sw("NoEnumerate"))
	engine.Register("Write-Error", "", writeError, engine.P("Message", 0), engine.N("Category"), engine.N("ErrorId"))
	engine.Register("Write-Warning", "", writeStream("WARNING: "), engine.P("Message", 0))
	engine.Register("Write-Verbose", "", writeStream("VERBOSE: "), engine.P("Message", 0))
	engine.Register("Write-Debug", "", writeStream("DEBUG: "), engine.P("Message", 0))
	engine.Register("Write-Information", "", writeStream("+"), engine.P("MessageData", 0))
	engine.Register("Out-Null", "", func(context.Context, *engine.Call) error { return nil }, engine.N("InputObject"))
	engine.Register("Out-Default", "", passThrough, engine.N("InputObject"))
	engine.Register("Out-Host", "oh", passThrough, engine.N("InputObject"))
	engine.Register("Out-String", "", outString, engine.N("InputObject"), engine.Sw("Stream"), engine.N("Width"))
	engine.Register("ForEach-Object", "% foreach", forEachObject, engine.P("Process", 0), engine.N("Begin"), engine.N("End"), engine.P("MemberName", 1))
	where := []engine.Param{engine.P("FilterScript", 0, "Property"), engine.P("Value", 1)}
	for _, op := range whereOps {
		where = append(where, engine.Sw(op))
	}
	engine.Register("Where-Object", "? where", whereObject, where...)
	engine.Register("Select-Object", "select", selectObject, engine.P("Property", 0), engine.N("First"), engine.N("Last"), engine.N("Skip"), engine.N("ExpandProperty"), engine.Sw("Unique"))
	engine.Register("Measure-Object", "measure", measureObject, engine.P("Property", 0), engine.Sw("Sum"), engine.Sw("Average"),
		engine.Sw("Maximum"), engine.Sw("Minimum"), engine.Sw("Line"), engine.Sw("Word"), engine.Sw("Character"))
	engine.Register("Sort-Object", "sort", sortObject, engine.P("Property", 0), engine.Sw("Descending"), engine.Sw("Unique"))
	engine.Register("Start-Sleep", "sleep", startSleep, engine.P("Seconds", 0, "s"), engine.N("Milliseconds", "ms", "m"), engine.N("Duration"))
	engine.Register("Get-Date", "", getDate, engine.P("Date", 0), engine.N("Format"), engine.N("UFormat"))
	engine.Register("Invoke-Expression", "iex", invokeExpression, engine.P("Command", 0))
	engine.Register("Get-Process", "ps gps", getProcess, engine.P("Name", 0), engine.N("Id"))
	engine.Register("Get-Command", "gcm", getCommand, engine.P("Name", 0))
	engine.Register("Get-Host", "", getHost)
	// Get-Command's table view, shared with the aliases and functions
	// of their drives.
	for _, t := range []string{"System.Management.Automation.CmdletInfo", "System.Management.Automation.ApplicationInfo"} {
		format.RegisterFormat(t, func(f *format.Formatter, o *values.Object) {
			f.TableRow("command", o, []format.Column{{Name: "CommandType", Width: 15}, {Name: "Name", Width: 50}, {Name: "Version", Width: 10}, {Name: "Source"}})
		})
	}
	engine.Register("Clear-Host", "cls clear", func(_ context.Context, c *engine.Call) error {
		io.WriteString(c.I.HostOut, "\x1b[2J\x1b[H")
		return nil
	})
}

func passThrough(_ context.Context, c *engine.Call) error {
	for _, v := range c.Items("InputObject") {
		c.Emit(v)
	}
	return nil
}

// writeHost prints to the console (the information stream), not to the
// pipeline.
func writeHost(_ context.Context, c *engine.Call) error {
	sep := " "
	if c.Has("Separator") {
		sep = c.Str("Separator")
	}
	var parts []string
	for _, v := range values.ToList(c.Get("Object")) {
		if list, ok := v.([]any); ok {
			parts = append(parts, dotnet.JoinValues(list, sep))
		} else {
			// Write-Host prints an object's ToString(): a date in the
			// culture's form, not PowerShell's invariant one.
			parts = append(parts, dotnet.ToCultureString(v))
		}
	}
	text := strings.Join(parts, sep)
	if !c.Flag("NoNewline") {
		text += values.NL
	}
	io.WriteString(c.I.HostOut, text)
	return nil
}

func writeOutput(_ context.Context, c *engine.Call) error {
	// -NoEnumerate passes an array given as the argument as one object.
	if c.Flag("NoEnumerate") && c.Has("InputObject") {
		c.Emit(values.FromList(values.ToList(c.Get("InputObject"))))
		return nil
	}
	for _, v := range c.Items("InputObject") {
		if list, ok := v.([]any); ok && !c.Flag("NoEnumerate") {
			for _, e := range list {
				c.Emit(e)
			}
			continue
		}
		c.Emit(v)
	}
	return nil
}

// writeError reports a non-terminating error; the statement's text is
// its prefix, as when Windows PowerShell runs a -Command.
func writeError(_ context.Context, c *engine.Call) error {
	msg := c.Str("Message")
	if c.Piped && !c.Has("Message") {
		msg = values.ToStr(values.FromList(c.Input))
	}
	c.HadError = true
	rec := &values.ErrorRecord{Msg: msg, CmdName: "Write-Error", Category: "NotSpecified", Reason: "WriteErrorException",
		Fqid: "Microsoft.PowerShell.Commands.WriteErrorException", NoPos: true}
	if c.I.Src != nil {
		rec.Invoked = strings.TrimSpace(string(c.I.Src[c.Cmd.Pos:min(c.Cmd.End, len(c.I.Src))]))
	}
	// -Category and -ErrorId replace the record's category and id.
	if c.Has("Category") {
		rec.Category = c.Str("Category")
	}
	if c.Has("ErrorId") {
		rec.Fqid = c.Str("ErrorId")
	}
	return c.Report(rec)
}

// writeStream is Write-Warning and friends; only warnings show by
// default.
func writeStream(prefix string) func(context.Context, *engine.Call) error {
	return func(_ context.Context, c *engine.Call) error {
		if shown(c, prefix) {
			io.WriteString(c.I.HostOut, prefix+c.Str("Message")+values.NL)
		}
		return nil
	}
}

// shown tells whether a stream's message is shown: warnings are, by
// default; verbose and debug messages with -Verbose/-Debug or their
// preference variable set to Continue (about_Preference_Variables).
// Information messages are not shown by default in 5.1 or 7.
func shown(c *engine.Call, prefix string) bool {
	switch prefix {
	case "WARNING: ":
		return true
	case "VERBOSE: ", "DEBUG: ":
		name := strings.ToLower(strings.TrimSuffix(prefix, ": "))
		if on, given := c.Shown[name]; given {
			return on
		}
		pref, _ := c.I.GetVar(name + "preference")
		return strings.EqualFold(values.ToStr(pref), "Continue")
	}
	return false
}

func outString(_ context.Context, c *engine.Call) error {
	var b strings.Builder
	f := c.I.NewFormatter(&b)
	for _, v := range c.Items("InputObject") {
		f.Write(v)
	}
	f.Flush()
	if c.Flag("Stream") {
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), values.NL), values.NL) {
			c.Emit(line)
		}
		return nil
	}
	c.Emit(b.String())
	return nil
}

// eachInput runs a script block once per input object, with $_ set.
func eachInput(c *engine.Call, ctx context.Context, sb *values.ScriptBlock, item any, emit func(any)) error {
	// The block runs in the caller's scope, as PowerShell runs the
	// blocks of ForEach-Object and Where-Object: what it assigns
	// ($count += 1) stays after it; only $_ is the item's meanwhile.
	top := c.I.Scopes[len(c.I.Scopes)-1]
	defer c.I.SaveItem()()
	top["_"], top["psitem"] = item, item
	// return ends this item's run of the block only (about_Return).
	if err := c.I.ExecList(ctx, sb.Stmts, emit); !errors.As(err, new(values.ReturnFlow)) {
		return err
	}
	return nil
}

func forEachObject(ctx context.Context, c *engine.Call) error {
	if sb, ok := c.Get("Begin").(*values.ScriptBlock); ok {
		if err := c.I.ExecList(ctx, sb.Stmts, c.Emit); err != nil {
			return err
		}
	}
	proc := c.Get("Process")
	for _, item := range c.Input {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch sb := proc.(type) {
		case *values.ScriptBlock:
			if err := eachInput(c, ctx, sb, item, c.Emit); err != nil {
				return err
			}
		default: // % Name: a property, else a method
			name := values.ToStr(sb)
			if v := dotnet.Property(item, name); v != nil {
				c.Emit(v)
				continue
			}
			v, ok, err := c.I.Method(item, name, nil)
			if err != nil {
				return err
			}
			if ok && v != nil {
				c.Emit(v)
			}
		}
	}
	if sb, ok := c.Get("End").(*values.ScriptBlock); ok {
		return c.I.ExecList(ctx, sb.Stmts, c.Emit)
	}
	return nil
}

// whereOps are Where-Object's comparison parameters (its simplified
// syntax: Where-Object Length -gt 2), each PowerShell's operator.
var whereOps = []string{"EQ", "NE", "GT", "GE", "LT", "LE", "Like", "NotLike", "Match", "NotMatch", "Contains", "NotContains",
	"In", "NotIn", "Is", "IsNot", "CEQ", "CNE", "CGT", "CGE", "CLT", "CLE", "CLike", "CNotLike", "CMatch", "CNotMatch",
	"CContains", "CNotContains", "CIn", "CNotIn"}

func whereObject(ctx context.Context, c *engine.Call) error {
	op := ""
	for _, o := range whereOps {
		if c.Flag(o) {
			op = strings.ToLower(o)
		}
	}
	for _, item := range c.Input {
		sb, ok := c.Get("FilterScript").(*values.ScriptBlock)
		if !ok {
			v := dotnet.Property(item, c.Str("FilterScript"))
			keep := values.ToBool(v)
			if op != "" {
				r, err := c.I.Operator(op, v, c.Get("Value"))
				if err != nil {
					return err
				}
				keep = values.ToBool(r)
			}
			if keep {
				c.Emit(item)
			}
			continue
		}
		var out []any
		if err := eachInput(c, ctx, sb, item, func(v any) { out = append(out, v) }); err != nil {
			return err
		}
		if values.ToBool(values.FromList(out)) {
			c.Emit(item)
		}
	}
	return nil
}

func selectObject(ctx context.Context, c *engine.Call) error {
	items := c.Input
	// -Skip counts from the start, or from the end with -Last
	// (Select-Object reference).
	if k, _ := values.ToInt(c.Get("Skip")); c.Has("Skip") && c.Has("Last") {
		items = items[:max(0, len(items)-k)]
	} else if c.Has("Skip") {
		items = items[min(k, len(items)):]
	}
	if c.Has("First") {
		k, _ := values.ToInt(c.Get("First"))
		items = items[:min(k, len(items))]
	}
	if c.Has("Last") {
		k, _ := values.ToInt(c.Get("Last"))
		items = items[max(0, len(items)-k):]
	}
	var seen []any
	for _, item := range items {
		if c.Flag("Unique") {
			dup := false
			for _, s := range seen {
				dup = dup || engine.Equal(s, item, false)
			}
			if dup {
				continue
			}
			seen = append(seen, item)
		}
		switch {
		case c.Has("ExpandProperty"):
			for _, v := range values.ToList(dotnet.Property(item, c.Str("ExpandProperty"))) {
				c.Emit(v)
			}
		case c.Has("Property"):
			o := values.NewObject("System.Management.Automation.PSCustomObject")
			for _, p := range expandWildcards(item, values.ToList(c.Get("Property"))) {
				name, v, err := selected(ctx, c, item, p)
				if err != nil {
					return err
				}
				o.Set(name, v)
			}
			c.Emit(o)
		default:
			c.Emit(item)
		}
	}
	return nil
}

// expandWildcards replaces a property name with wildcards (*) by the
// item's properties it matches, in their order.
func expandWildcards(item any, props []any) []any {
	o, ok := item.(*values.Object)
	var out []any
	for _, p := range props {
		name, isName := p.(string)
		if !isName || !strings.ContainsAny(name, "*?") || !ok {
			out = append(out, p)
			continue
		}
		for _, n := range o.Names {
			if dotnet.Wildcard(name, n, true) {
				out = append(out, n)
			}
		}
	}
	return out
}

// selected is one property Select-Object makes: a name, or a
// calculated property @{Name = ...; Expression = {...}} (Name, N, Label
// or L; Expression or E, a script block with $_ or a property name).
func selected(ctx context.Context, c *engine.Call, item, p any) (string, any, error) {
	h, ok := p.(*values.Hashtable)
	if !ok {
		return values.ToStr(p), dotnet.Property(item, values.ToStr(p)), nil
	}
	name, expr := "", any(nil)
	for _, k := range h.Keys {
		v, _ := h.Get(k)
		switch lk := strings.ToLower(k); {
		case strings.HasPrefix("name", lk), strings.HasPrefix("label", lk):
			name = values.ToStr(v)
		case strings.HasPrefix("expression", lk):
			expr = v
		}
	}
	sb, ok := expr.(*values.ScriptBlock)
	if !ok {
		if name == "" {
			name = values.ToStr(expr)
		}
		return name, dotnet.Property(item, values.ToStr(expr)), nil
	}
	if name == "" {
		name = sb.Src
	}
	var out []any
	err := eachInput(c, ctx, sb, item, func(v any) { out = append(out, v) })
	return name, values.FromList(out), err
}

// measureText is Measure-Object -Line/-Word/-Character: a
// TextMeasureInfo of the input strings, the counts not asked for
// $null.
func measureText(c *engine.Call) error {
	lines, words, chars := 0, 0, 0
	for _, v := range c.Input {
		s := values.ToStr(v)
		lines += len(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }))
		words += len(strings.Fields(s))
		chars += len([]rune(s))
	}
	o := values.NewObject("Microsoft.PowerShell.Commands.TextMeasureInfo", "Lines", nil, "Words", nil, "Characters", nil, "Property", nil)
	for flag, n := range map[string]int{"Line": lines, "Word": words, "Character": chars} {
		if c.Flag(flag) {
			o.Set(map[string]string{"Line": "Lines", "Word": "Words", "Character": "Characters"}[flag], n)
		}
	}
	c.Emit(o)
	return nil
}

// measureObject is Measure-Object's GenericMeasureInfo: the count,
// and the sum, average, maximum and minimum asked for (the others stay
// $null); -Property measures that property of each input.
func measureObject(_ context.Context, c *engine.Call) error {
	if c.Flag("Line") || c.Flag("Word") || c.Flag("Character") {
		return measureText(c)
	}
	o := values.NewObject("Microsoft.PowerShell.Commands.GenericMeasureInfo", "Count", len(c.Input), "Average", nil, "Sum", nil,
		"Maximum", nil, "Minimum", nil, "Property", nil)
	if c.Has("Property") {
		o.Set("Property", c.Str("Property"))
	}
	var sum, maxV, minV any = 0, nil, nil
	stats := c.Flag("Sum") || c.Flag("Average") || c.Flag("Maximum") || c.Flag("Minimum")
	for _, v := range c.Input {
		if !stats {
			break
		}
		if c.Has("Property") {
			v = dotnet.Property(v, c.Str("Property"))
		}
		n, ok := values.ToNumber(v)
		if !ok {
			if err := c.Fail(fmt.Sprintf(`Input object "%s" is not numeric.`, values.ToStr(v)), "InvalidType", values.ToStr(v), "PSInvalidOperationException", "NonNumericInputObject"); err != nil {
				return err
			}
			continue
		}
		sum, _ = engine.Arith("+", sum, n)
		if maxV == nil || engine.Compare(n, maxV, false) > 0 {
			maxV = n
		}
		if minV == nil || engine.Compare(n, minV, false) < 0 {
			minV = n
		}
	}
	// Measure-Object computes in doubles: the results are Double.
	if c.Flag("Sum") {
		o.Set("Sum", values.ToFloat(sum))
	}
	if c.Flag("Average") && len(c.Input) > 0 {
		o.Set("Average", values.ToFloat(sum)/float64(len(c.Input)))
	}
	if c.Flag("Maximum") && maxV != nil {
		o.Set("Maximum", values.ToFloat(maxV))
	}
	if c.Flag("Minimum") && minV != nil {
		o.Set("Minimum", values.ToFloat(minV))
	}
	c.Emit(o)
	return nil
}

func sortObject(ctx context.Context, c *engine.Call) error {
	items := append([]any{}, c.Input...)
	// The key is a property, or a script block run with $_ as each
	// item (Sort-Object { $_.Length }).
	keys := make([]any, len(items))
	for k, v := range items {
		keys[k] = v
		switch p := c.Get("Property").(type) {
		case nil:
		case *values.ScriptBlock:
			var out []any
			if err := eachInput(c, ctx, p, v, func(x any) { out = append(out, x) }); err != nil {
				return err
			}
			keys[k] = values.FromList(out)
		default:
			keys[k] = dotnet.Property(v, values.ToStr(p))
		}
	}
	order := make([]int, len(items))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool {
		r := engine.Compare(keys[order[a]], keys[order[b]], true)
		if c.Flag("Descending") {
			return r > 0
		}
		return r < 0
	})
	sorted := make([]any, len(items))
	for k, o := range order {
		sorted[k] = items[o]
	}
	items = sorted
	for k, v := range items {
		if c.Flag("Unique") && k > 0 && engine.Equal(v, items[k-1], true) {
			continue
		}
		c.Emit(v)
	}
	return nil
}

// startSleep waits on the container's clock.
func startSleep(ctx context.Context, c *engine.Call) error {
	var d time.Duration
	switch {
	case c.Has("Milliseconds"):
		n, ok := values.ToNumber(c.Get("Milliseconds"))
		if !ok {
			return sleepError(c, "Milliseconds", c.Str("Milliseconds"))
		}
		d = time.Duration(values.ToFloat(n) * float64(time.Millisecond))
	case c.Has("Seconds"):
		n, ok := values.ToNumber(c.Get("Seconds"))
		if !ok {
			return sleepError(c, "Seconds", c.Str("Seconds"))
		}
		d = time.Duration(values.ToFloat(n) * float64(time.Second))
	default:
		return c.BindError("Cannot process command because of one or more missing mandatory parameters: Seconds.", "MissingMandatoryParameter")
	}
	c.I.Settle()
	if !c.I.Sys.Sleep(ctx, d) {
		return ctx.Err()
	}
	return nil
}

func sleepError(c *engine.Call, param, v string) error {
	typ := "System.Double"
	if param == "Milliseconds" {
		typ = "System.Int32"
	}
	return c.BindError(fmt.Sprintf(`Cannot bind parameter '%s'. Cannot convert value "%s" to type "%s". Error: "Input string was not in a correct format."`, param, v, typ), "CannotConvertArgumentNoMessage")
}

func getDate(_ context.Context, c *engine.Call) error {
	t := c.I.Sys.Clock.Now().Local()
	if c.Has("Date") {
		v, err := c.I.Cast("datetime", c.Get("Date"))
		if err != nil {
			return err
		}
		t = v.(time.Time)
	}
	switch {
	case c.Has("Format"):
		c.Emit(dotnet.DotnetTime(t, c.Str("Format")))
	case c.Has("UFormat"):
		c.Emit(strings.NewReplacer("%Y", t.Format("2006"), "%m", t.Format("01"), "%d", t.Format("02"), "%H", t.Format("15"),
			"%M", t.Format("04"), "%S", t.Format("05"), "%s", fmt.Sprint(t.Unix())).Replace(c.Str("UFormat")))
	default:
		c.Emit(t)
	}
	return nil
}

func invokeExpression(ctx context.Context, c *engine.Call) error {
	list, err := lang.Parse(c.Str("Command"), c.I.Pwsh7)
	if err != nil {
		return c.I.ParseFailure(err, c.Str("Command"))
	}
	// The expression's errors point into its own text, as PowerShell
	// reports them.
	outer := c.I.Src
	c.I.Src = []rune(c.Str("Command"))
	defer func() { c.I.Src = outer }()
	return c.I.ExecList(ctx, list, c.Emit)
}

// getProcess lists the container's one process, the shell itself.
func getProcess(_ context.Context, c *engine.Call) error {
	name := "powershell"
	if c.I.Pwsh7 {
		name = "pwsh"
	}
	if c.Has("Name") && !strings.EqualFold(c.Str("Name"), name) {
		return c.Fail("Cannot find a process with the name \""+c.Str("Name")+"\". Verify the process name and call the cmdlet again.",
			"ObjectNotFound", c.Str("Name"), "ProcessCommandException", "NoProcessFoundForGivenName")
	}
	c.Emit(values.NewObject("System.Diagnostics.Process", "Handles", 512, "NPM(K)", 30, "PM(K)", 60000, "WS(K)", 70000,
		"CPU(s)", 0.5, "Id", 1, "SI", 1, "ProcessName", name))
	return nil
}

func getCommand(_ context.Context, c *engine.Call) error {
	name := c.Str("Name")
	lower := strings.ToLower(name)
	// An alias is an AliasInfo ("Alias  gci -> Get-ChildItem");
	// PowerShell 7 has no curl and wget aliases (they are the programs).
	if a, ok := engine.Aliases[lower]; ok && !(c.I.Pwsh7 && (lower == "curl" || lower == "wget")) {
		target := engine.Cmdlets[a].Name
		c.Emit(values.NewObject("System.Management.Automation.AliasInfo", "CommandType", "Alias", "Name", lower+" -> "+target,
			"Version", "", "Source", "", "Definition", target, "ResolvedCommandName", target))
		return nil
	}
	if cl, ok := engine.Cmdlets[lower]; ok {
		c.Emit(values.NewObject("System.Management.Automation.CmdletInfo", "CommandType", "Cmdlet", "Name", cl.Name, "Version", "3.1.0.0", "Source", "Microsoft.PowerShell.Management"))
		return nil
	}
	if _, err := c.I.Sys.Lookup(name); err == nil {
		c.Emit(values.NewObject("System.Management.Automation.ApplicationInfo", "CommandType", "Application", "Name", name, "Version", "0.0.0.0", "Source", name))
		return nil
	}
	return c.Fail(values.NotFoundRecord(name, c.I.Pwsh7).Msg, "ObjectNotFound", name, "CommandNotFoundException", "CommandNotFoundException")
}

func getHost(_ context.Context, c *engine.Call) error {
	c.Emit(c.I.Host())
	return nil
}
