// Package eventcmd is PowerShell's event log: Write-EventLog,
// New-EventLog, Get-EventLog, Get-WinEvent and friends, and
// [System.Diagnostics.EventLog]'s static methods, over the container's
// event log. It registers itself with the engine when imported.
package eventcmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/eventlog"
	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/format"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// The event log cmdlets of Windows PowerShell 5.1 (Microsoft.PowerShell.
// Management's classic ones and Get-WinEvent) over the container's event
// log, program.Sys.EventLog. The machine is always the local one: the
// -ComputerName of a container names no other.
func init() {
	engine.Register("Write-EventLog", "", writeEventLog, engine.P("LogName", 0), engine.P("Source", 1), engine.P("EventId", 2, "id"), engine.P("EntryType", 3, "et"),
		engine.P("Message", 4, "msg"), engine.N("Category"), engine.N("RawData"), engine.N("ComputerName", "cn"))
	engine.Register("New-EventLog", "", newEventLog, engine.P("LogName", 0), engine.P("Source", 1), engine.N("ComputerName", "cn"), engine.N("CategoryResourceFile"),
		engine.N("MessageResourceFile"), engine.N("ParameterResourceFile"))
	engine.Register("Remove-EventLog", "", removeEventLog, engine.P("LogName", 0), engine.N("Source"), engine.N("ComputerName", "cn"))
	engine.Register("Clear-EventLog", "", clearEventLog, engine.P("LogName", 0), engine.N("ComputerName", "cn"))
	engine.Register("Get-EventLog", "", getEventLog, engine.P("LogName", 0), engine.P("InstanceId", 1), engine.N("Newest"), engine.N("Source"), engine.N("EntryType"),
		engine.N("Message"), engine.N("After"), engine.N("Before"), engine.N("Index"), engine.N("UserName"), engine.Sw("List"), engine.Sw("AsString"), engine.N("ComputerName", "cn"), engine.Sw("AsBaseObject"))
	engine.Register("Get-WinEvent", "", getWinEvent, engine.P("LogName", 0), engine.N("MaxEvents"), engine.N("ListLog"), engine.N("ProviderName"), engine.Sw("Oldest"),
		engine.N("FilterHashtable"), engine.N("FilterXPath"), engine.N("ComputerName", "cn"))
	engine.RegisterStatic("diagnostics.eventlog", eventLogStatic)
	format.RegisterFormat(eventLogEntryType, eventLogRow)
	format.RegisterFormat(eventLogType, eventLogListRow)
	format.RegisterFormat(eventLogRecordType, winEventRow)
}

const (
	eventLogEntryType  = "System.Diagnostics.EventLogEntry"
	eventLogType       = "System.Diagnostics.EventLog"
	eventLogRecordType = "System.Diagnostics.Eventing.Reader.EventLogRecord"
	eventLogConfigType = "System.Diagnostics.Eventing.Reader.EventLogConfiguration"
)

// elError is an error record of the event log cmdlets, whose ids do not
// all end in the cmdlet's class.
func elError(c *engine.Call, msg, category, target, reason, fqid string) error {
	c.HadError = true
	rec := &values.ErrorRecord{Msg: msg, CmdName: c.Cl.Name, Category: category, Target: target, Reason: reason,
		Fqid: fqid, Src: c.I.Src, Pos: c.Cmd.Pos, End: c.Cmd.End}
	return c.Report(rec)
}

func need(c *engine.Call, names ...string) error {
	var missing []string
	for _, n := range names {
		if !c.Has(n) {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		// Windows PowerShell prompts for a mandatory parameter; a
		// container has no console to answer, so it fails as a
		// non-interactive host does, naming the missing ones.
		return c.BindError(fmt.Sprintf("Cannot process command because of one or more missing mandatory parameters: %s.", strings.Join(missing, " ")), "MissingMandatoryParameter")
	}
	return nil
}

func writeEventLog(_ context.Context, c *engine.Call) error {
	if err := need(c, "LogName", "Source", "EventId", "Message"); err != nil {
		return err
	}
	store := c.I.Sys.EventLog()
	logName, src := c.Str("LogName"), c.Str("Source")
	typ := eventlog.Information
	if c.Has("EntryType") {
		t, ok := eventlog.ParseType(c.Str("EntryType"))
		if !ok {
			return c.BindError(fmt.Sprintf(`Cannot bind parameter 'EntryType'. Cannot convert value "%s" to type "System.Diagnostics.EventLogEntryType". Error: "Unable to match the identifier name %s to a valid enumerator name. Specify one of the following enumerator names and try again:%sError, Warning, Information, SuccessAudit, FailureAudit"`, c.Str("EntryType"), c.Str("EntryType"), values.NL), "CannotConvertArgumentNoMessage")
		}
		typ = t
	}
	id, ok := values.ToInt(c.Get("EventId"))
	if !ok || id < 0 || id > 65535 {
		return c.BindError(fmt.Sprintf("Cannot validate argument on parameter 'EventId'. The %s argument is greater than the maximum allowed range of 65535. Supply an argument that is less than or equal to 65535 and then try the command again.", c.Str("EventId")), "ParameterArgumentValidationError")
	}
	category, _ := values.ToInt(c.Get("Category"))
	registered := store.SourceLog(src)
	if registered == "" {
		return elError(c, fmt.Sprintf(`The source name "%s" does not exist on computer "localhost".`, src), "InvalidOperation", "", "Exception", "Microsoft.PowerShell.Commands.WriteEventLogCommand")
	}
	if !strings.EqualFold(registered, logName) {
		return elError(c, fmt.Sprintf("The source '%s' is not registered in log '%s'. (It is registered in log '%s'.) The Source and Log properties must be matched, or you may set Log to the empty string, and it will automatically be matched to the Source property.", src, logName, registered),
			"InvalidOperation", "", "Exception", "Microsoft.PowerShell.Commands.WriteEventLogCommand")
	}
	_, err := store.Write(eventlog.Entry{Type: typ, EventID: id, Source: src, Message: c.Str("Message"), Category: category})
	if err != nil {
		return elError(c, fmt.Sprintf(`The source name "%s" does not exist on computer "localhost".`, src), "InvalidOperation", "", "Exception", "Microsoft.PowerShell.Commands.WriteEventLogCommand")
	}
	return nil
}

func newEventLog(_ context.Context, c *engine.Call) error {
	if err := need(c, "LogName", "Source"); err != nil {
		return err
	}
	store := c.I.Sys.EventLog()
	logName := c.Str("LogName")
	for _, s := range values.ToList(c.Get("Source")) {
		src := values.ToStr(s)
		if err := store.CreateSource(src, logName); err != nil {
			if err := elError(c, fmt.Sprintf(`The "%s" source is already registered on the "localhost" computer.`, src), "InvalidOperation", "", "InvalidOperationException", "Microsoft.PowerShell.Commands.NewEventLogCommand"); err != nil {
				return err
			}
		}
	}
	return nil
}

func removeEventLog(_ context.Context, c *engine.Call) error {
	store := c.I.Sys.EventLog()
	if c.Has("Source") {
		for _, s := range values.ToList(c.Get("Source")) {
			if store.DeleteSource(values.ToStr(s)) != nil {
				if err := elError(c, fmt.Sprintf(`The source "%s" is not registered on the "localhost" computer.`, values.ToStr(s)), "InvalidOperation", "", "InvalidOperationException", "Microsoft.PowerShell.Commands.RemoveEventLogCommand"); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := need(c, "LogName"); err != nil {
		return err
	}
	for _, l := range values.ToList(c.Get("LogName")) {
		if store.DeleteLog(values.ToStr(l)) != nil {
			if err := elError(c, fmt.Sprintf(`The Log name "%s" does not exist in the computer "localhost".`, values.ToStr(l)), "InvalidOperation", "", "InvalidOperationException", "Microsoft.PowerShell.Commands.RemoveEventLogCommand"); err != nil {
				return err
			}
		}
	}
	return nil
}

func clearEventLog(_ context.Context, c *engine.Call) error {
	if err := need(c, "LogName"); err != nil {
		return err
	}
	for _, l := range values.ToList(c.Get("LogName")) {
		if c.I.Sys.EventLog().Clear(values.ToStr(l)) != nil {
			if err := elError(c, fmt.Sprintf(`The Log name "%s" does not exist in the computer "localhost".`, values.ToStr(l)), "InvalidOperation", "", "InvalidOperationException", "Microsoft.PowerShell.Commands.ClearEventLogCommand"); err != nil {
				return err
			}
		}
	}
	return nil
}

func getEventLog(_ context.Context, c *engine.Call) error {
	store := c.I.Sys.EventLog()
	if c.Flag("List") {
		for _, info := range store.List() {
			if c.Flag("AsString") {
				c.Emit(info.Name)
				continue
			}
			c.Emit(values.NewObject(eventLogType, "Log", info.Name, "MaximumKilobytes", info.MaxKB, "MinimumRetentionDays", info.RetainDays,
				"OverflowAction", info.Overflow, "Entries", values.NewRecord("System.Diagnostics.EventLogEntryCollection", "", "Count", info.Entries), "LogDisplayName", info.Name, "MachineName", "."))
		}
		return nil
	}
	if err := need(c, "LogName"); err != nil {
		return err
	}
	logName := c.Str("LogName")
	entries, ok := store.Entries(logName)
	if !ok {
		return elError(c, fmt.Sprintf("The event log '%s' on computer '.' does not exist.", logName), "NotSpecified", "", "InvalidOperationException", "System.InvalidOperationException,Microsoft.PowerShell.Commands.GetEventLogCommand")
	}
	match := func(name string, v string) bool {
		if !c.Has(name) {
			return true
		}
		for _, w := range values.ToList(c.Get(name)) {
			if dotnet.Wildcard(values.ToStr(w), v, true) {
				return true
			}
		}
		return false
	}
	filtered := c.Has("Source") || c.Has("EntryType") || c.Has("Message") || c.Has("InstanceId") || c.Has("Index") ||
		c.Has("After") || c.Has("Before")
	// -After and -Before bound the entries' TimeGenerated.
	var after, before time.Time
	for name, t := range map[string]*time.Time{"After": &after, "Before": &before} {
		if !c.Has(name) {
			continue
		}
		v, err := c.I.Cast("datetime", c.Get(name))
		if err != nil {
			return err
		}
		*t = v.(time.Time)
	}
	newest := -1
	if c.Has("Newest") {
		newest, _ = values.ToInt(c.Get("Newest"))
	}
	found := 0
	// Newest first, as the cmdlet reads the log backwards.
	for k := len(entries) - 1; k >= 0 && found != newest; k-- {
		e := entries[k]
		if !match("Source", e.Source) || !match("EntryType", e.Type.String()) || !match("Message", e.Message) {
			continue
		}
		if c.Has("InstanceId") && !intIn(c.Get("InstanceId"), e.EventID) || c.Has("Index") && !intIn(c.Get("Index"), e.Index) {
			continue
		}
		if !after.IsZero() && !e.Time.After(after) || !before.IsZero() && !e.Time.Before(before) {
			continue
		}
		found++
		c.Emit(eventLogEntry(c.I, e))
	}
	if found == 0 && filtered {
		return elError(c, "No matches found", "ObjectNotFound", "", "ArgumentException", "GetEventLogNoEntriesFound,Microsoft.PowerShell.Commands.GetEventLogCommand")
	}
	return nil
}

func intIn(v any, n int) bool {
	for _, x := range values.ToList(v) {
		if k, ok := values.ToInt(x); ok && k == n {
			return true
		}
	}
	return false
}

// eventLogEntry is an entry as an EventLogEntry object.
func eventLogEntry(i *engine.Interp, e eventlog.Entry) *values.Object {
	t := e.Time.Local()
	return values.NewObject(eventLogEntryType, "EventID", e.EventID, "MachineName", strings.ToUpper(i.Sys.Hostname), "Data", []any{},
		"Index", e.Index, "Category", fmt.Sprintf("(%d)", e.Category), "CategoryNumber", e.Category, "EntryType", e.Type.String(),
		"Message", e.Message, "Source", e.Source, "ReplacementStrings", []any{e.Message}, "InstanceId", e.EventID,
		"TimeGenerated", t, "TimeWritten", t, "UserName", nil, "Site", nil, "Container", nil)
}

// eventRecord is an entry as Get-WinEvent's EventLogRecord.
func eventRecord(i *engine.Interp, e eventlog.Entry) *values.Object {
	return values.NewObject(eventLogRecordType, "Message", e.Message, "Id", e.EventID, "Version", 0, "Qualifiers", 0, "Level", e.Type.Level(),
		"Task", e.Category, "Opcode", nil, "Keywords", 36028797018963968, "RecordId", e.Index, "ProviderName", e.Source, "ProviderId", nil,
		"LogName", e.Log, "ProcessId", nil, "ThreadId", nil, "MachineName", strings.ToUpper(i.Sys.Hostname), "UserId", nil,
		"TimeCreated", e.Time.Local(), "LevelDisplayName", e.Type.LevelName(), "OpcodeDisplayName", "Info", "TaskDisplayName", "None",
		"KeywordsDisplayNames", []any{"Classic"})
}

func getWinEvent(_ context.Context, c *engine.Call) error {
	store := c.I.Sys.EventLog()
	if c.Has("ListLog") {
		for _, pat := range values.ToList(c.Get("ListLog")) {
			matched := false
			for _, info := range store.List() {
				if dotnet.Wildcard(values.ToStr(pat), info.Name, true) {
					matched = true
					mode := "Circular"
					c.Emit(values.NewObject(eventLogConfigType, "LogMode", mode, "MaximumSizeInBytes", info.MaxKB*1024, "RecordCount", info.Entries, "LogName", info.Name))
				}
			}
			if !matched {
				if err := elError(c, fmt.Sprintf(`There is not an event log on the localhost computer that matches "%s".`, values.ToStr(pat)), "ObjectNotFound", values.ToStr(pat), "Exception", "NoMatchingLogsFound,Microsoft.PowerShell.Commands.GetWinEventCommand"); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var logs []string
	if c.Has("LogName") {
		for _, l := range values.ToList(c.Get("LogName")) {
			logs = append(logs, values.ToStr(l))
		}
	} else if c.Has("FilterHashtable") {
		if h, ok := c.Get("FilterHashtable").(*values.Hashtable); ok {
			if v, ok := h.Get("LogName"); ok {
				for _, l := range values.ToList(v) {
					logs = append(logs, values.ToStr(l))
				}
			}
		}
	}
	if len(logs) == 0 {
		return &values.NotEmulatedError{What: "Get-WinEvent without -LogName or -ListLog"}
	}
	var all []eventlog.Entry
	for _, l := range logs {
		entries, ok := store.Entries(l)
		if !ok {
			if err := elError(c, fmt.Sprintf(`There is not an event log on the localhost computer that matches "%s".`, l), "ObjectNotFound", l, "Exception", "NoMatchingLogsFound,Microsoft.PowerShell.Commands.GetWinEventCommand"); err != nil {
				return err
			}
			continue
		}
		all = append(all, entries...)
	}
	max := -1
	if c.Has("MaxEvents") {
		max, _ = values.ToInt(c.Get("MaxEvents"))
	}
	n := 0
	emit := func(e eventlog.Entry) bool {
		if c.Has("ProviderName") && !intInStr(c.Get("ProviderName"), e.Source) {
			return true
		}
		c.Emit(eventRecord(c.I, e))
		n++
		return n != max
	}
	if c.Flag("Oldest") {
		for _, e := range all {
			if !emit(e) {
				break
			}
		}
	} else {
		for k := len(all) - 1; k >= 0; k-- {
			if !emit(all[k]) {
				break
			}
		}
	}
	if n == 0 && len(all) >= 0 {
		return elError(c, "No events were found that match the specified selection criteria.", "ObjectNotFound", "", "Exception", "NoMatchingEventsFound,Microsoft.PowerShell.Commands.GetWinEventCommand")
	}
	return nil
}

func intInStr(v any, s string) bool {
	for _, x := range values.ToList(v) {
		if dotnet.Wildcard(values.ToStr(x), s, true) {
			return true
		}
	}
	return false
}

// eventLogStatic is [System.Diagnostics.EventLog]'s static methods:
// SourceExists, CreateEventSource, WriteEntry, Exists, Delete,
// DeleteEventSource. WriteEntry registers an unknown source in the
// Application log first, as .NET does.
func eventLogStatic(_ context.Context, i *engine.Interp, name string, args []any) (any, bool, error) {
	arg := func(k int) string {
		if k < len(args) {
			return values.ToStr(args[k])
		}
		return ""
	}
	store := i.Sys.EventLog()
	canon := map[string]string{"writeentry": "WriteEntry", "createeventsource": "CreateEventSource", "deleteeventsource": "DeleteEventSource", "delete": "Delete"}
	call := func(msg string) error {
		return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: fmt.Sprintf(`Exception calling "%s" with "%d" argument(s): "%s"`, canon[strings.ToLower(name)], len(args), msg),
			Category: "NotSpecified", Reason: "MethodInvocationException", Fqid: "ArgumentException"}}
	}
	switch strings.ToLower(name) {
	case "sourceexists":
		return store.SourceLog(arg(0)) != "", true, nil
	case "exists":
		_, ok := store.LogName(arg(0))
		return ok, true, nil
	case "logfromsourcename":
		return store.SourceLog(arg(0)), true, nil
	case "createeventsource":
		if store.CreateSource(arg(0), arg(1)) != nil {
			return nil, true, call(fmt.Sprintf("Source %s already exists on the local computer.", arg(0)))
		}
		return nil, true, nil
	case "deleteeventsource":
		if store.DeleteSource(arg(0)) != nil {
			return nil, true, call(fmt.Sprintf("The source '%s' is not registered on machine '.', ", arg(0)))
		}
		return nil, true, nil
	case "delete":
		if store.DeleteLog(arg(0)) != nil {
			return nil, true, call(fmt.Sprintf("The event log '%s' on computer '.' does not exist.", arg(0)))
		}
		return nil, true, nil
	case "writeentry":
		if len(args) < 2 {
			return nil, true, call("Source property was not set before writing to the event log.")
		}
		src := arg(0)
		if store.SourceLog(src) == "" {
			_ = store.CreateSource(src, "Application")
		}
		typ := eventlog.Information
		if len(args) > 2 {
			if t, ok := eventlog.ParseType(arg(2)); ok {
				typ = t
			} else if n, ok := values.ToInt(args[2]); ok {
				typ = eventlog.Type(n)
			}
		}
		id := 0
		if len(args) > 3 {
			id, _ = values.ToInt(args[3])
		}
		cat := 0
		if len(args) > 4 {
			cat, _ = values.ToInt(args[4])
		}
		_, err := store.Write(eventlog.Entry{Source: src, Message: arg(1), Type: typ, EventID: id, Category: cat})
		return nil, true, err
	}
	return nil, false, nil
}

// eventLogRow is Get-EventLog's table (DotNetTypes.format.ps1xml):
// Index, Time (MMM dd HH:mm), EntryType, Source (20 wide, cut with ...),
// InstanceID and Message.
func eventLogRow(f *format.Formatter, o *values.Object) {
	layout := "%8s %-13s %-11s %-20s %12s %s"
	if f.Kind != "eventlogentry" {
		f.End()
		f.Kind = "eventlogentry"
		f.Line("")
		f.Line(fmt.Sprintf(layout, "Index", "Time", "EntryType", "Source", "InstanceID", "Message"))
		f.Line(fmt.Sprintf(layout, "-----", "----", "---------", "------", "----------", "-------"))
	}
	t, _ := dotnet.Property(o, "TimeGenerated").(time.Time)
	f.Line(strings.TrimRight(fmt.Sprintf(layout, values.ToStr(dotnet.Property(o, "Index")), t.Format("Jan 02 15:04"), values.ToStr(dotnet.Property(o, "EntryType")),
		cut(values.ToStr(dotnet.Property(o, "Source")), 20), values.ToStr(dotnet.Property(o, "InstanceId")), firstLine(values.ToStr(dotnet.Property(o, "Message")))), " "))
}

// eventLogListRow is Get-EventLog -List's table.
func eventLogListRow(f *format.Formatter, o *values.Object) {
	layout := "%8s %6s %-18s %10s %s"
	if f.Kind != "eventloglist" {
		f.End()
		f.Kind = "eventloglist"
		f.Line("")
		f.Line(fmt.Sprintf(layout, "Max(K)", "Retain", "OverflowAction", "Entries", "Log"))
		f.Line(fmt.Sprintf(layout, "------", "------", "--------------", "-------", "---"))
	}
	kb, _ := values.ToInt(dotnet.Property(o, "MaximumKilobytes"))
	n, _ := values.ToInt(dotnet.Property(dotnet.Property(o, "Entries"), "Count"))
	f.Line(fmt.Sprintf(layout, thousands(kb), values.ToStr(dotnet.Property(o, "MinimumRetentionDays")), values.ToStr(dotnet.Property(o, "OverflowAction")), thousands(n), values.ToStr(dotnet.Property(o, "Log"))))
}

// winEventRow is Get-WinEvent's table, grouped by provider
// (Event.format.ps1xml).
func winEventRow(f *format.Formatter, o *values.Object) {
	layout := "%-23s %10s %-16s %s"
	kind := "winevent:" + values.ToStr(dotnet.Property(o, "ProviderName"))
	if f.Kind != kind {
		f.End()
		f.Kind = kind
		f.Line("")
		f.Line("   ProviderName: " + values.ToStr(dotnet.Property(o, "ProviderName")))
		f.Line("")
		f.Line(fmt.Sprintf(layout, "TimeCreated", "Id", "LevelDisplayName", "Message"))
		f.Line(fmt.Sprintf(layout, "-----------", "--", "----------------", "-------"))
	}
	t, _ := dotnet.Property(o, "TimeCreated").(time.Time)
	f.Line(strings.TrimRight(fmt.Sprintf(layout, t.Format("1/2/2006 3:04:05 PM"), values.ToStr(dotnet.Property(o, "Id")), values.ToStr(dotnet.Property(o, "LevelDisplayName")), firstLine(values.ToStr(dotnet.Property(o, "Message")))), " "))
}

func cut(s string, w int) string {
	if len(s) > w {
		return s[:w-3] + "..."
	}
	return s
}

func firstLine(s string) string {
	if k := strings.IndexAny(s, "\r\n"); k >= 0 {
		return s[:k] + "..."
	}
	return s
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for k := len(s) - 3; k > 0; k -= 3 {
		s = s[:k] + "," + s[k:]
	}
	return s
}
