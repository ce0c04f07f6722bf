package winexe

import (
	"context"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/eventlog"
	"github.com/winkube/winkube/pkg/emu/program"
)

// The event log's command-line tools: eventcreate.exe and wevtutil.exe,
// over the container's event log (program.Sys.EventLog).

// userSID is the SID of the container's account, as events record it.
func userSID(sys *program.Sys) (sid, name string) {
	name = account(sys)
	switch {
	case strings.HasSuffix(name, `\containeradministrator`):
		return "S-1-5-93-2-1", `User Manager\ContainerAdministrator`
	case strings.HasSuffix(name, `\containeruser`):
		return "S-1-5-93-2-2", `User Manager\ContainerUser`
	}
	return "S-1-5-18", `NT AUTHORITY\SYSTEM`
}

const eventcreateUsage = `
EVENTCREATE [/S system [/U username [/P [password]]]] /ID eventid
            [/L logname] [/SO srcname] /T type /D description

Description:
    This command line tool enables an administrator to create
    a custom event ID and message in a specified event log.
`

// Eventcreate writes an event: /T type, /ID 1-1000, /D description, /L
// log (Application), /SO source (EventCreate). It writes only with
// sources it registered itself, registering a new one in the log named.
func Eventcreate(_ context.Context, p *program.Proc) int {
	opts := map[string]string{}
	usage := func(msg string) int {
		fmt.Fprint(p.Stderr, msg+nl+`Type "EVENTCREATE /?" for usage.`+nl)
		return 1
	}
	args := p.Args[1:]
	for k := 0; k < len(args); k++ {
		a := strings.ToLower(args[k])
		switch a {
		case "/?", "-?":
			io.WriteString(p.Stdout, strings.ReplaceAll(eventcreateUsage, "\n", nl))
			return 0
		case "/t", "/id", "/l", "/so", "/d", "/s", "/u", "/p", "-t", "-id", "-l", "-so", "-d", "-s", "-u", "-p":
			if k+1 >= len(args) {
				return usage(fmt.Sprintf("ERROR: Invalid syntax. Value expected for '%s'.", args[k]))
			}
			if _, dup := opts[a[1:]]; dup {
				return usage(fmt.Sprintf("ERROR: Invalid syntax. '%s' option is not allowed more than '1' time(s).", args[k]))
			}
			k++
			opts[a[1:]] = args[k]
		default:
			return usage(fmt.Sprintf("ERROR: Invalid argument/option - '%s'.", args[k]))
		}
	}
	for _, o := range []string{"t", "id", "d"} {
		if _, ok := opts[o]; !ok {
			return usage(fmt.Sprintf("ERROR: Invalid syntax. Mandatory option '/%s' is missing.", strings.ToUpper(o)))
		}
	}
	if _, ok := opts["s"]; ok {
		// A container reaches no other machine's event log service.
		fmt.Fprint(p.Stderr, "ERROR: The RPC server is unavailable."+nl)
		return 1
	}
	typ, ok := map[string]eventlog.Type{"error": eventlog.Error, "warning": eventlog.Warning, "information": eventlog.Information,
		"success": eventlog.SuccessAudit}[strings.ToLower(opts["t"])]
	if !ok {
		return usage(fmt.Sprintf("ERROR: Invalid value '%s' for '/T' option. Valid value(s): 'SUCCESS | ERROR | WARNING | INFORMATION'.", opts["t"]))
	}
	id, err := strconv.Atoi(opts["id"])
	if err != nil || id < 1 || id > 1000 {
		fmt.Fprint(p.Stderr, "ERROR: Invalid ID. The ID must be in the range of 1 to 1000."+nl)
		return 1
	}
	store := p.Sys.EventLog()
	logName := "Application"
	if l, ok := opts["l"]; ok {
		name, exists := store.LogName(l)
		if !exists || strings.EqualFold(name, "Security") {
			fmt.Fprintf(p.Stderr, "ERROR: Log '%s' does not exist. Cannot create the event.%s", l, nl)
			return 1
		}
		logName = name
	}
	src := opts["so"]
	if src == "" {
		src = "EventCreate"
	}
	switch registered := store.SourceLog(src); {
	case registered == "":
		if store.CreateEventCreateSource(src, logName) != nil {
			fmt.Fprint(p.Stderr, "ERROR: Access is denied."+nl)
			return 1
		}
	case !store.EventCreateSource(src):
		fmt.Fprint(p.Stderr, "ERROR: Source parameter is used to identify custom applications/scripts only (not installed applications)."+nl)
		return 1
	case !strings.EqualFold(registered, logName):
		fmt.Fprintf(p.Stderr, "ERROR: Source already exists in '%s' log. Source cannot be duplicated.%s", registered, nl)
		return 1
	}
	sid, _ := userSID(p.Sys)
	e, err := store.Write(eventlog.Entry{Type: typ, EventID: id, Source: src, Message: opts["d"], User: sid})
	if err != nil {
		fmt.Fprint(p.Stderr, "ERROR: Access is denied."+nl)
		return 1
	}
	fmt.Fprintf(p.Stdout, "SUCCESS: An event of type '%s' was created in the '%s' log with '%s' as the source.%s", strings.ToUpper(opts["t"]), e.Log, e.Source, nl)
	return 0
}

// Wevtutil is wevtutil.exe's el (enum-logs), qe (query-events: /c, /rd,
// /f:text|xml) and cl (clear-log) over the container's event log.
func Wevtutil(_ context.Context, p *program.Proc) int {
	store := p.Sys.EventLog()
	if len(p.Args) < 2 || p.Args[1] == "/?" || p.Args[1] == "-?" {
		io.WriteString(p.Stdout, "Windows Events Command Line Utility."+nl+nl+"Enables you to retrieve information about event logs and publishers, install"+nl+
			"and uninstall event manifests, run queries, and export, archive and clear logs."+nl+nl+
			"Usage:"+nl+nl+"You can use either the short (for example, ep /uni) or long (for example,"+nl+"enum-publishers /unicode) version of the command and option names."+nl)
		return 0
	}
	cmd := strings.ToLower(p.Args[1])
	pos, opts := []string{}, map[string]string{}
	for _, a := range p.Args[2:] {
		if strings.HasPrefix(a, "/") || strings.HasPrefix(a, "-") {
			k, v, _ := strings.Cut(a[1:], ":")
			opts[strings.ToLower(k)] = v
			continue
		}
		pos = append(pos, a)
	}
	opt := func(short, long string) (string, bool) {
		if v, ok := opts[short]; ok {
			return v, true
		}
		v, ok := opts[long]
		return v, ok
	}
	notFound := func(what string) int {
		fmt.Fprintf(p.Stderr, "%s The specified channel could not be found.%s", what, nl)
		return 15007
	}
	switch cmd {
	case "el", "enum-logs":
		writeLines(p.Stdout, store.Logs())
		return 0
	case "cl", "clear-log":
		if len(pos) == 0 {
			fmt.Fprint(p.Stderr, "The parameter is incorrect."+nl)
			return 87
		}
		if store.Clear(pos[0]) != nil {
			return notFound("Failed to clear log " + pos[0] + ".")
		}
		return 0
	case "qe", "query-events":
		if len(pos) == 0 {
			fmt.Fprint(p.Stderr, "The parameter is incorrect."+nl)
			return 87
		}
		entries, ok := store.Entries(pos[0])
		if !ok {
			return notFound("Failed to query log " + pos[0] + ".")
		}
		if rd, _ := opt("rd", "reversedirection"); strings.EqualFold(rd, "true") {
			for i, j := 0, len(entries)-1; i < j; i, j = i+1, j-1 {
				entries[i], entries[j] = entries[j], entries[i]
			}
		}
		if c, ok := opt("c", "count"); ok {
			n, err := strconv.Atoi(c)
			if err != nil || n < 0 {
				fmt.Fprint(p.Stderr, "The parameter is incorrect."+nl)
				return 87
			}
			entries = entries[:min(n, len(entries))]
		}
		format, _ := opt("f", "format")
		for k, e := range entries {
			if strings.EqualFold(format, "text") {
				writeEventText(p.Stdout, p.Sys, k, e)
			} else {
				io.WriteString(p.Stdout, EventXML(e, p.Sys.Hostname)+nl)
			}
		}
		return 0
	}
	fmt.Fprintf(p.Stderr, "Unknown command: %s.%s", p.Args[1], nl)
	return 87
}

func writeEventText(w io.Writer, sys *program.Sys, k int, e eventlog.Entry) {
	user, userName := "N/A", "N/A"
	if e.User != "" {
		user, userName = e.User, sidName(sys, e.User)
	}
	writeLines(w, []string{
		fmt.Sprintf("Event[%d]:", k),
		"  Log Name: " + e.Log,
		"  Source: " + e.Source,
		"  Date: " + e.Time.UTC().Format("2006-01-02T15:04:05.0000000Z"),
		fmt.Sprintf("  Event ID: %d", e.EventID),
		"  Task: None",
		"  Level: " + e.Type.LevelName(),
		"  Opcode: Info",
		"  Keyword: Classic",
		"  User: " + user,
		"  User Name: " + userName,
		"  Computer: " + sys.Hostname,
		"  Description: ",
		e.Message,
		"",
	})
}

func sidName(sys *program.Sys, sid string) string {
	if s, name := userSID(sys); s == sid {
		return name
	}
	return "N/A"
}

// EventXML is an entry as the event log renders a classic event in XML
// (wevtutil qe's default /f:xml).
func EventXML(e eventlog.Entry, computer string) string {
	security := "<Security/>"
	if e.User != "" {
		security = "<Security UserID='" + e.User + "'/>"
	}
	return fmt.Sprintf("<Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System><Provider Name='%s'/><EventID Qualifiers='0'>%d</EventID>"+
		"<Version>0</Version><Level>%d</Level><Task>%d</Task><Opcode>0</Opcode><Keywords>0x80000000000000</Keywords>"+
		"<TimeCreated SystemTime='%s'/><EventRecordID>%d</EventRecordID><Correlation/><Execution ProcessID='0' ThreadID='0'/>"+
		"<Channel>%s</Channel><Computer>%s</Computer>%s</System><EventData><Data>%s</Data></EventData></Event>",
		html.EscapeString(e.Source), e.EventID, e.Type.Level(), e.Category, e.Time.UTC().Format("2006-01-02T15:04:05.0000000Z"), e.Index,
		html.EscapeString(e.Log), computer, security, html.EscapeString(e.Message))
}
