// Package fluentbit is Fluent Bit (v5.1, github.com/fluent/fluent-bit),
// the log processor platform teams run as a DaemonSet on every node,
// Windows ones included. Its images (cr.fluentbit.io/fluent/fluent-bit,
// fluent/fluent-bit; the windows-2019-<ver> and windows-2022-<ver> tags
// are Windows builds) start it as
//
//	ENTRYPOINT ["/fluent-bit/bin/fluent-bit"]   (Windows: fluent-bit.exe)
//	CMD ["/fluent-bit/bin/fluent-bit", "-c", "/fluent-bit/etc/fluent-bit.conf"]
//
// It reads its classic configuration ([SERVICE], [INPUT], [FILTER],
// [OUTPUT], [PARSER], @INCLUDE, @SET, ${VAR}) from the container's
// filesystem, the image's default or a mounted ConfigMap, and runs the
// pipeline on the container's clock: inputs collect records, filters
// change them, and every Flush seconds the outputs receive the records
// whose tag their Match selects.
//
// What is emulated, each from upstream's behaviour:
//   - inputs: tail (Path globs, the kubelet's CRI log files among them,
//     which the emulated node writes; Parser, multiline.parser docker/
//     cri, Read_from_Head, Refresh_Interval, Tag with *), dummy, cpu
//     (the node's processor time), and on Windows winlog (the
//     container's event log, package eventlog);
//   - filters: kubernetes (the pod's metadata from the API server, asked
//     through the pod network with the pod's service account), grep,
//     record_modifier, modify (Add, Set, Remove, Rename);
//   - outputs: stdout (msgpack's print format or JSON), null, http
//     (JSON or msgpack over the pod network) and forward (the Fluentd
//     Forward protocol);
//   - the built-in HTTP server (/, /api/v1/health, /api/v1/metrics,
//     /api/v1/metrics/prometheus, /api/v1/uptime).
//
// A plugin fluent-bit has but winkube does not model starts and says so
// once in its log; a name fluent-bit does not have fails the
// configuration in fluent-bit's words. A .yaml or .yml file is read in
// the YAML format (env, includes, service, parsers, pipeline); its
// processors are not emulated.
package fluentbit

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/fluentbit/conf"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Version is the Fluent Bit release emulated.
const Version = "5.1.1"

// commit is the release's git commit as the banner's first log line
// shows it (ten characters).
const commit = "d55459d492"

// Default paths of the images' configuration.
const (
	LinuxConfig   = "/fluent-bit/etc/fluent-bit.conf"
	WindowsConfig = `C:\fluent-bit\etc\fluent-bit.conf`
)

// Table is this package's program by program.Name.
func Table() map[string]program.Main { return map[string]program.Main{"fluent-bit": Main} }

// Log levels, in fluent-bit's order.
const (
	levelOff = iota
	levelError
	levelWarn
	levelInfo
	levelDebug
	levelTrace
)

var levelNames = map[string]int{"off": levelOff, "error": levelError, "warn": levelWarn, "warning": levelWarn, "info": levelInfo, "debug": levelDebug, "trace": levelTrace}

// logger is flb_log: "[2026/11/28 01:50:00.123] [ info] message" on
// stderr.
type logger struct {
	mu    sync.Mutex
	out   io.Writer
	now   func() time.Time
	level int
}

func (l *logger) log(level int, title, msg string) {
	if level > l.level {
		return
	}
	t := l.now().UTC()
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.out, "[%s.%03d] [%5s] %s\n", t.Format("2006/01/02 15:04:05"), t.Nanosecond()/1e6, title, msg)
}

func (l *logger) errorf(format string, a ...any) {
	l.log(levelError, "error", fmt.Sprintf(format, a...))
}
func (l *logger) warnf(format string, a ...any) { l.log(levelWarn, "warn", fmt.Sprintf(format, a...)) }
func (l *logger) infof(format string, a ...any) { l.log(levelInfo, "info", fmt.Sprintf(format, a...)) }
func (l *logger) debugf(format string, a ...any) {
	l.log(levelDebug, "debug", fmt.Sprintf(format, a...))
}

// motd is flb_motd.h of 5.1: the release's ASCII banner.
const motd = "______ _                  _    ______ _ _           _____  __  \n" +
	"|  ___| |                | |   | ___ (_) |         |  ___|/  | \n" +
	"| |_  | |_   _  ___ _ __ | |_  | |_/ /_| |_  __   _|___ \\ `| | \n" +
	"|  _| | | | | |/ _ \\ '_ \\| __| | ___ \\ | __| \\ \\ / /   \\ \\ | | \n" +
	"| |   | | |_| |  __/ | | | |_  | |_/ / | |_   \\ V //\\__/ /_| |_\n" +
	"\\_|   |_|\\__,_|\\___|_| |_|\\__| \\____/|_|\\__|   \\_/ \\____(_)___/\n\n\n"

func banner(w io.Writer) {
	fmt.Fprintf(w, "Fluent Bit v%s\n* Copyright (C) 2015-2026 The Fluent Bit Authors\n"+
		"* Fluent Bit is a CNCF graduated project under the Fluent organization\n* https://fluentbit.io\n\n%s", Version, motd)
}

// options are the command line's.
type options struct {
	config, parsers string
	quiet, dryRun   bool
	verbose         int
	// cli is the pipeline given with -i/-F/-o and their -p/-m/-t.
	cli     []*conf.Section
	service []conf.Prop
}

func parseArgs(args []string, stdout io.Writer) (*options, int, bool) {
	o := &options{}
	var last *conf.Section
	for i := 0; i < len(args); i++ {
		a := args[i]
		if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
			// --config=FILE is --config FILE.
			args = append(append(append([]string{}, args[:i]...), k, v), args[i+1:]...)
			a = k
		}
		val := func() (string, bool) {
			if i+1 >= len(args) {
				fmt.Fprintf(stdout, "%s: option requires an argument -- '%s'\n", "fluent-bit", strings.TrimLeft(a, "-"))
				return "", false
			}
			i++
			return args[i], true
		}
		var v string
		ok := true
		switch a {
		case "-c", "--config":
			v, ok = val()
			o.config = v
		case "-R", "--parser":
			v, ok = val()
			o.parsers = v
		case "-i", "--input", "-o", "--output", "-F", "--filter":
			v, ok = val()
			kind := map[byte]string{'i': "INPUT", 'o': "OUTPUT", 'F': "FILTER"}[strings.TrimLeft(a, "-")[0]]
			if a == "--input" || a == "--output" || a == "--filter" {
				kind = strings.ToUpper(strings.TrimLeft(a, "-"))
			}
			last = &conf.Section{Kind: kind, Props: []conf.Prop{{Key: "Name", Val: v}}}
			o.cli = append(o.cli, last)
		case "-p", "--prop", "-m", "--match", "-t", "--tag":
			v, ok = val()
			if ok && last != nil {
				switch a {
				case "-m", "--match":
					last.Props = append(last.Props, conf.Prop{Key: "Match", Val: v})
				case "-t", "--tag":
					last.Props = append(last.Props, conf.Prop{Key: "Tag", Val: v})
				default:
					k, pv, _ := strings.Cut(v, "=")
					last.Props = append(last.Props, conf.Prop{Key: k, Val: pv})
				}
			}
		case "-f", "--flush":
			v, ok = val()
			o.service = append(o.service, conf.Prop{Key: "Flush", Val: v})
		case "-H", "--http":
			o.service = append(o.service, conf.Prop{Key: "HTTP_Server", Val: "On"})
		case "-P", "--port":
			v, ok = val()
			o.service = append(o.service, conf.Prop{Key: "HTTP_Port", Val: v})
		case "-L", "--listen":
			v, ok = val()
			o.service = append(o.service, conf.Prop{Key: "HTTP_Listen", Val: v})
		case "-v", "--verbose":
			o.verbose++
		case "-vv":
			o.verbose += 2
		case "-q", "--quiet":
			o.quiet = true
		case "-D", "--dry-run":
			o.dryRun = true
		case "-V", "--version":
			fmt.Fprintf(stdout, "Fluent Bit v%s\nGit commit: %s\n", Version, commit)
			return nil, 0, false
		case "-h", "--help":
			fmt.Fprintf(stdout, "Usage: fluent-bit [OPTION]\n")
			return nil, 0, false
		default:
			if strings.HasPrefix(a, "-") {
				fmt.Fprintf(stdout, "Usage: fluent-bit [OPTION]\n")
				return nil, 1, false
			}
			// Operands are ignored: the images' CMD repeats the
			// program's name before -c.
		}
		if !ok {
			return nil, 1, false
		}
	}
	return o, 0, true
}

// Main is fluent-bit.
func Main(ctx context.Context, p *program.Proc) int {
	o, code, ok := parseArgs(p.Args[1:], p.Stdout)
	if !ok {
		return code
	}
	log := &logger{out: p.Stderr, now: p.Sys.Clock.Now, level: levelInfo}
	if o.quiet {
		log.level = levelOff
	} else {
		banner(p.Stderr)
	}
	e, err := configure(p, o, log)
	if err != nil {
		log.errorf("%s", err)
		if _, isConf := err.(*conf.Error); isConf {
			log.errorf("configuration file contains errors, aborting.")
		}
		return 1
	}
	if o.dryRun {
		io.WriteString(p.Stderr, "configuration test is successful\n")
		return 0
	}
	if err := e.start(ctx); err != nil {
		log.errorf("%s", err)
		return 1
	}
	e.run(ctx)
	return 0
}

// configure reads the configuration into an engine.
func configure(p *program.Proc, o *options, log *logger) (*engine, error) {
	e := newEngine(p, log)
	l := conf.NewLoader(p.Sys, func(s string) { log.warnf("%s", s) })
	if o.config != "" {
		if _, err := p.Sys.FS.Stat(p.Sys.FS.Abs(p.Dir, o.config)); err != nil {
			return nil, fmt.Errorf("could not open configuration file, aborting.")
		}
		name := p.Sys.FS.Abs(p.Dir, o.config)
		if err := l.Load(name); err != nil {
			return nil, err
		}
		e.confDir = conf.DirOf(name)
	}
	sections := append(l.Sections, o.cli...)
	service := &conf.Section{Kind: "SERVICE"}
	for _, s := range sections {
		if s.Kind == "SERVICE" {
			service.Props = append(service.Props, s.Props...)
		}
	}
	service.Props = append(service.Props, o.service...)
	e.vars = l.Vars
	if err := e.setService(service, o); err != nil {
		return nil, err
	}
	if o.parsers != "" {
		if err := e.loadParsers(p.Sys.FS.Abs(p.Dir, o.parsers)); err != nil {
			return nil, err
		}
	}
	for _, s := range sections {
		if s.Kind == "PARSER" {
			if err := e.addParser(s); err != nil {
				return nil, err
			}
		}
	}
	for _, kind := range []string{"INPUT", "FILTER", "OUTPUT"} {
		for _, s := range sections {
			if s.Kind != kind {
				continue
			}
			if err := e.instance(s); err != nil {
				return nil, err
			}
		}
	}
	return e, nil
}

// setService applies [SERVICE].
func (e *engine) setService(s *conf.Section, o *options) error {
	get := func(k string) (string, bool) {
		v, ok := s.Get(k)
		return e.expand(v), ok
	}
	if v, ok := get("Flush"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			return fmt.Errorf("invalid flush value, aborting.")
		}
		e.flush = time.Duration(f * float64(time.Second))
	}
	if v, ok := get("Log_Level"); ok {
		if lv, known := levelNames[strings.ToLower(v)]; known && !o.quiet {
			e.log.level = lv
		}
	}
	if o.verbose > 0 && !o.quiet {
		e.log.level = min(levelTrace, levelInfo+o.verbose)
	}
	if v, ok := get("HTTP_Server"); ok {
		e.http.on = isTrue(v)
	}
	if v, ok := get("HTTP_Listen"); ok {
		e.http.listen = v
	}
	if v, ok := get("HTTP_Port"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 65535 {
			return conf.Errorf("[config] invalid HTTP_Port '%s'", v)
		}
		e.http.port = n
	}
	if v, ok := get("Health_Check"); ok {
		e.http.healthCheck = isTrue(v)
	}
	if v, ok := get("HC_Errors_Count"); ok {
		e.http.hcErrors, _ = strconv.Atoi(v)
	}
	if v, ok := get("HC_Retry_Failure_Count"); ok {
		e.http.hcRetryFailures, _ = strconv.Atoi(v)
	}
	if v, ok := get("Parsers_File"); ok {
		for _, f := range s.All("Parsers_File") {
			f = e.expand(f)
			if !conf.IsAbs(f) {
				f = e.confDir + "/" + f
			}
			if err := e.loadParsers(e.p.Sys.FS.Abs("/", f)); err != nil {
				return err
			}
		}
		_ = v
	}
	return nil
}

func (e *engine) loadParsers(name string) error {
	l := conf.NewLoader(e.p.Sys, func(s string) { e.log.warnf("%s", s) })
	l.Vars = e.vars
	if _, err := e.p.Sys.FS.Stat(name); err != nil {
		return fmt.Errorf("[parser] file %s cannot be opened", name)
	}
	if err := l.Load(name); err != nil {
		return err
	}
	for _, s := range l.Sections {
		if s.Kind == "PARSER" {
			if err := e.addParser(s); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *engine) addParser(s *conf.Section) error {
	p, err := newParser(s)
	if err != nil {
		return err
	}
	e.parsers[p.name] = p
	return nil
}

func (e *engine) expand(s string) string {
	return conf.Expand(s, e.p, e.vars, func(w string) { e.log.warnf("%s", w) })
}

func isTrue(v string) bool {
	switch strings.ToLower(v) {
	case "on", "true", "yes", "1":
		return true
	}
	return false
}

// matchTag is flb_router_match: * matches any run of characters.
func matchTag(pattern, tag string) bool {
	if pattern == "*" {
		return true
	}
	for {
		i := strings.IndexByte(pattern, '*')
		if i < 0 {
			return pattern == tag
		}
		if !strings.HasPrefix(tag, pattern[:i]) {
			return false
		}
		tag, pattern = tag[i:], pattern[i+1:]
		if pattern == "" {
			return true
		}
		for k := 0; k <= len(tag); k++ {
			if matchTag(pattern, tag[k:]) {
				return true
			}
		}
		return false
	}
}

// sortedNames is the keys of a map in order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
