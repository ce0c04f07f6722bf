package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/eventlog"
)

// The event log cmdlets of Windows PowerShell 5.1 (Microsoft.PowerShell.
// Management's classic ones and Get-WinEvent) over the container's event
// log, program.Sys.EventLog. The machine is always the local one: the
// -ComputerName of a container names no other.
func init() {
	register("Write-EventLog", "", writeEventLog, p("LogName", 0), p("Source", 1), p("EventId", 2, "id"), p("EntryType", 3, "et"),
		p("Message", 4, "msg"), n("Category"), n("RawData"), n("ComputerName", "cn"))
	register("New-EventLog", "", newEventLog, p("LogName", 0), p("Source", 1), n("ComputerName", "cn"), n("CategoryResourceFile"),
		n("MessageResourceFile"), n("ParameterResourceFile"))
	register("Remove-EventLog", "", removeEventLog, p("LogName", 0), n("Source"), n("ComputerName", "cn"))
	register("Clear-EventLog", "", clearEventLog, p("LogName", 0), n("ComputerName", "cn"))
	register("Get-EventLog", "", getEventLog, p("LogName", 0), p("InstanceId", 1), n("Newest"), n("Source"), n("EntryType"),
		n("Message"), n("After"), n("Before"), n("Index"), n("UserName"), sw("List"), sw("AsString"), n("ComputerName", "cn"), sw("AsBaseObject"))
	register("Get-WinEvent", "", getWinEvent, p("LogName", 0), n("MaxEvents"), n("ListLog"), n("ProviderName"), sw("Oldest"),
		n("FilterHashtable"), n("FilterXPath"), n("ComputerName", "cn"))
}

const (
	eventLogEntryType  = "System.Diagnostics.EventLogEntry"
	eventLogType       = "System.Diagnostics.EventLog"
	eventLogRecordType = "System.Diagnostics.Eventing.Reader.EventLogRecord"
	eventLogConfigType = "System.Diagnostics.Eventing.Reader.EventLogConfiguration"
)

// elError is an error record of the event log cmdlets, whose ids do not
// all end in the cmdlet's class.
func (c *call) elError(msg, category, target, reason, fqid string) error {
	c.hadError = true
	rec := &errorRecord{msg: msg, cmdName: c.cl.name, category: category, target: target, reason: reason,
		fqid: fqid, src: c.i.src, pos: c.cmd.Pos, end: c.cmd.End}
	if c.stop {
		return &runtimeError{rec: rec, script: c.i.tryDepth == 0}
	}
	if !c.silent {
		c.i.errOut(rec)
	}
	return nil
}

func (c *call) need(names ...string) error {
	for _, n := range names {
		if !c.has(n) {
			// Windows PowerShell prompts for a mandatory parameter; a
			// container has no console to answer, so it fails as a
			// non-interactive host does.
			return c.bindError(fmt.Sprintf("Cannot process command because of one or more missing mandatory parameters: %s.", strings.Join(names, " ")), "MissingMandatoryParameter")
		}
	}
	return nil
}

func writeEventLog(_ context.Context, c *call) error {
	if err := c.need("LogName", "Source", "EventId", "Message"); err != nil {
		return err
	}
	store := c.i.sys.EventLog()
	logName, src := c.str("LogName"), c.str("Source")
	typ := eventlog.Information
	if c.has("EntryType") {
		t, ok := eventlog.ParseType(c.str("EntryType"))
		if !ok {
			return c.bindError(fmt.Sprintf(`Cannot bind parameter 'EntryType'. Cannot convert value "%s" to type "System.Diagnostics.EventLogEntryType". Error: "Unable to match the identifier name %s to a valid enumerator name. Specify one of the following enumerator names and try again:%sError, Warning, Information, SuccessAudit, FailureAudit"`, c.str("EntryType"), c.str("EntryType"), NL), "CannotConvertArgumentNoMessage")
		}
		typ = t
	}
	id, ok := toInt(c.get("EventId"))
	if !ok || id < 0 || id > 65535 {
		return c.bindError(fmt.Sprintf("Cannot validate argument on parameter 'EventId'. The %s argument is greater than the maximum allowed range of 65535. Supply an argument that is less than or equal to 65535 and then try the command again.", c.str("EventId")), "ParameterArgumentValidationError")
	}
	category, _ := toInt(c.get("Category"))
	registered := store.SourceLog(src)
	if registered == "" {
		return c.elError(fmt.Sprintf(`The source name "%s" does not exist on computer "localhost".`, src), "InvalidOperation", "", "Exception", "Microsoft.PowerShell.Commands.WriteEventLogCommand")
	}
	if !strings.EqualFold(registered, logName) {
		return c.elError(fmt.Sprintf("The source '%s' is not registered in log '%s'. (It is registered in log '%s'.) The Source and Log properties must be matched, or you may set Log to the empty string, and it will automatically be matched to the Source property.", src, logName, registered),
			"InvalidOperation", "", "Exception", "Microsoft.PowerShell.Commands.WriteEventLogCommand")
	}
	_, err := store.Write(eventlog.Entry{Type: typ, EventID: id, Source: src, Message: c.str("Message"), Category: category})
	if err != nil {
		return c.elError(fmt.Sprintf(`The source name "%s" does not exist on computer "localhost".`, src), "InvalidOperation", "", "Exception", "Microsoft.PowerShell.Commands.WriteEventLogCommand")
	}
	return nil
}

func newEventLog(_ context.Context, c *call) error {
	if err := c.need("LogName", "Source"); err != nil {
		return err
	}
	store := c.i.sys.EventLog()
	logName := c.str("LogName")
	for _, s := range toList(c.get("Source")) {
		src := toStr(s)
		if err := store.CreateSource(src, logName); err != nil {
			if err := c.elError(fmt.Sprintf(`The "%s" source is already registered on the "localhost" computer.`, src), "InvalidOperation", "", "InvalidOperationException", "Microsoft.PowerShell.Commands.NewEventLogCommand"); err != nil {
				return err
			}
		}
	}
	return nil
}

func removeEventLog(_ context.Context, c *call) error {
	store := c.i.sys.EventLog()
	if c.has("Source") {
		for _, s := range toList(c.get("Source")) {
			if store.DeleteSource(toStr(s)) != nil {
				if err := c.elError(fmt.Sprintf(`The source "%s" is not registered on the "localhost" computer.`, toStr(s)), "InvalidOperation", "", "InvalidOperationException", "Microsoft.PowerShell.Commands.RemoveEventLogCommand"); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := c.need("LogName"); err != nil {
		return err
	}
	for _, l := range toList(c.get("LogName")) {
		if store.DeleteLog(toStr(l)) != nil {
			if err := c.elError(fmt.Sprintf(`The Log name "%s" does not exist in the computer "localhost".`, toStr(l)), "InvalidOperation", "", "InvalidOperationException", "Microsoft.PowerShell.Commands.RemoveEventLogCommand"); err != nil {
				return err
			}
		}
	}
	return nil
}

func clearEventLog(_ context.Context, c *call) error {
	if err := c.need("LogName"); err != nil {
		return err
	}
	for _, l := range toList(c.get("LogName")) {
		if c.i.sys.EventLog().Clear(toStr(l)) != nil {
			if err := c.elError(fmt.Sprintf(`The Log name "%s" does not exist in the computer "localhost".`, toStr(l)), "InvalidOperation", "", "InvalidOperationException", "Microsoft.PowerShell.Commands.ClearEventLogCommand"); err != nil {
				return err
			}
		}
	}
	return nil
}

func getEventLog(_ context.Context, c *call) error {
	store := c.i.sys.EventLog()
	if c.flag("List") {
		for _, info := range store.List() {
			if c.flag("AsString") {
				c.emit(info.Name)
				continue
			}
			c.emit(newObject(eventLogType, "Log", info.Name, "MaximumKilobytes", info.MaxKB, "MinimumRetentionDays", info.RetainDays,
				"OverflowAction", info.Overflow, "Entries", info.Entries, "LogDisplayName", info.Name, "MachineName", "."))
		}
		return nil
	}
	if err := c.need("LogName"); err != nil {
		return err
	}
	logName := c.str("LogName")
	entries, ok := store.Entries(logName)
	if !ok {
		return c.elError(fmt.Sprintf("The event log '%s' on computer '.' does not exist.", logName), "NotSpecified", "", "InvalidOperationException", "System.InvalidOperationException,Microsoft.PowerShell.Commands.GetEventLogCommand")
	}
	match := func(name string, v string) bool {
		if !c.has(name) {
			return true
		}
		for _, w := range toList(c.get(name)) {
			if wildcard(toStr(w), v, true) {
				return true
			}
		}
		return false
	}
	filtered := c.has("Source") || c.has("EntryType") || c.has("Message") || c.has("InstanceId") || c.has("Index")
	newest := -1
	if c.has("Newest") {
		newest, _ = toInt(c.get("Newest"))
	}
	found := 0
	// Newest first, as the cmdlet reads the log backwards.
	for k := len(entries) - 1; k >= 0 && found != newest; k-- {
		e := entries[k]
		if !match("Source", e.Source) || !match("EntryType", e.Type.String()) || !match("Message", e.Message) {
			continue
		}
		if c.has("InstanceId") && !intIn(c.get("InstanceId"), e.EventID) || c.has("Index") && !intIn(c.get("Index"), e.Index) {
			continue
		}
		found++
		c.emit(c.i.eventLogEntry(e))
	}
	if found == 0 && filtered {
		return c.elError("No matches found", "ObjectNotFound", "", "ArgumentException", "GetEventLogNoEntriesFound,Microsoft.PowerShell.Commands.GetEventLogCommand")
	}
	return nil
}

func intIn(v any, n int) bool {
	for _, x := range toList(v) {
		if k, ok := toInt(x); ok && k == n {
			return true
		}
	}
	return false
}

// eventLogEntry is an entry as an EventLogEntry object.
func (i *Interp) eventLogEntry(e eventlog.Entry) *object {
	t := e.Time.Local()
	return newObject(eventLogEntryType, "EventID", e.EventID, "MachineName", strings.ToUpper(i.sys.Hostname), "Data", []any{},
		"Index", e.Index, "Category", fmt.Sprintf("(%d)", e.Category), "CategoryNumber", e.Category, "EntryType", e.Type.String(),
		"Message", e.Message, "Source", e.Source, "ReplacementStrings", []any{e.Message}, "InstanceId", e.EventID,
		"TimeGenerated", t, "TimeWritten", t, "UserName", nil, "Site", nil, "Container", nil)
}

// eventRecord is an entry as Get-WinEvent's EventLogRecord.
func (i *Interp) eventRecord(e eventlog.Entry) *object {
	return newObject(eventLogRecordType, "Message", e.Message, "Id", e.EventID, "Version", 0, "Qualifiers", 0, "Level", e.Type.Level(),
		"Task", e.Category, "Opcode", nil, "Keywords", 36028797018963968, "RecordId", e.Index, "ProviderName", e.Source, "ProviderId", nil,
		"LogName", e.Log, "ProcessId", nil, "ThreadId", nil, "MachineName", strings.ToUpper(i.sys.Hostname), "UserId", nil,
		"TimeCreated", e.Time.Local(), "LevelDisplayName", e.Type.LevelName(), "OpcodeDisplayName", "Info", "TaskDisplayName", "None",
		"KeywordsDisplayNames", []any{"Classic"})
}

func getWinEvent(_ context.Context, c *call) error {
	store := c.i.sys.EventLog()
	if c.has("ListLog") {
		for _, pat := range toList(c.get("ListLog")) {
			matched := false
			for _, info := range store.List() {
				if wildcard(toStr(pat), info.Name, true) {
					matched = true
					mode := "Circular"
					c.emit(newObject(eventLogConfigType, "LogMode", mode, "MaximumSizeInBytes", info.MaxKB*1024, "RecordCount", info.Entries, "LogName", info.Name))
				}
			}
			if !matched {
				if err := c.elError(fmt.Sprintf(`There is not an event log on the localhost computer that matches "%s".`, toStr(pat)), "ObjectNotFound", toStr(pat), "Exception", "NoMatchingLogsFound,Microsoft.PowerShell.Commands.GetWinEventCommand"); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var logs []string
	if c.has("LogName") {
		for _, l := range toList(c.get("LogName")) {
			logs = append(logs, toStr(l))
		}
	} else if c.has("FilterHashtable") {
		if h, ok := c.get("FilterHashtable").(*hashtable); ok {
			if v, ok := h.get("LogName"); ok {
				for _, l := range toList(v) {
					logs = append(logs, toStr(l))
				}
			}
		}
	}
	if len(logs) == 0 {
		return &notEmulatedError{"Get-WinEvent without -LogName or -ListLog"}
	}
	var all []eventlog.Entry
	for _, l := range logs {
		entries, ok := store.Entries(l)
		if !ok {
			if err := c.elError(fmt.Sprintf(`There is not an event log on the localhost computer that matches "%s".`, l), "ObjectNotFound", l, "Exception", "NoMatchingLogsFound,Microsoft.PowerShell.Commands.GetWinEventCommand"); err != nil {
				return err
			}
			continue
		}
		all = append(all, entries...)
	}
	max := -1
	if c.has("MaxEvents") {
		max, _ = toInt(c.get("MaxEvents"))
	}
	n := 0
	emit := func(e eventlog.Entry) bool {
		if c.has("ProviderName") && !intInStr(c.get("ProviderName"), e.Source) {
			return true
		}
		c.emit(c.i.eventRecord(e))
		n++
		return n != max
	}
	if c.flag("Oldest") {
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
		return c.elError("No events were found that match the specified selection criteria.", "ObjectNotFound", "", "Exception", "NoMatchingEventsFound,Microsoft.PowerShell.Commands.GetWinEventCommand")
	}
	return nil
}

func intInStr(v any, s string) bool {
	for _, x := range toList(v) {
		if wildcard(toStr(x), s, true) {
			return true
		}
	}
	return false
}

// eventLogStatic is [System.Diagnostics.EventLog]'s static methods:
// SourceExists, CreateEventSource, WriteEntry, Exists, Delete,
// DeleteEventSource. WriteEntry registers an unknown source in the
// Application log first, as .NET does.
func (i *Interp) eventLogStatic(name string, args []any) (any, bool, error) {
	arg := func(k int) string {
		if k < len(args) {
			return toStr(args[k])
		}
		return ""
	}
	store := i.sys.EventLog()
	canon := map[string]string{"writeentry": "WriteEntry", "createeventsource": "CreateEventSource", "deleteeventsource": "DeleteEventSource", "delete": "Delete"}
	call := func(msg string) error {
		return &runtimeError{rec: &errorRecord{msg: fmt.Sprintf(`Exception calling "%s" with "%d" argument(s): "%s"`, canon[strings.ToLower(name)], len(args), msg),
			category: "NotSpecified", reason: "MethodInvocationException", fqid: "ArgumentException"}}
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
			} else if n, ok := toInt(args[2]); ok {
				typ = eventlog.Type(n)
			}
		}
		id := 0
		if len(args) > 3 {
			id, _ = toInt(args[3])
		}
		cat := 0
		if len(args) > 4 {
			cat, _ = toInt(args[4])
		}
		_, err := store.Write(eventlog.Entry{Source: src, Message: arg(1), Type: typ, EventID: id, Category: cat})
		return nil, true, err
	}
	return nil, false, nil
}

// eventLogRow is Get-EventLog's table (DotNetTypes.format.ps1xml):
// Index, Time (MMM dd HH:mm), EntryType, Source (20 wide, cut with ...),
// InstanceID and Message.
func (f *formatter) eventLogRow(o *object) {
	layout := "%8s %-13s %-11s %-20s %12s %s"
	if f.kind != "eventlogentry" {
		f.end()
		f.kind = "eventlogentry"
		f.line("")
		f.line(fmt.Sprintf(layout, "Index", "Time", "EntryType", "Source", "InstanceID", "Message"))
		f.line(fmt.Sprintf(layout, "-----", "----", "---------", "------", "----------", "-------"))
	}
	t, _ := property(o, "TimeGenerated").(time.Time)
	f.line(strings.TrimRight(fmt.Sprintf(layout, toStr(property(o, "Index")), t.Format("Jan 02 15:04"), toStr(property(o, "EntryType")),
		cut(toStr(property(o, "Source")), 20), toStr(property(o, "InstanceId")), firstLine(toStr(property(o, "Message")))), " "))
}

// eventLogListRow is Get-EventLog -List's table.
func (f *formatter) eventLogListRow(o *object) {
	layout := "%8s %6s %-18s %10s %s"
	if f.kind != "eventloglist" {
		f.end()
		f.kind = "eventloglist"
		f.line("")
		f.line(fmt.Sprintf(layout, "Max(K)", "Retain", "OverflowAction", "Entries", "Log"))
		f.line(fmt.Sprintf(layout, "------", "------", "--------------", "-------", "---"))
	}
	kb, _ := toInt(property(o, "MaximumKilobytes"))
	n, _ := toInt(property(o, "Entries"))
	f.line(fmt.Sprintf(layout, thousands(kb), toStr(property(o, "MinimumRetentionDays")), toStr(property(o, "OverflowAction")), thousands(n), toStr(property(o, "Log"))))
}

// winEventRow is Get-WinEvent's table, grouped by provider
// (Event.format.ps1xml).
func (f *formatter) winEventRow(o *object) {
	layout := "%-23s %10s %-16s %s"
	kind := "winevent:" + toStr(property(o, "ProviderName"))
	if f.kind != kind {
		f.end()
		f.kind = kind
		f.line("")
		f.line("   ProviderName: " + toStr(property(o, "ProviderName")))
		f.line("")
		f.line(fmt.Sprintf(layout, "TimeCreated", "Id", "LevelDisplayName", "Message"))
		f.line(fmt.Sprintf(layout, "-----------", "--", "----------------", "-------"))
	}
	t, _ := property(o, "TimeCreated").(time.Time)
	f.line(strings.TrimRight(fmt.Sprintf(layout, t.Format("1/2/2006 3:04:05 PM"), toStr(property(o, "Id")), toStr(property(o, "LevelDisplayName")), firstLine(toStr(property(o, "Message")))), " "))
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
