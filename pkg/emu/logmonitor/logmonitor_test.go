package logmonitor

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/eventlog"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh"
	"github.com/winkube/winkube/pkg/emu/vfs"
)

// stillClock tells a fixed time and never wakes a sleeper: the file
// monitor's once-a-second look never comes, so what a test sees of the
// files is the last look LogMonitor takes when its child exits.
type stillClock struct{ now time.Time }

func (c stillClock) Now() time.Time                       { return c.now }
func (c stillClock) After(time.Duration) <-chan time.Time { return nil }

func newSys(t *testing.T, files map[string]string) *program.Sys {
	t.Helper()
	clock := stillClock{time.Date(2024, 3, 5, 14, 7, 0, 0, time.UTC)}
	fsys := vfs.New(vfs.Options{Windows: true, Clock: clock})
	for name, data := range files {
		if err := fsys.MkdirAll(fsys.Abs(`C:\`, name[:strings.LastIndex(name, `\`)]), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := fsys.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(data))
		f.Close()
	}
	return &program.Sys{Windows: true, FS: fsys, Clock: clock, Hostname: "WIN-POD", User: program.User{Account: "ContainerAdministrator"},
		Programs: map[string]program.Main{"logmonitor": Main, "powershell": pwsh.Main,
			"fail": func(context.Context, *program.Proc) int { return 3 }}}
}

func runLM(t *testing.T, sys *program.Sys, args ...string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code := Main(ctx, &program.Proc{Args: append([]string{`C:\LogMonitor\LogMonitor.exe`}, args...), Dir: `C:\`,
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Sys: sys})
	return out.String(), code
}

const sampleConfig = `{
  "LogConfig": {
    "sources": [
      {"type": "EventLog", "startAtOldestRecord": true, "eventFormatMultiLine": false,
       "channels": [{"name": "application", "level": "Information"}, {"name": "system", "level": "Error"}]},
      {"type": "File", "directory": "c:\\logs", "filter": "*.log", "includeSubdirectories": false, "includeFileNames": true}
    ]
  }
}`

func TestForwardsEventsFilesAndOutput(t *testing.T) {
	sys := newSys(t, map[string]string{
		`C:\LogMonitor\LogMonitorConfig.json`: sampleConfig,
		`C:\logs\old.log`:                     "written before LogMonitor started\r\n",
		`C:\logs\skip.txt`:                    "",
	})
	// An event from before LogMonitor starts: startAtOldestRecord shows it.
	store := sys.EventLog()
	store.CreateSource("Boot", "Application")
	store.Write(eventlog.Entry{Source: "Boot", Message: "booted"})
	script := `New-EventLog -LogName Application -Source MyApp
Write-EventLog -LogName Application -Source MyApp -EventId 1001 -EntryType Warning -Message 'disk "C:" almost full'
Write-EventLog -LogName System -Source EventLog -EventId 6005 -Message 'below the System channel''s level'
Add-Content C:\logs\old.log 'appended'
Add-Content C:\logs\new.log 'fresh'
Add-Content C:\logs\skip.txt 'not a .log'
Write-Output 'from the child'
exit 4`
	out, code := runLM(t, sys, "powershell", "-Command", script)
	want := "[2024-03-05T14:07:00.000Z][LOGMONITOR] WARNING: LogFormat not found in LogConfig. Using default log format.\r\n" +
		`{"Source": "EventLog","LogEntry": {"EventSource": "Boot","Time": "2024-03-05T14:07:00.000Z","Channel": "Application","Level": "Information","EventId": 0,"Message": "booted"}}` + "\r\n" +
		`{"Source": "EventLog","LogEntry": {"EventSource": "MyApp","Time": "2024-03-05T14:07:00.000Z","Channel": "Application","Level": "Warning","EventId": 1001,"Message": "disk \"C:\" almost full"}}` + "\r\n" +
		`{"Source":"Process","LogEntry":{"Logline":"from the child"},"SchemaVersion":"1.0.0"}` + "\n" +
		`{"Source": "File","LogEntry": {"Logline": "fresh","FileName": "new.log"},"SchemaVersion":"1.0.0"}` + "\r\n" +
		`{"Source": "File","LogEntry": {"Logline": "appended","FileName": "old.log"},"SchemaVersion":"1.0.0"}` + "\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] INFO: Entrypoint processs exit code: 4\r\n"
	if out != want || code != 4 {
		t.Fatalf("LogMonitor printed (%d)\n%s\nwant\n%s", code, out, want)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "{") && !json.Valid([]byte(l)) {
			t.Errorf("not JSON: %s", l)
		}
	}
}

func TestBadConfig(t *testing.T) {
	sys := newSys(t, map[string]string{`C:\LogMonitor\LogMonitorConfig.json`: "{\n  \"LogConfig\": { sources: [] }\n}"})
	out, code := runLM(t, sys, "fail")
	want := "[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Error parsing JSON: [json.exception.parse_error.101] parse error at line 2, column 18: syntax error while parsing value - invalid literal; last read: 's'\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Invalid configuration file.\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] INFO: Entrypoint processs exit code: 3\r\n"
	if out != want || code != 3 {
		t.Errorf("bad JSON: (%d)\n%s\nwant\n%s", code, out, want)
	}

	sys = newSys(t, nil)
	out, code = runLM(t, sys, "nosuch.exe")
	want = "[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Failed to open JSON file.\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Error parsing JSON: [json.exception.parse_error.101] parse error at line 1, column 1: attempting to parse an empty input; check that your input is not empty\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Invalid configuration file.\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Failed to start entrypoint process. Error: 2\r\n"
	if out != want || code != 2 {
		t.Errorf("no config, no program: (%d)\n%s\nwant\n%s", code, out, want)
	}

	out, code = runLM(t, sys, "/CONFIG", `C:\elsewhere\cfg.json`, "fail")
	if out != "[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Invalid configuration file name.\r\n" || code != 0 {
		t.Errorf("/CONFIG with a path: (%d) %q", code, out)
	}

	sys = newSys(t, map[string]string{`C:\LogMonitor\mine.json`: `{"LogConfig": {"logFormat": "XML", "sources": [
		{"type": "EventLog", "channels": [{"name": "NoSuchLog"}]},
		{"type": "File", "directory": "C:\\", "includeSubdirectories": true},
		{"type": "Bogus"}]}}`})
	out, _ = runLM(t, sys, "/config", "mine.json", "fail")
	want = "[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Invalid File source: root directory cannot be monitored with includeSubdirectories=true. Directory: C:\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Failed to process source of type: File\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Invalid source type: Bogus\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] INFO: Waiting for NoSuchLog event channel to be enabled\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] ERROR: Failed to subscribe to event log channel. The specified event channel was not found.\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] INFO: Entrypoint processs exit code: 3\r\n"
	if out != want {
		t.Errorf("bad sources:\n%s\nwant\n%s", out, want)
	}
}
