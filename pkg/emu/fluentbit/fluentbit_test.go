package fluentbit

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/eventlog"
	"github.com/winkube/winkube/pkg/emu/fluentbit/conf"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/imageinfo"
)

// stepClock tells a time the test moves; nothing sleeps on it (the
// tests drive the engine's steps themselves).
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}
func (c *stepClock) After(time.Duration) <-chan time.Time { return nil }
func (c *stepClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	sys    *program.Sys
	clock  *stepClock
	stdout bytes.Buffer
	stderr bytes.Buffer
}

func newFixture(t *testing.T, windows bool, files map[string]string) *fixture {
	t.Helper()
	clock := &stepClock{now: time.Date(2026, 11, 28, 1, 50, 0, 123456789, time.UTC)}
	fsys := vfs.New(vfs.Options{Windows: windows, Clock: clock})
	fx := &fixture{clock: clock, sys: &program.Sys{Windows: windows, FS: fsys, Clock: clock, Hostname: "fluent-bit-abcde"}}
	for name, data := range files {
		fx.write(t, name, data, false)
	}
	return fx
}

func (fx *fixture) write(t *testing.T, name, data string, appendTo bool) {
	t.Helper()
	fsys := fx.sys.FS
	abs := fsys.Abs("/", name)
	if err := fsys.MkdirAll(fsys.Abs(abs, ".."), 0o755); err != nil {
		t.Fatal(err)
	}
	flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendTo {
		flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := fsys.OpenFile(abs, flag, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(data))
	f.Close()
}

func (fx *fixture) proc(args ...string) *program.Proc {
	return &program.Proc{Args: append([]string{"/fluent-bit/bin/fluent-bit"}, args...), Dir: "/",
		Stdout: &fx.stdout, Stderr: &fx.stderr, Sys: fx.sys, Env: []string{"HOSTNAME=fluent-bit-abcde"}}
}

// start configures and starts an engine as Main does.
func (fx *fixture) start(t *testing.T, args ...string) *engine {
	t.Helper()
	p := fx.proc(args...)
	o, _, ok := parseArgs(p.Args[1:], p.Stdout)
	if !ok {
		t.Fatal("bad arguments")
	}
	log := &logger{out: p.Stderr, now: fx.clock.Now, level: levelInfo}
	e, err := configure(p, o, log)
	if err != nil {
		t.Fatalf("configure: %v\n%s", err, fx.stderr.String())
	}
	if err := e.start(context.Background()); err != nil {
		t.Fatalf("start: %v\n%s", err, fx.stderr.String())
	}
	return e
}

// step moves the clock and runs one collect and flush.
func (fx *fixture) step(e *engine, d time.Duration) {
	fx.clock.add(d)
	e.collect(fx.clock.Now())
	e.flushAll(context.Background())
}

func TestDummyToStdoutInFluentBitsPrintFormat(t *testing.T) {
	fx := newFixture(t, false, map[string]string{"/fluent-bit/etc/fluent-bit.conf": `[SERVICE]
    Flush 1
[INPUT]
    Name  dummy
    Dummy {"message":"hello","n":3,"ok":true,"sub":{"a":[1,"x"]}}
[OUTPUT]
    Name  stdout
    Match *
`})
	e := fx.start(t, "-c", "/fluent-bit/etc/fluent-bit.conf")
	fx.step(e, 0)
	want := `[0] dummy.0: [[1795830600.123456789, {}], {"message"=>"hello", "n"=>3, "ok"=>true, "sub"=>{"a"=>[1, "x"]}}]` + "\n"
	if got := fx.stdout.String(); got != want {
		t.Fatalf("stdout:\n%s\nwant\n%s", got, want)
	}
	for _, line := range []string{
		"[2026/11/28 01:50:00.123] [ info] [fluent bit] version=5.1.1, commit=d55459d492, pid=1",
		"[ info] [input:dummy:dummy.0] initializing",
		"[ info] [output:stdout:stdout.0] worker #0 started",
		"[ info] [sp] stream processor started",
	} {
		if !strings.Contains(fx.stderr.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, fx.stderr.String())
		}
	}
}

func TestBannerAndUnknownPluginFailAsFluentBit(t *testing.T) {
	fx := newFixture(t, false, map[string]string{"/etc/fb.conf": "[INPUT]\n    Name xyz\n[OUTPUT]\n    Name stdout\n    Match *\n"})
	code := Main(context.Background(), fx.proc("-c", "/etc/fb.conf"))
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	out := fx.stderr.String()
	if !strings.HasPrefix(out, "Fluent Bit v5.1.1\n* Copyright (C) 2015-2026 The Fluent Bit Authors\n") {
		t.Fatalf("no banner:\n%s", out)
	}
	for _, line := range []string{
		"[error] [config] section 'xyz' tried to instance a plugin name that doesn't exist",
		"[error] configuration file contains errors, aborting.",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("log lacks %q:\n%s", line, out)
		}
	}
}

func TestMissingConfigFile(t *testing.T) {
	fx := newFixture(t, false, nil)
	if code := Main(context.Background(), fx.proc("-c", "/nope.conf")); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(fx.stderr.String(), "[error] could not open configuration file, aborting.") {
		t.Fatalf("log:\n%s", fx.stderr.String())
	}
}

func TestWindowsPluginsExistOnlyOnWindows(t *testing.T) {
	conf := map[string]string{"/fb.conf": "[INPUT]\n    Name winlog\n    Channels Application\n[OUTPUT]\n    Name null\n    Match *\n"}
	fx := newFixture(t, false, conf)
	if code := Main(context.Background(), fx.proc("-c", "/fb.conf")); code != 1 || !strings.Contains(fx.stderr.String(), "section 'winlog' tried to instance") {
		t.Fatalf("Linux build accepted winlog (exit %d):\n%s", code, fx.stderr.String())
	}
}

// criLog is a CRI log file as the emulated node writes it.
const criLog = "2026-11-28T01:49:59.5Z stdout F before start\n"

func TestTailFollowsCRILogsWithTagExpansion(t *testing.T) {
	name := "/var/log/containers/web-7d4b9c_default_iis-" + strings.Repeat("a", 64) + ".log"
	fx := newFixture(t, false, map[string]string{
		name: criLog,
		"/fluent-bit/etc/fluent-bit.conf": `@SET tagprefix=kube
[SERVICE]
    Flush        1
    Parsers_File parsers.conf
@INCLUDE inputs/*.conf
[OUTPUT]
    Name  stdout
    Match ${tagprefix}.*
`,
		"/fluent-bit/etc/inputs/tail.conf": `[INPUT]
    Name             tail
    Path             /var/log/containers/*.log
    Tag              ${tagprefix}.*
    multiline.parser docker, cri
    Refresh_Interval 1
`,
		"/fluent-bit/etc/parsers.conf": "[PARSER]\n    Name json\n    Format json\n",
	})
	e := fx.start(t, "-c", "/fluent-bit/etc/fluent-bit.conf")
	fx.step(e, time.Second)
	if fx.stdout.Len() != 0 {
		t.Fatalf("a file found at start is followed from its end, got:\n%s", fx.stdout.String())
	}
	fx.write(t, name, "2026-11-28T01:50:01.25Z stdout P hello \n2026-11-28T01:50:01.3Z stdout F world\n2026-11-28T01:50:02Z stderr F oops\n", true)
	fx.step(e, time.Second)
	tag := "kube.var.log.containers.web-7d4b9c_default_iis-" + strings.Repeat("a", 64) + ".log"
	want := "[0] " + tag + `: [[1795830601.250000000, {}], {"time"=>"2026-11-28T01:50:01.3Z", "stream"=>"stdout", "_p"=>"F", "log"=>"hello world"}]` + "\n" +
		"[1] " + tag + `: [[1795830602.000000000, {}], {"time"=>"2026-11-28T01:50:02Z", "stream"=>"stderr", "_p"=>"F", "log"=>"oops"}]` + "\n"
	if got := fx.stdout.String(); got != want {
		t.Fatalf("stdout:\n%s\nwant\n%s", got, want)
	}
	// A file that appears later is read from its head.
	fx.stdout.Reset()
	fx.write(t, "/var/log/containers/new_default_c-"+strings.Repeat("b", 64)+".log", "2026-11-28T01:50:03Z stdout F first\n", false)
	fx.step(e, 2*time.Second)
	if !strings.Contains(fx.stdout.String(), `"log"=>"first"`) {
		t.Fatalf("new file not read from its head:\n%s", fx.stdout.String())
	}
}

func TestTagExpansionOfWindowsPaths(t *testing.T) {
	if got := tagFor("kube.*", `C:\var\log\containers\a_b_c-d.log`); got != "kube.C.var.log.containers.a_b_c-d.log" {
		t.Fatal(got)
	}
	if got := tagFor("kube.*", "/var/log/containers/x.log"); got != "kube.var.log.containers.x.log" {
		t.Fatal(got)
	}
}

func TestImageParsersFileCRIParser(t *testing.T) {
	// The classic cri parser of the images' parsers.conf.
	s := &conf.Section{Kind: "PARSER", Props: []conf.Prop{{Key: "Name", Val: "cri"}, {Key: "Format", Val: "regex"},
		{Key: "Regex", Val: `^(?<time>[^ ]+) (?<stream>stdout|stderr) (?<logtag>[^ ]*) (?<message>.*)$`},
		{Key: "Time_Key", Val: "time"}, {Key: "Time_Format", Val: "%Y-%m-%dT%H:%M:%S.%L%z"}, {Key: "Time_Keep", Val: "On"}}}
	p, err := newParser(s)
	if err != nil {
		t.Fatal(err)
	}
	body, tm, ok := p.parse("2026-11-28T01:50:00.5+01:00 stdout F hi there")
	if !ok || len(body) != 4 || body[3].val != "hi there" {
		t.Fatalf("%v %v", body, ok)
	}
	if want := time.Date(2026, 11, 28, 0, 50, 0, 5e8, time.UTC); !tm.Equal(want) {
		t.Fatalf("time %v, want %v", tm, want)
	}
}

func TestWinlogReadsTheEventLog(t *testing.T) {
	fx := newFixture(t, true, map[string]string{`C:\fluent-bit\etc\fluent-bit.conf`: "[INPUT]\n    Name winlog\n    Channels Application\n[OUTPUT]\n    Name stdout\n    Match *\n"})
	store := fx.sys.EventLog()
	store.CreateSource("MyApp", "Application")
	e := fx.start(t, "-c", "/fluent-bit/etc/fluent-bit.conf")
	store.Write(eventlog.Entry{Log: "Application", Source: "MyApp", EventID: 1001, Type: eventlog.Warning, Message: "disk almost full"})
	fx.step(e, time.Second)
	got := fx.stdout.String()
	for _, part := range []string{`[0] winlog.0: [[`, `"EventID"=>1001`, `"EventType"=>"Warning"`, `"Channel"=>"Application"`,
		`"SourceName"=>"MyApp"`, `"ComputerName"=>"FLUENT-BIT-ABCDE"`, `"Message"=>"disk almost full"`, `"StringInserts"=>["disk almost full"]`} {
		if !strings.Contains(got, part) {
			t.Errorf("record lacks %s:\n%s", part, got)
		}
	}
}

func TestHTTPServerEndpoints(t *testing.T) {
	fx := newFixture(t, false, map[string]string{"/fb.conf": "[SERVICE]\n    HTTP_Server On\n    Health_Check On\n[INPUT]\n    Name dummy\n[OUTPUT]\n    Name null\n    Match *\n"})
	e := fx.start(t, "-c", "/fb.conf")
	fx.step(e, time.Second)
	if code, _, body := e.route("/api/v1/health"); code != 200 || string(body) != "ok\n" {
		t.Fatalf("health %d %q", code, body)
	}
	if _, _, body := e.route("/"); !strings.HasPrefix(string(body), `{"fluent-bit":{"version":"5.1.1","edition":"Community","flags":[`) {
		t.Fatalf("root %s", body)
	}
	if _, _, body := e.route("/api/v1/metrics"); !strings.Contains(string(body), `"input":{"dummy.0":{"records":1,`) {
		t.Fatalf("metrics %s", body)
	}
	_, ctype, body := e.route("/api/v1/metrics/prometheus")
	if ctype != "text/plain; version=0.0.4" || !strings.Contains(string(body), "# HELP fluentbit_input_records_total Number of input records.\n# TYPE fluentbit_input_records_total counter\nfluentbit_input_records_total{name=\"dummy.0\"} 1 ") {
		t.Fatalf("prometheus %s", body)
	}
}

func TestGrepAndModify(t *testing.T) {
	fx := newFixture(t, false, map[string]string{"/fb.conf": `[INPUT]
    Name  dummy
    Dummy {"level":"debug","msg":"x"}
[INPUT]
    Name  dummy
    Dummy {"level":"error","msg":"y"}
[FILTER]
    Name  grep
    Match *
    Exclude level debug
[FILTER]
    Name  modify
    Match *
    Add   node win-1
    Rename msg message
[OUTPUT]
    Name  stdout
    Match *
    Format json_lines
`})
	e := fx.start(t, "-c", "/fb.conf")
	fx.step(e, time.Second)
	want := `{"date":1795830601.123457,"level":"error","message":"y","node":"win-1"}` + "\n"
	if got := fx.stdout.String(); got != want {
		t.Fatalf("stdout:\n%s\nwant\n%s", got, want)
	}
}

func TestConfigErrorsNameFileAndLine(t *testing.T) {
	fx := newFixture(t, false, map[string]string{"/fb.conf": "[INPUT]\nName dummy\n"})
	if code := Main(context.Background(), fx.proc("-c", "/fb.conf")); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(fx.stderr.String(), "[error] [config] error in /fb.conf:2: invalid indentation level") {
		t.Fatalf("log:\n%s", fx.stderr.String())
	}
}

func TestYAMLConfiguration(t *testing.T) {
	fx := newFixture(t, false, map[string]string{
		"/fluent-bit/etc/fluent-bit.yaml": `env:
  GREETING: hello
service:
  flush: 1
  http_server: on
includes:
  - outputs.yaml
pipeline:
  inputs:
    - name: dummy
      dummy: '{"msg":"${GREETING}"}'
      tag: app.demo
  filters:
    - name: modify
      match: app.*
      add:
        - stage yaml
`,
		"/fluent-bit/etc/outputs.yaml": "pipeline:\n  outputs:\n    - name: stdout\n      match: '*'\n      format: json_lines\n",
	})
	e := fx.start(t, "--config=/fluent-bit/etc/fluent-bit.yaml")
	fx.step(e, time.Second)
	want := `{"date":1795830601.123457,"msg":"hello","stage":"yaml"}` + "\n"
	if got := fx.stdout.String(); got != want {
		t.Fatalf("stdout:\n%s\nwant\n%s\nlog:\n%s", got, want, fx.stderr.String())
	}
	if !e.http.on {
		t.Error("service's http_server: on was not read")
	}
}

// The Windows image's default configuration starts: winlog's Setup log,
// which a container lacks, is opened as the Application log, as
// OpenEventLog does.
func TestWindowsImageDefaultConfigStarts(t *testing.T) {
	fx := newFixture(t, true, map[string]string{`C:\fluent-bit\etc\fluent-bit.conf`: `[SERVICE]
    flush        1
    log_level    info
[INPUT]
    Name         winlog
    Channels     Setup,Windows PowerShell
    Interval_Sec 1
[OUTPUT]
    name  stdout
    match *
`})
	e := fx.start(t, "-c", "/fluent-bit/etc/fluent-bit.conf")
	fx.sys.EventLog().Write(eventlog.Entry{Log: "Application", Source: "Application", EventID: 1, Type: eventlog.Information, Message: "m"})
	fx.step(e, time.Second)
	if !strings.Contains(fx.stdout.String(), `"Channel"=>"Setup"`) {
		t.Fatalf("stdout:\n%s\nlog:\n%s", fx.stdout.String(), fx.stderr.String())
	}
}

// The images' own configuration files (their parsers.conf with every
// upstream parser) load and start as the images' CMD gives them.
func TestImagesDefaultConfiguration(t *testing.T) {
	for _, ref := range []string{"cr.fluentbit.io/fluent/fluent-bit:5.1.1", "cr.fluentbit.io/fluent/fluent-bit:windows-2022-5.1.1"} {
		cmd, ok := imageinfo.DefaultCommand(ref)
		if !ok {
			t.Fatalf("%s: no default command", ref)
		}
		windows := cmd.Entrypoint[0] == "fluent-bit.exe"
		fx := newFixture(t, windows, cmd.Text)
		e := fx.start(t, cmd.Cmd[1:]...)
		if want := strings.Count(cmd.Text["/fluent-bit/etc/parsers.conf"], "[PARSER]"); len(e.parsers) != want || e.parsers["cri"] == nil || e.parsers["docker"] == nil {
			t.Errorf("%s: parsers %d", ref, len(e.parsers))
		}
		for name, p := range e.parsers {
			if p.reErr != nil {
				t.Errorf("%s: parser %s: %v", ref, name, p.reErr)
			}
		}
		if len(e.inputs) != 1 || len(e.outputs) != 1 {
			t.Errorf("%s: %d inputs, %d outputs", ref, len(e.inputs), len(e.outputs))
		}
	}
}
