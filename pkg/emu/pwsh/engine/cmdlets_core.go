package engine

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
)

func init() {
	register("Write-Host", "", writeHost, rest("Object"), sw("NoNewline"), n("Separator"), n("ForegroundColor", "fore"), n("BackgroundColor"))
	register("Write-Output", "echo write", writeOutput, rest("InputObject"), sw("NoEnumerate"))
	register("Write-Error", "", writeError, p("Message", 0), n("Category"), n("ErrorId"))
	register("Write-Warning", "", writeStream("WARNING: "), p("Message", 0))
	register("Write-Verbose", "", writeStream(""), p("Message", 0))
	register("Write-Debug", "", writeStream(""), p("Message", 0))
	register("Write-Information", "", writeStream("+"), p("MessageData", 0))
	register("Out-Null", "", func(context.Context, *call) error { return nil }, n("InputObject"))
	register("Out-Default", "", passThrough, n("InputObject"))
	register("Out-Host", "oh", passThrough, n("InputObject"))
	register("Out-String", "", outString, n("InputObject"), sw("Stream"), n("Width"))
	register("ForEach-Object", "% foreach", forEachObject, p("Process", 0), n("Begin"), n("End"), p("MemberName", 1))
	register("Where-Object", "? where", whereObject, p("FilterScript", 0), p("Value", 1))
	register("Select-Object", "select", selectObject, p("Property", 0), n("First"), n("Last"), n("Skip"), n("ExpandProperty"), sw("Unique"))
	register("Measure-Object", "measure", measureObject, p("Property", 0), sw("Sum"), sw("Line"))
	register("Sort-Object", "sort", sortObject, p("Property", 0), sw("Descending"), sw("Unique"))
	register("Start-Sleep", "sleep", startSleep, p("Seconds", 0, "s"), n("Milliseconds", "ms", "m"), n("Duration"))
	register("Get-Date", "", getDate, p("Date", 0), n("Format"), n("UFormat"))
	register("Invoke-Expression", "iex", invokeExpression, p("Command", 0))
	register("Get-Process", "ps gps", getProcess, p("Name", 0), n("Id"))
	register("Get-Command", "gcm", getCommand, p("Name", 0))
	register("Get-Host", "", getHost)
	register("Clear-Host", "cls clear", func(_ context.Context, c *call) error {
		io.WriteString(c.i.hostOut, "\x1b[2J\x1b[H")
		return nil
	})
}

func passThrough(_ context.Context, c *call) error {
	for _, v := range c.items("InputObject") {
		c.emit(v)
	}
	return nil
}

// writeHost prints to the console (the information stream), not to the
// pipeline.
func writeHost(_ context.Context, c *call) error {
	sep := " "
	if c.has("Separator") {
		sep = c.str("Separator")
	}
	var parts []string
	for _, v := range toList(c.get("Object")) {
		if list, ok := v.([]any); ok {
			parts = append(parts, joinValues(list, sep))
		} else {
			parts = append(parts, toStr(v))
		}
	}
	text := strings.Join(parts, sep)
	if !c.flag("NoNewline") {
		text += NL
	}
	io.WriteString(c.i.hostOut, text)
	return nil
}

func writeOutput(_ context.Context, c *call) error {
	for _, v := range c.items("InputObject") {
		if list, ok := v.([]any); ok && !c.flag("NoEnumerate") {
			for _, e := range list {
				c.emit(e)
			}
			continue
		}
		c.emit(v)
	}
	return nil
}

// writeError reports a non-terminating error; the statement's text is
// its prefix, as when Windows PowerShell runs a -Command.
func writeError(_ context.Context, c *call) error {
	msg := c.str("Message")
	if c.piped && !c.has("Message") {
		msg = toStr(fromList(c.input))
	}
	c.hadError = true
	rec := &errorRecord{msg: msg, cmdName: "Write-Error", category: "NotSpecified", reason: "WriteErrorException",
		fqid: "Microsoft.PowerShell.Commands.WriteErrorException", noPos: true}
	if c.i.src != nil {
		rec.invoked = strings.TrimSpace(string(c.i.src[c.cmd.Pos:min(c.cmd.End, len(c.i.src))]))
	}
	if c.stop {
		return &runtimeError{rec: rec, script: c.i.tryDepth == 0}
	}
	if !c.silent {
		c.i.errOut(rec)
	}
	return nil
}

// writeStream is Write-Warning and friends; only warnings show by
// default.
func writeStream(prefix string) func(context.Context, *call) error {
	return func(_ context.Context, c *call) error {
		if prefix == "WARNING: " {
			io.WriteString(c.i.hostOut, prefix+c.str("Message")+NL)
		}
		return nil
	}
}

func outString(_ context.Context, c *call) error {
	var b strings.Builder
	f := c.i.newFormatter(&b)
	for _, v := range c.items("InputObject") {
		f.write(v)
	}
	f.flush()
	if c.flag("Stream") {
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), NL), NL) {
			c.emit(line)
		}
		return nil
	}
	c.emit(b.String())
	return nil
}

// eachInput runs a script block once per input object, with $_ set.
func (c *call) eachInput(ctx context.Context, sb *scriptBlock, item any, emit func(any)) error {
	// The block runs in the caller's scope, as PowerShell runs the
	// blocks of ForEach-Object and Where-Object: what it assigns
	// ($count += 1) stays after it; only $_ is the item's meanwhile.
	top := c.i.scopes[len(c.i.scopes)-1]
	saved := map[string]any{}
	for _, name := range []string{"_", "psitem"} {
		if v, ok := top[name]; ok {
			saved[name] = v
		}
		top[name] = item
	}
	defer func() {
		for _, name := range []string{"_", "psitem"} {
			if v, ok := saved[name]; ok {
				top[name] = v
			} else {
				delete(top, name)
			}
		}
	}()
	return c.i.execList(ctx, sb.stmts, emit)
}

func forEachObject(ctx context.Context, c *call) error {
	if sb, ok := c.get("Begin").(*scriptBlock); ok {
		if err := c.i.execList(ctx, sb.stmts, c.emit); err != nil {
			return err
		}
	}
	proc := c.get("Process")
	for _, item := range c.input {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch sb := proc.(type) {
		case *scriptBlock:
			if err := c.eachInput(ctx, sb, item, c.emit); err != nil {
				return err
			}
		default: // % Name: a property
			if v := property(item, toStr(sb)); v != nil {
				c.emit(v)
			}
		}
	}
	if sb, ok := c.get("End").(*scriptBlock); ok {
		return c.i.execList(ctx, sb.stmts, c.emit)
	}
	return nil
}

func whereObject(ctx context.Context, c *call) error {
	for _, item := range c.input {
		sb, ok := c.get("FilterScript").(*scriptBlock)
		if !ok {
			if toBool(property(item, c.str("FilterScript"))) {
				c.emit(item)
			}
			continue
		}
		var out []any
		if err := c.eachInput(ctx, sb, item, func(v any) { out = append(out, v) }); err != nil {
			return err
		}
		if toBool(fromList(out)) {
			c.emit(item)
		}
	}
	return nil
}

func selectObject(_ context.Context, c *call) error {
	items := c.input
	if c.has("Skip") {
		k, _ := toInt(c.get("Skip"))
		items = items[min(k, len(items)):]
	}
	if c.has("First") {
		k, _ := toInt(c.get("First"))
		items = items[:min(k, len(items))]
	}
	if c.has("Last") {
		k, _ := toInt(c.get("Last"))
		items = items[max(0, len(items)-k):]
	}
	for _, item := range items {
		switch {
		case c.has("ExpandProperty"):
			for _, v := range toList(property(item, c.str("ExpandProperty"))) {
				c.emit(v)
			}
		case c.has("Property"):
			o := newObject("System.Management.Automation.PSCustomObject")
			for _, name := range toList(c.get("Property")) {
				o.set(toStr(name), property(item, toStr(name)))
			}
			c.emit(o)
		default:
			c.emit(item)
		}
	}
	return nil
}

func measureObject(_ context.Context, c *call) error {
	o := newObject("Microsoft.PowerShell.Commands.GenericMeasureInfo", "Count", len(c.input), "Average", nil, "Sum", nil,
		"Maximum", nil, "Minimum", nil, "Property", nil)
	if c.flag("Sum") {
		var sum any = 0
		for _, v := range c.input {
			if c.has("Property") {
				v = property(v, c.str("Property"))
			}
			sum, _ = arith("+", sum, v)
		}
		o.set("Sum", sum)
	}
	c.emit(o)
	return nil
}

func sortObject(_ context.Context, c *call) error {
	items := append([]any{}, c.input...)
	key := func(v any) any {
		if c.has("Property") {
			return property(v, c.str("Property"))
		}
		return v
	}
	sort.SliceStable(items, func(a, b int) bool {
		r := compare(key(items[a]), key(items[b]), true)
		if c.flag("Descending") {
			return r > 0
		}
		return r < 0
	})
	for k, v := range items {
		if c.flag("Unique") && k > 0 && equal(v, items[k-1], true) {
			continue
		}
		c.emit(v)
	}
	return nil
}

// startSleep waits on the container's clock.
func startSleep(ctx context.Context, c *call) error {
	var d time.Duration
	switch {
	case c.has("Milliseconds"):
		n, ok := toNumber(c.get("Milliseconds"))
		if !ok {
			return c.sleepError(c.str("Milliseconds"))
		}
		d = time.Duration(toFloat(n) * float64(time.Millisecond))
	case c.has("Seconds"):
		n, ok := toNumber(c.get("Seconds"))
		if !ok {
			return c.sleepError(c.str("Seconds"))
		}
		d = time.Duration(toFloat(n) * float64(time.Second))
	default:
		return c.bindError("Cannot process command because of one or more missing mandatory parameters: Seconds.", "MissingMandatoryParameter")
	}
	if !c.i.sys.Sleep(ctx, d) {
		return ctx.Err()
	}
	return nil
}

func (c *call) sleepError(v string) error {
	return c.bindError(fmt.Sprintf(`Cannot bind parameter 'Seconds'. Cannot convert value "%s" to type "System.Double". Error: "Input string was not in a correct format."`, v), "CannotConvertArgumentNoMessage")
}

func getDate(_ context.Context, c *call) error {
	t := c.i.sys.Clock.Now().Local()
	if c.has("Date") {
		v, err := c.i.cast("datetime", c.get("Date"))
		if err != nil {
			return err
		}
		t = v.(time.Time)
	}
	switch {
	case c.has("Format"):
		c.emit(dotnetTime(t, c.str("Format")))
	case c.has("UFormat"):
		c.emit(strings.NewReplacer("%Y", t.Format("2006"), "%m", t.Format("01"), "%d", t.Format("02"), "%H", t.Format("15"),
			"%M", t.Format("04"), "%S", t.Format("05"), "%s", fmt.Sprint(t.Unix())).Replace(c.str("UFormat")))
	default:
		c.emit(t)
	}
	return nil
}

func invokeExpression(ctx context.Context, c *call) error {
	list, err := lang.ParseStatements(c.str("Command"))
	if err != nil {
		return c.i.parseFailure(err, c.str("Command"))
	}
	return c.i.execList(ctx, list, c.emit)
}

// getProcess lists the container's one process, the shell itself.
func getProcess(_ context.Context, c *call) error {
	name := "powershell"
	if c.i.pwsh7 {
		name = "pwsh"
	}
	if c.has("Name") && !strings.EqualFold(c.str("Name"), name) {
		return c.fail("Cannot find a process with the name \""+c.str("Name")+"\". Verify the process name and call the cmdlet again.",
			"ObjectNotFound", c.str("Name"), "ProcessCommandException", "NoProcessFoundForGivenName")
	}
	c.emit(newObject("System.Diagnostics.Process", "Handles", 512, "NPM(K)", 30, "PM(K)", 60000, "WS(K)", 70000,
		"CPU(s)", 0.5, "Id", 1, "SI", 1, "ProcessName", name))
	return nil
}

func getCommand(_ context.Context, c *call) error {
	name := c.str("Name")
	lower := strings.ToLower(name)
	if a, ok := aliases[lower]; ok {
		lower = a
	}
	if cl, ok := cmdlets[lower]; ok {
		c.emit(newObject("System.Management.Automation.CmdletInfo", "CommandType", "Cmdlet", "Name", cl.name, "Version", "3.1.0.0", "Source", "Microsoft.PowerShell.Management"))
		return nil
	}
	if _, err := c.i.sys.Lookup(name); err == nil {
		c.emit(newObject("System.Management.Automation.ApplicationInfo", "CommandType", "Application", "Name", name, "Version", "0.0.0.0", "Source", name))
		return nil
	}
	return c.fail(notFoundRecord(name, c.i.pwsh7).msg, "ObjectNotFound", name, "CommandNotFoundException", "CommandNotFoundException")
}

func getHost(_ context.Context, c *call) error {
	v := c.i.sys.OS.PSVersion
	if c.i.pwsh7 {
		v = pwsh7Version
	}
	c.emit(newObject("System.Management.Automation.Internal.Host.InternalHost", "Name", "ConsoleHost", "Version", v))
	return nil
}
