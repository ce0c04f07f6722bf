// Package winexporter is windows_exporter.exe (prometheus-community,
// v0.31.8), the Prometheus metrics agent of Windows nodes, as its image
// ghcr.io/prometheus-community/windows-exporter runs it: kingpin's
// flags and config file, promslog's startup lines, and /health, /version
// and the metrics path served on the container's network with
// client_golang's registry and promhttp. The series are the real
// collectors' names, help texts and labels, valued from what the
// container's Sys knows of the node: its OS (Sys.OS), hostname, address,
// processors, and — when the node provides Sys.Machine — its memory,
// load, services and containers.
package winexporter

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// The build this program is: v0.31.8 as its release workflow built it
// (promu with the tag's commit, Go 1.25.12, a detached HEAD).
const (
	version   = "0.31.8"
	revision  = "c73b596c0ebb4088bb9b9422a26903f8a35cec86"
	branch    = "HEAD"
	goVersion = "go1.25.12"
	buildDate = "20260722-19:52:14"
)

// Table is the program of the image by program.Name.
func Table() map[string]program.Main {
	return map[string]program.Main{"windows_exporter": Main}
}

// versionText is version.Print("windows_exporter"), --version's output.
func versionText() string {
	return fmt.Sprintf("windows_exporter, version %s (branch: %s, revision: %s)\n  build user:       \n  build date:       %s\n  go version:       %s\n  platform:         windows/amd64\n  tags:             unknown",
		version, branch, revision, buildDate, goVersion)
}

// Main runs windows_exporter: it parses its flags, builds its collectors,
// logs its start and serves until stopped (program.Forever).
func Main(ctx context.Context, p *program.Proc) int {
	start := p.Sys.Clock.Now()
	o, done, err := parseFlags(p)
	if done {
		if err != nil {
			return 1
		}
		return 0
	}
	if err != nil {
		// No logger yet: Go's default slog handler writes it.
		fmt.Fprintf(p.Stderr, "%s ERROR Failed to load configuration err=%q\n", start.UTC().Format("2006/01/02 15:04:05"), err.Error())
		return 1
	}
	logger, err := newLogger(p, o)
	if err != nil {
		fmt.Fprintf(p.Stderr, "%s ERROR failed to create logger err=%q\n", start.UTC().Format("2006/01/02 15:04:05"), err.Error())
		return 1
	}
	logger.Debug("logging has Started")
	if o.configFile != "" {
		logger.Info("using configuration file: " + o.configFile)
	}
	enabled := expandCollectors(o.enabled)
	cols, err := newCollection(p, o, enabled)
	if err != nil {
		logger.Error("couldn't enable collectors", slog.Any("err", err))
		return 1
	}
	logCurrentUser(p, logger)
	logger.Info("Enabled collectors: " + strings.Join(enabled, ", "))
	logger.Info(fmt.Sprintf("starting windows_exporter in %s", p.Sys.Clock.Now().Sub(start)),
		slog.String("version", version), slog.String("branch", branch), slog.String("revision", revision),
		slog.String("goversion", goVersion), slog.String("builddate", buildDate),
		slog.Int("maxprocs", processors(p)))
	if err := serve(ctx, p, o, cols, logger); err != nil {
		logger.Error("Failed to start windows_exporter", slog.Any("err", err))
		return 1
	}
	return program.Forever
}

// expandCollectors is expandEnabledCollectors: [defaults] stands for
// the default list; neighbouring duplicates collapse.
func expandCollectors(enabled string) []string {
	return slices.Compact(strings.Split(strings.ReplaceAll(enabled, "[defaults]", defaultCollectors), ","))
}

// logCurrentUser says who the process runs as, and warns as upstream
// does when that is a container account rather than a HostProcess one.
func logCurrentUser(p *program.Proc, logger *slog.Logger) {
	name := p.Sys.User.Account
	if !strings.Contains(name, `\`) {
		name = `User Manager\` + name
	}
	logger.Info("Running as " + name)
	if strings.Contains(name, "ContainerAdministrator") || strings.Contains(name, "ContainerUser") {
		logger.Warn("Running as a preconfigured Windows Container user. This may mean you do not have Windows HostProcess containers configured correctly and some functionality will not work as expected.")
	}
}

// processors is the node's logical processors: the machine's when the
// node reports it, else NUMBER_OF_PROCESSORS, which a process-isolated
// container inherits from its host.
func processors(p *program.Proc) int {
	if p.Sys.Machine != nil {
		if n := p.Sys.Machine().LogicalProcessors; n > 0 {
			return n
		}
	}
	n := 0
	fmt.Sscan(p.Getenv("NUMBER_OF_PROCESSORS"), &n)
	return max(n, 1)
}

// newLogger is log.New: promslog's slog style to the --log.file, with
// the container's clock.
func newLogger(p *program.Proc, o *options) (*slog.Logger, error) {
	var w io.Writer
	switch o.logFile {
	case "stdout":
		w = p.Stdout
	case "stderr":
		w = p.Stderr
	case "eventlog":
		// The Application event log is not modelled; its lines are
		// dropped rather than shown where Windows would not show them.
		w = io.Discard
	default:
		f, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, o.logFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o200)
		if err != nil {
			return nil, fmt.Errorf("failed to open log file: open %s: %s", o.logFile, program.ErrorText(err, true))
		}
		w = f
	}
	// promslog.New's handler, without AddSource: its source=file:line
	// would name this emulation's files, not windows_exporter's.
	opts := &slog.HandlerOptions{Level: o.logLevel, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if d, ok := a.Value.Any().(time.Duration); ok {
			a.Value = slog.StringValue(d.String())
		}
		return a
	}}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if o.logFormat.String() == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(clockHandler{Handler: h, clock: p.Sys.Clock}), nil
}

// clockHandler stamps records with the container's clock.
type clockHandler struct {
	slog.Handler
	clock program.Clock
}

func (h clockHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Time = h.clock.Now()
	return h.Handler.Handle(ctx, r)
}

func (h clockHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return clockHandler{Handler: h.Handler.WithAttrs(attrs), clock: h.clock}
}

func (h clockHandler) WithGroup(name string) slog.Handler {
	return clockHandler{Handler: h.Handler.WithGroup(name), clock: h.clock}
}
