// Package logmonitor is Microsoft's LogMonitor.exe (as of its v2.2
// source, whose version.h still says 2.1.1;
// github.com/microsoft/windows-container-tools), the entrypoint wrapper
// Windows images use to get their event log, log files and ETW events to
// STDOUT, where `kubectl logs` reads them:
//
//	ENTRYPOINT ["C:\\LogMonitor\\LogMonitor.exe", "C:\\ServiceMonitor.exe", "w3svc"]
//
// It reads C:\LogMonitor\LogMonitorConfig.json (or /CONFIG name, a file
// next to the executable) from the container's filesystem, starts its
// monitors, runs the rest of its command line as its child and exits
// with the child's status. Every line it writes is in LogMonitor's own
// format: JSON by default ({"Source": "EventLog", ...}), XML or a custom
// pattern (logFormat), including the child's output lines (the Process
// source).
//
// Which images have it: any Windows image offers LogMonitor.exe by name
// (pkg/emu/userland), since the real pattern is an image that COPYs
// LogMonitor.exe into itself, and winkube cannot see an image's files;
// a command that names it is taken to be that image's copy.
//
// The sources:
//   - EventLog follows the container's event log (program.Sys.EventLog)
//     by subscription: entries are printed on the writer's goroutine, no
//     polling, as EvtSubscribe signals the real one.
//   - File follows the files of a directory of the container's
//     filesystem. The emulated filesystem has no change notification
//     (ReadDirectoryChangesW), so a LogMonitor with File sources looks
//     once a second on the container's clock, and once more when its
//     child exits, so that the last lines written are not lost; a
//     container without File sources costs no goroutine.
//   - ETW starts a real-time session of the container's ETW
//     (program.Sys.ETW) enabling the source's providers at their level
//     and keywords; events arrive on the writer's goroutine. Providers
//     are named by GUID, or by a name registered when LogMonitor starts.
//     The emulated IIS writes Microsoft-Windows-IIS-Logging's event 6200
//     per request when its W3C log target includes ETW
//     (pkg/emu/daemons); no other emulated program writes ETW events.
package logmonitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/etw"
	"github.com/winkube/winkube/pkg/emu/eventlog"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Version is the LogMonitor release emulated (version.h).
const Version = "2.1.1"

// DefaultConfig is the configuration file read without /CONFIG.
const DefaultConfig = `C:\LogMonitor\LogMonitorConfig.json`

// Table is this package's program by program.Name.
func Table() map[string]program.Main { return map[string]program.Main{"logmonitor": Main} }

// writer is LogMonitor's LogWriter: whole lines, one at a time, from
// every monitor's thread. Its own lines end in CRLF (wprintf on a stdout
// in text mode); the child's lines are written raw, ending in LF.
type writer struct {
	mu  sync.Mutex
	out io.Writer
	now func() time.Time
}

func (w *writer) line(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	io.WriteString(w.out, s+"\r\n")
}

func (w *writer) raw(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	io.WriteString(w.out, s)
}

// stamp is Utility::SystemTimeToString: UTC, milliseconds always 000.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05") + ".000Z" }

func (w *writer) trace(level, msg string) {
	w.line(fmt.Sprintf("[%s][LOGMONITOR] %s: %s", stamp(w.now()), level, msg))
}
func (w *writer) traceError(msg string)   { w.trace("ERROR", msg) }
func (w *writer) traceWarning(msg string) { w.trace("WARNING", msg) }
func (w *writer) traceInfo(msg string)    { w.trace("INFO", msg) }

const usage = "\n\tLogMonitor Tool Version 2.1.1 \n\n" +
	"\tUsage: LogMonitor.exe [/?] | [--help] | [[/CONFIG <PATH>][COMMAND [PARAMETERS]]] \n\n" +
	"\t/?|--help   Shows help information\n" +
	"\t<PATH>      Specifies the path of the Json configuration file. This is\n" +
	"\t            an optional parameter. If not specified, then default Json\n" +
	"\t            configuration file path C:\\LogMonitor\\LogMonitorConfig.json is used\n" +
	"\tCOMMAND     Specifies the name of the executable to be run \n" +
	"\tPARAMETERS  Specifies the parameters to be passed to the COMMAND \n\n" +
	"\tThis tool monitors Event log, ETW providers and log files and write the log entries\n" +
	"\tto the console. The configuration of input log sources is specified in a Json file.\n" +
	"\tfile.\n\n"

// Main is LogMonitor.exe.
func Main(ctx context.Context, p *program.Proc) int {
	w := &writer{out: p.Stdout, now: p.Sys.Clock.Now}
	args := p.Args
	if len(args) == 2 && (args[1] == "/?" || strings.EqualFold(args[1], "--help")) {
		io.WriteString(p.Stdout, strings.ReplaceAll(usage, "\n", "\r\n"))
		return 0
	}
	configPath, cmd := DefaultConfig, args[1:]
	if len(args) >= 3 && strings.EqualFold(args[1], "/Config") {
		name := args[2]
		// 2.1 takes a file name only, next to the executable.
		if strings.Contains(name, "..") || strings.ContainsAny(name, `/\:`) {
			w.traceError("Invalid configuration file name.")
			return 0
		}
		configPath = exeDir(args[0]) + `\` + name
		cmd = args[3:]
	}
	m := &monitor{p: p, w: w}
	if cfg, ok := m.readConfigFile(configPath); ok {
		m.start(ctx, cfg)
	} else {
		w.traceError("Invalid configuration file.")
	}
	if len(cmd) == 0 {
		// No entrypoint: it monitors until stopped.
		context.AfterFunc(ctx, m.stop)
		return program.Forever
	}
	code, forever := m.runChild(ctx, cmd)
	if forever {
		context.AfterFunc(ctx, m.stop)
		return program.Forever
	}
	if ctx.Err() != nil {
		// The container is stopping: the console's CTRL_SHUTDOWN_EVENT,
		// passed on to the child.
		w.raw("\nCTRL signal received. The process will now terminate.\n")
	}
	m.stop()
	if code >= 0 {
		w.traceInfo(fmt.Sprintf("Entrypoint processs exit code: %d", code))
	}
	if code < 0 {
		return -code
	}
	return code
}

// exeDir is the directory of the executable: argv[0]'s, else where
// images install it.
func exeDir(argv0 string) string {
	if k := strings.LastIndexAny(argv0, `\/`); k > 0 {
		return strings.ReplaceAll(argv0[:k], "/", `\`)
	}
	return `C:\LogMonitor`
}

// monitor is one LogMonitor process's monitors.
type monitor struct {
	p      *program.Proc
	w      *writer
	format string
	custom string // the Process source's custom format

	sub    *eventlog.Subscription
	etw    *etw.Session
	files  []*fileMonitor
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

func (m *monitor) readConfigFile(path string) (*config, bool) {
	data, err := readFile(m.p.Sys, path)
	if err != nil {
		m.w.traceError("Failed to open JSON file.")
		data = nil
	}
	return readConfig(data, m.w)
}

func readFile(sys *program.Sys, path string) ([]byte, error) {
	f, err := sys.FS.OpenFile(sys.FS.Abs(`C:\`, path), 0, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func (m *monitor) start(ctx context.Context, cfg *config) {
	m.format, m.custom = cfg.format, cfg.processCustom
	for _, fs := range cfg.files {
		if fm := m.newFileMonitor(fs); fm != nil {
			m.files = append(m.files, fm)
		}
	}
	if len(cfg.channels) > 0 {
		m.startEvents(cfg)
	}
	if len(cfg.providers) > 0 {
		m.startETW(cfg)
	}
	if len(m.files) > 0 {
		pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		m.cancel, m.done = cancel, make(chan struct{})
		go m.poll(pctx)
	}
}

// stop ends the monitors: the subscription, the file poller (after a
// last look at the files).
func (m *monitor) stop() {
	m.once.Do(func() {
		if m.sub != nil {
			m.sub.Close()
		}
		if m.etw != nil {
			m.etw.Close()
		}
		if m.cancel != nil {
			m.cancel()
			<-m.done
			for _, fm := range m.files {
				fm.scan()
			}
		}
	})
}

// poll looks at the files once a second (see the package doc).
func (m *monitor) poll(ctx context.Context) {
	defer close(m.done)
	for m.p.Sys.Sleep(ctx, time.Second) {
		for _, fm := range m.files {
			fm.scan()
		}
	}
}

// runChild runs the entrypoint with its output through the Process
// monitor; forever: the child settled into waiting to be stopped (a
// server), and LogMonitor waits with it. A negative code is LogMonitor's
// own status when the child could not start.
func (m *monitor) runChild(ctx context.Context, cmd []string) (code int, forever bool) {
	out := &processWriter{m: m}
	defer out.flush()
	code, err := m.p.Sys.Start(ctx, &program.Proc{Args: cmd, Env: m.p.Env, Dir: m.p.Dir, Stdin: m.p.Stdin,
		Stdout: out, Stderr: out, TTY: m.p.TTY, Term: m.p.Term, Sys: m.p.Sys})
	if errors.Is(err, program.ErrNotFound) {
		// CreateProcess fails with ERROR_FILE_NOT_FOUND, LogMonitor's
		// exit code.
		m.w.traceError("Failed to start entrypoint process. Error: 2")
		return -2, false
	}
	if code == program.Forever {
		return 0, true
	}
	return code, false
}

// processWriter is ProcessMonitor's pipe reader: the child's stdout and
// stderr, line by line (runs of CR and LF end a line), each in the log
// format.
type processWriter struct {
	m       *monitor
	mu      sync.Mutex
	partial string
}

func (pw *processWriter) Write(b []byte) (int, error) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	s := pw.partial + string(b)
	for {
		k := strings.IndexAny(s, "\r\n")
		if k < 0 {
			break
		}
		pw.m.w.raw(pw.m.processLine(s[:k]))
		s = strings.TrimLeft(s[k:], "\r\n")
	}
	pw.partial = s
	return len(b), nil
}

func (pw *processWriter) flush() {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if pw.partial != "" {
		pw.m.w.raw(pw.m.processLine(pw.partial))
		pw.partial = ""
	}
}

// processLine is FormatProcessLog: the line as it is (bytes above 127
// become ?), not escaped.
func (m *monitor) processLine(line string) string {
	if strings.EqualFold(m.format, "Custom") {
		return custom(m.custom, "[%TimeStamp%] [%Source%] [%Message%]", map[string]string{
			"timestamp": stamp(m.w.now()), "source": "Process", "message": line}) + "\n"
	}
	b := []byte(line)
	for k, c := range b {
		if c > 127 {
			b[k] = '?'
		}
	}
	if strings.EqualFold(m.format, "XML") {
		return "<Log><Source>Process</Source><LogEntry><Logline>" + string(b) + "</Logline></LogEntry></Log>\n"
	}
	return `{"Source":"Process","LogEntry":{"Logline":"` + string(b) + `"},"SchemaVersion":"1.0.0"}` + "\n"
}

// custom is Utility::FormatEventLineLog: %Field% replaced by the
// entry's field (names without case). A pattern ending in |json has its
// single quotes made double and its values escaped for JSON, so that
// each line is valid JSON.
func custom(pattern, def string, fields map[string]string) string {
	if pattern == "" {
		pattern = def
	}
	asJSON := false
	if k := strings.LastIndex(pattern, "|"); k >= 0 {
		asJSON = strings.EqualFold(strings.ReplaceAll(pattern[k+1:], " ", ""), "json")
		pattern = pattern[:k]
		if asJSON {
			pattern = strings.ReplaceAll(pattern, "'", `"`)
		}
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(pattern, '%')
		if i < 0 {
			break
		}
		j := strings.IndexByte(pattern[i+1:], '%')
		if j < 0 {
			break
		}
		b.WriteString(pattern[:i])
		v := fields[strings.ToLower(pattern[i+1:i+1+j])]
		if asJSON {
			v = jsonEscape(v)
		}
		b.WriteString(v)
		pattern = pattern[i+2+j:]
	}
	b.WriteString(pattern)
	return b.String()
}
