package logmonitor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// config is LogMonitorConfig.json as LogMonitor 2.1's JsonProcessor
// reads it: keys of LogConfig matched without case, sources that fail
// to parse skipped with an error line, the others kept.
type config struct {
	format string // JSON (the default), XML or Custom
	// The EventLog sources' channels, merged; the last source's options
	// win, as Main.cpp's InitializeEventLogMonitor leaves them.
	channels      []channel
	startAtOldest bool
	eventCustom   string
	files         []fileSource
	providers     []provider
	etwCustom     string
	processCustom string
}

type channel struct {
	name  string
	level int // 1 Critical .. 5 Verbose: events up to it are shown
}

type fileSource struct {
	directory      string
	filter         string
	subdirectories bool
	wait           float64 // seconds; +Inf: forever
	custom         string
}

// provider is an ETW source's provider: a GUID or a name, the most
// verbose level wanted (2, Error, unless set) and keywords (0: all).
type provider struct {
	name, guid string
	level      int
	keywords   uint64
}

var levels = []string{"Critical", "Error", "Warning", "Information", "Verbose"}

func parseLevel(s string) (int, bool) {
	for k, l := range levels {
		if strings.EqualFold(s, l) {
			return k + 1, true
		}
	}
	return 0, false
}

// readConfig parses the file's bytes, tracing what LogMonitor traces; it
// is false when LogMonitor calls the file invalid.
func readConfig(data []byte, w *writer) (*config, bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var root any
	if err := json.Unmarshal(data, &root); err != nil {
		w.traceError("Error parsing JSON: " + parseError(data, err))
		return nil, false
	}
	obj, _ := root.(map[string]any)
	logConfig, ok := key(obj, "LogConfig")
	if !ok {
		w.traceError("Missing 'LogConfig' section in JSON.")
		return nil, false
	}
	lc, ok := logConfig.(map[string]any)
	if !ok {
		w.traceError("Invalid LogConfig object.")
		w.traceError("Failed to fully process LogConfig.")
		return nil, false
	}
	cfg := &config{format: "JSON"}
	if f, ok := key(lc, "logFormat"); ok && isString(f) {
		cfg.format = f.(string)
	} else {
		w.traceWarning("LogFormat not found in LogConfig. Using default log format.")
	}
	sources, ok := key(lc, "sources")
	list, isList := sources.([]any)
	if !ok || !isList {
		w.traceError("Sources array not found or invalid in LogConfig.")
		w.traceError("Failed to fully process LogConfig.")
		return nil, false
	}
	for _, s := range list {
		src, ok := s.(map[string]any)
		if !ok {
			w.traceError("Skipping invalid source entry (not an object).")
			continue
		}
		typ, _ := src["type"].(string)
		if typ == "" {
			w.traceError("Skipping source with missing or empty type.")
			continue
		}
		var ok2 bool
		switch strings.ToLower(typ) {
		case "eventlog":
			ok2 = cfg.eventLogSource(src, w)
		case "file":
			ok2 = cfg.fileSource(src, w)
		case "etw":
			ok2 = cfg.etwSource(src, w)
		case "process":
			cfg.processCustom, _ = src["customLogFormat"].(string)
			ok2 = true
		default:
			w.traceError("Invalid source type: " + typ)
			continue
		}
		if !ok2 {
			w.traceError("Failed to process source of type: " + typ)
		}
	}
	return cfg, true
}

func (cfg *config) eventLogSource(src map[string]any, w *writer) bool {
	oldest, _ := src["startAtOldestRecord"].(bool)
	custom, _ := src["customLogFormat"].(string)
	chans, _ := src["channels"].([]any)
	var add []channel
	for _, c := range chans {
		co, _ := c.(map[string]any)
		name := str(co, "name", true, w)
		ch := channel{name: name, level: 2}
		if l := str(co, "level", false, w); l != "" {
			n, ok := parseLevel(l)
			if !ok {
				w.traceError("Invalid level string: " + l)
				return false
			}
			ch.level = n
		}
		add = append(add, ch)
	}
	if chans == nil {
		// SourceEventLog::Unwrap requires channels.
		w.traceError("Error parsing configuration file. Invalid EventLog source")
		return false
	}
	cfg.channels = append(cfg.channels, add...)
	cfg.startAtOldest, cfg.eventCustom = oldest, custom
	return true
}

var rootDir = regexp.MustCompile(`^\w:?$`)

// guidPattern is what StringToGuid accepts: a GUID with or without
// braces.
var guidPattern = regexp.MustCompile(`^\{?[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\}?$`)

func (cfg *config) fileSource(src map[string]any, w *writer) bool {
	dir := str(src, "directory", true, w)
	dir = strings.TrimRight(strings.ReplaceAll(dir, "/", `\`), `\`)
	sub, _ := src["includeSubdirectories"].(bool)
	if rootDir.MatchString(dir) && sub {
		w.traceError("Invalid File source: root directory cannot be monitored with includeSubdirectories=true. Directory: " + dir)
		return false
	}
	fs := fileSource{directory: dir, filter: str(src, "filter", false, w), subdirectories: sub, wait: 300, custom: str(src, "customLogFormat", false, w)}
	if v, ok := src["waitInSeconds"].(float64); ok {
		if v < 0 {
			w.traceError("Error parsing configuration file. 'waitInSeconds' attribute must be greater or equal to zero")
			w.traceError("Error parsing configuration file. Invalid File source")
			return false
		}
		fs.wait = v
	}
	if fs.filter == "" {
		fs.filter = "*"
	}
	cfg.files = append(cfg.files, fs)
	return true
}

func (cfg *config) etwSource(src map[string]any, w *writer) bool {
	list, ok := src["providers"].([]any)
	if !ok {
		w.traceError("Error parsing configuration file. Invalid ETW source: missing or invalid 'providers' array.")
		return false
	}
	n := 0
	cfg.etwCustom, _ = src["customLogFormat"].(string)
	for _, p := range list {
		po, _ := p.(map[string]any)
		name := str(po, "providerName", false, w)
		guid := str(po, "providerGuid", false, w)
		if !guidPattern.MatchString(guid) {
			guid = "" // SetProviderGuid refuses it
		}
		pr := provider{name: name, guid: guid, level: 2}
		if l := str(po, "level", false, w); l != "" {
			if lv, valid := parseLevel(l); valid {
				pr.level = lv
			} else {
				w.traceWarning(fmt.Sprintf("Error parsing configuration file. '%s' isn't a valid log level. Setting 'Error' level as default", l))
			}
		}
		if k, ok := po["keywords"].(string); ok {
			// wcstoull with base 0: 0x for hex, a leading 0 for octal.
			pr.keywords, _ = strconv.ParseUint(strings.TrimSpace(k), 0, 64)
		}
		if name == "" && guid == "" {
			w.traceWarning("Error parsing configuration file. Discarded invalid provider (it must have a non-empty 'providerName' or 'providerGuid').")
			continue
		}
		cfg.providers = append(cfg.providers, pr)
		n++
	}
	if n == 0 {
		w.traceError("Error parsing configuration file. Invalid ETW source: 'providers' must be a non-empty array.")
		return false
	}
	return true
}

// key finds a key without case, as findJsonKeyCaseInsensitive does.
func key(obj map[string]any, k string) (any, bool) {
	for name, v := range obj {
		if strings.EqualFold(name, k) {
			return v, true
		}
	}
	return nil, false
}

func isString(v any) bool { _, ok := v.(string); return ok }

// str is getJsonStringCaseInsensitive: a string value, traced when a
// required one is missing.
func str(obj map[string]any, k string, required bool, w *writer) string {
	for name, v := range obj {
		if s, ok := v.(string); ok && strings.EqualFold(name, k) {
			return s
		}
	}
	if required {
		w.traceError(fmt.Sprintf("Key %s not found in JSON object", k))
	}
	return ""
}

func isWordByte(c byte) bool {
	return c == '-' || c == '.' || c == '+' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// parseError words a syntax error as nlohmann::json's parse_error.101
// does: where (line and column), and what was last read. The
// description after the position is shortened to the common case.
func parseError(data []byte, err error) string {
	if len(bytes.TrimSpace(data)) == 0 {
		return "[json.exception.parse_error.101] parse error at line 1, column 1: attempting to parse an empty input; check that your input is not empty"
	}
	off := len(data)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset)
	}
	off = min(off, len(data))
	line, col, start := 1, 0, 0
	for k := 0; k < off; k++ {
		col++
		if data[k] == '\n' {
			line, col, start = line+1, 0, k+1
		}
	}
	// What nlohmann calls last read is the token being read: the word
	// or the character where the error is.
	from := off - 1
	for from > start && isWordByte(data[from-1]) && isWordByte(data[off-1]) {
		from--
	}
	last := string(data[max(from, start):off])
	if off == len(data) {
		return fmt.Sprintf("[json.exception.parse_error.101] parse error at line %d, column %d: syntax error while parsing value - unexpected end of input; last read: '%s'", line, col, last)
	}
	return fmt.Sprintf("[json.exception.parse_error.101] parse error at line %d, column %d: syntax error while parsing value - invalid literal; last read: '%s'", line, col, last)
}
