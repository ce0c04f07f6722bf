package logmonitor

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/winkube/winkube/pkg/emu/eventlog"
)

// levelNames is EventMonitor's c_LevelToString, by level.
var levelNames = []string{"Unknown", "Critical", "Error", "Warning", "Information", "Verbose"}

// startEvents is EventMonitor: one subscription to every channel, events
// up to each channel's level. A channel the log does not have fails the
// whole subscription, as EvtSubscribe fails the whole query.
func (m *monitor) startEvents(cfg *config) {
	store := m.p.Sys.EventLog()
	names := make([]string, 0, len(cfg.channels))
	max := map[string]int{}
	for _, ch := range cfg.channels {
		name, ok := store.LogName(ch.name)
		if !ok {
			m.w.traceInfo("Waiting for " + ch.name + " event channel to be enabled")
			m.w.traceError("Failed to subscribe to event log channel. The specified event channel was not found.")
			return
		}
		names = append(names, name)
		if ch.level > max[name] {
			max[name] = ch.level
		}
	}
	m.sub = store.Subscribe(names, cfg.startAtOldest, func(e eventlog.Entry) {
		if l := e.Type.Level(); l >= 1 && l <= max[e.Log] {
			m.w.line(m.eventLine(e, cfg.eventCustom))
		}
	})
}

// eventLine is PrintEvent's line for an event.
func (m *monitor) eventLine(e eventlog.Entry, customFormat string) string {
	level := levelNames[e.Type.Level()]
	t := stamp(e.Time)
	switch {
	case strings.EqualFold(m.format, "Custom"):
		return custom(customFormat, "[%TimeStamp%] [%Source%] [%Severity%] %Message%", map[string]string{
			"timestamp": t, "severity": level, "source": "EventLog", "eventsource": e.Source,
			"eventid": fmt.Sprint(e.EventID), "message": e.Message})
	case strings.EqualFold(m.format, "XML"):
		return fmt.Sprintf("<Log><Source>EventLog</Source><LogEntry><EventSource>%s</EventSource><Time>%s</Time>"+
			"<Channel>%s</Channel><Level>%s</Level><EventId>%d</EventId><Message>%s</Message></LogEntry></Log>",
			e.Source, t, e.Log, level, e.EventID, e.Message)
	}
	return fmt.Sprintf(`{"Source": "EventLog","LogEntry": {"EventSource": "%s","Time": "%s","Channel": "%s","Level": "%s","EventId": %d,"Message": "%s"}}`,
		e.Source, t, e.Log, level, e.EventID, jsonEscape(e.Message))
}

// jsonEscape is Utility::SanitizeJson: the string as nlohmann::json
// dumps it, without the quotes.
func jsonEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// fileMonitor is LogFileMonitor: the files of a directory that match its
// filter, each read from where it was last read.
type fileMonitor struct {
	m       *monitor
	src     fileSource
	dir     string // the directory as the filesystem names it
	found   bool
	started time.Time        // when it began to wait for the directory
	tries   time.Duration    // the 15-second steps it looked at
	offsets map[string]int64 // by path relative to dir, lower-case
	unicode map[string]bool  // files that start with a UTF-16LE BOM
}

func (m *monitor) newFileMonitor(src fileSource) *fileMonitor {
	if src.directory == "" || !strings.Contains(src.directory, ":") {
		m.w.traceError(fmt.Sprintf("Instantiation of a LogFileMonitor object failed for directory %s. Directory cannot be a relative path or an empty string %s.", src.directory, src.directory))
		return nil
	}
	fsys := m.p.Sys.FS
	fm := &fileMonitor{m: m, src: src, dir: fsys.Abs(`C:\`, src.directory+`\`), offsets: map[string]int64{}, unicode: map[string]bool{}}
	if st, err := fsys.Stat(fm.dir); err == nil && st.IsDir() {
		fm.found = true
		// Files there now are followed from their current end.
		for rel, size := range fm.list() {
			fm.offsets[strings.ToLower(rel)] = size
			fm.unicode[strings.ToLower(rel)] = fm.hasUTF16BOM(rel)
		}
		return fm
	}
	// Files found once it exists are new: read from their start.
	fm.started = m.w.now()
	if src.wait == 0 {
		m.w.traceError(fmt.Sprintf("Failed to start log file monitor. Log files in a directory '%s' will not be monitored. Error: 2", extended(src.directory)))
		return nil
	}
	if math.IsInf(src.wait, 1) {
		m.w.traceInfo(fmt.Sprintf("Log directory %s does not exist. LogMonitor will wait infinitely for the directory to be created.", extended(src.directory)))
	} else {
		m.w.traceInfo(fmt.Sprintf("Log directory %s does not exist. LogMonitor will wait for %.0f seconds for the directory to be created.", extended(src.directory), src.wait))
	}
	return fm
}

// extended is the directory as LogMonitor opens it, \\?\-prefixed
// unless it is a drive's root.
func extended(dir string) string {
	if rootDir.MatchString(dir) {
		return dir
	}
	return `\\?\` + dir
}

// list is the matching files with their sizes, by path relative to the
// directory.
func (fm *fileMonitor) list() map[string]int64 {
	out := map[string]int64{}
	fsys := fm.m.p.Sys.FS
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		entries, err := fsys.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := rel + e.Name()
			full := fsys.Abs(dir, e.Name())
			if e.IsDir() {
				if fm.src.subdirectories {
					walk(full, name+`\`)
				}
				continue
			}
			if !dosMatch(fm.src.filter, e.Name()) {
				continue
			}
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
				out[name] = info.Size()
			}
		}
	}
	walk(fm.dir, "")
	return out
}

// dosMatch is FileMatchesFilter: * and ? wildcards, without case.
func dosMatch(pattern, name string) bool {
	ok, err := path.Match(strings.ToLower(strings.ReplaceAll(pattern, `\`, `\\`)), strings.ToLower(name))
	return err == nil && ok
}

// scan reads what was added to the files since the last scan (a file
// that shrank is read again from its start). While the directory is
// missing it looks for it at LogMonitor's 15-second steps since start,
// until waitInSeconds.
func (fm *fileMonitor) scan() {
	fsys := fm.m.p.Sys.FS
	if !fm.found {
		elapsed := fm.m.w.now().Sub(fm.started)
		step := elapsed / (15 * time.Second)
		if step <= fm.tries {
			return
		}
		fm.tries = step
		if st, err := fsys.Stat(fm.dir); err != nil || !st.IsDir() {
			if !math.IsInf(fm.src.wait, 1) && elapsed >= time.Duration(fm.src.wait*float64(time.Second)) {
				fm.m.w.traceError(fmt.Sprintf("Failed to start log file monitor. Log files in a directory '%s' will not be monitored. Error: 2", extended(fm.src.directory)))
				fm.found, fm.dir = true, "" // given up: never looked at again
			}
			return
		}
		fm.found = true
		fm.m.w.traceInfo(fmt.Sprintf("Log directory %s found after %d seconds.", extended(fm.src.directory), int(step-1)*15))
	}
	if fm.dir == "" {
		return
	}
	files := fm.list()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, rel := range names {
		key := strings.ToLower(rel)
		off, known := fm.offsets[key]
		if !known {
			fm.unicode[key] = fm.hasUTF16BOM(rel)
		}
		size := files[rel]
		if size < off {
			off = 0
		}
		if size == off {
			fm.offsets[key] = off
			continue
		}
		data := fm.read(rel, off, size)
		fm.offsets[key] = size
		fm.write(rel, fm.decode(key, data, off))
	}
}

func (fm *fileMonitor) read(rel string, off, size int64) []byte {
	fsys := fm.m.p.Sys.FS
	f, err := fsys.OpenFile(fsys.Abs(fm.dir, rel), 0, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(off, 0); err != nil {
		return nil
	}
	b := make([]byte, size-off)
	n, _ := f.Read(b)
	for n < len(b) {
		k, err := f.Read(b[n:])
		if k == 0 || err != nil {
			break
		}
		n += k
	}
	return b[:n]
}

func (fm *fileMonitor) hasUTF16BOM(rel string) bool {
	b := fm.read(rel, 0, 2)
	return len(b) == 2 && b[0] == 0xff && b[1] == 0xfe
}

// decode turns the bytes read into text: UTF-16LE after a BOM (what
// Windows PowerShell's > and Out-File write), else UTF-8 with any BOM
// dropped.
func (fm *fileMonitor) decode(key string, b []byte, off int64) string {
	if fm.unicode[key] {
		if off == 0 && len(b) >= 2 {
			b = b[2:]
		}
		u := make([]uint16, len(b)/2)
		for k := range u {
			u[k] = uint16(b[2*k]) | uint16(b[2*k+1])<<8
		}
		return string(utf16.Decode(u))
	}
	if off == 0 {
		b = []byte(strings.TrimPrefix(string(b), "\xef\xbb\xbf"))
	}
	return string(b)
}

// write is WriteToConsole: each non-empty line, CR before LF dropped,
// the last one even without its LF.
func (fm *fileMonitor) write(rel, text string) {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, "\r")
		if l == "" {
			continue
		}
		fm.m.w.line(fm.m.fileLine(rel, l, fm.src.custom))
	}
}

func (m *monitor) fileLine(rel, msg, customFormat string) string {
	name := strings.ReplaceAll(rel, `\`, `\\`)
	switch {
	case strings.EqualFold(m.format, "Custom"):
		return custom(customFormat, "[%TimeStamp%] [%Source%] [%FileName%] %Message%", map[string]string{
			"timestamp": stamp(m.w.now()), "source": "File", "filename": name, "message": msg})
	case strings.EqualFold(m.format, "XML"):
		return "<Log><Source>File</Source><LogEntry><Logline>" + msg + "</Logline><FileName>" + name + "</FileName></LogEntry></Log>"
	}
	return `{"Source": "File","LogEntry": {"Logline": "` + jsonEscape(msg) + `","FileName": "` + name + `"},"SchemaVersion":"1.0.0"}`
}
