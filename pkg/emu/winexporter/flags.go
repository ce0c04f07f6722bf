package winexporter

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"
	promslogflag "github.com/prometheus/common/promslog/flag"
	"go.yaml.in/yaml/v3"

	"github.com/winkube/winkube/pkg/emu/program"
)

// options are windows_exporter's flags after the config file and the
// command line (cmd/windows_exporter/main.go of v0.31.8).
type options struct {
	configFile          string
	listenAddresses     []string
	webConfigFile       string
	metricsPath         string
	disableExporter     bool
	enabled, disabled   string
	logLevel            *promslog.Level
	logFormat           *promslog.Format
	logFile             string
	nicInclude          string
	nicExclude          string
	serviceInclude      string
	serviceExclude      string
	textfileDirectories string
}

// errExit is raised by kingpin's terminate (--help, --version): the
// program has printed what was asked and ends with status 0.
type errExit struct{ code int }

// newApp is the kingpin application with windows_exporter's flags, so a
// flag the real program does not have fails as it does there ("unknown
// long flag").
func newApp(o *options, stdout, stderr io.Writer) *kingpin.Application {
	app := kingpin.New("windows_exporter", "A metrics collector for Windows.")
	app.UsageWriter(stdout).ErrorWriter(stderr)
	app.Terminate(func(code int) { panic(errExit{code}) })
	app.Flag("config.file", "YAML configuration file to use. Values set in this file will be overridden by CLI flags.").StringVar(&o.configFile)
	// exporter-toolkit's kingpinflag (no systemd socket off Linux).
	app.Flag("web.listen-address", "Addresses on which to expose metrics and web interface. Repeatable for multiple addresses. Examples: `:9100` or `[::1]:9100` for http, `vsock://:9100` for vsock").Default(":9182").StringsVar(&o.listenAddresses)
	app.Flag("web.config.file", "Path to configuration file that can enable TLS or authentication. See: https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md").Default("").StringVar(&o.webConfigFile)
	app.Flag("telemetry.path", "URL path for surfacing collected metrics.").Default("/metrics").StringVar(&o.metricsPath)
	app.Flag("web.disable-exporter-metrics", "Exclude metrics about the exporter itself (promhttp_*, process_*, go_*).").BoolVar(&o.disableExporter)
	app.Flag("collectors.enabled", "Comma-separated list of collectors to use. Use '[defaults]' as a placeholder for all the collectors enabled by default.").Default(defaultCollectors).StringVar(&o.enabled)
	app.Flag("collectors.disabled", "Comma-separated list of collectors to exclude. Can be used to disable collector from the defaults.").Default("").StringVar(&o.disabled)
	app.Flag("scrape.timeout-margin", "Seconds to subtract from the timeout allowed by the client. Tune to allow for overhead or high loads.").Default("0.5").Float64()
	app.Flag("debug.enabled", "If true, windows_exporter will expose debug endpoints under /debug/pprof.").Default("false").Bool()
	app.Flag("process.priority", `Priority of the exporter process. Higher priorities may improve exporter responsiveness during periods of system load. Can be one of ["realtime", "high", "abovenormal", "normal", "belownormal", "low"]`).Default("normal").String()
	app.Flag("process.memory-limit", "Limit memory usage in bytes. This is a soft-limit and not guaranteed. 0 means no limit. Read more at https://pkg.go.dev/runtime/debug#SetMemoryLimit .").Default("200000000").Int64()
	lc := &promslog.Config{}
	promslogflag.AddFlags(app, lc)
	o.logLevel, o.logFormat = lc.Level, lc.Format
	app.Flag("log.file", "Output file of log messages. One of [stdout, stderr, eventlog, <path to log file>]").Default("stdout").StringVar(&o.logFile)
	app.Version(versionText())
	app.HelpFlag.Short('h')
	addCollectorFlags(app, o)
	return app
}

// addCollectorFlags registers the collectors' own flags: those of the
// collectors this emulation runs set its options, the others are
// accepted as the real program accepts them.
func addCollectorFlags(app *kingpin.Application, o *options) {
	app.Flag("collector.net.nic-exclude", "Regexp of NIC:s to exclude. NIC name must both match include and not match exclude to be included.").Default("").StringVar(&o.nicExclude)
	app.Flag("collector.net.nic-include", "Regexp of NIC:s to include. NIC name must both match include and not match exclude to be included.").Default(".+").StringVar(&o.nicInclude)
	app.Flag("collector.service.exclude", "Regexp of service to exclude. Service name (not the display name!) must both match include and not match exclude to be included.").Default("").StringVar(&o.serviceExclude)
	app.Flag("collector.service.include", "Regexp of service to include. Process name (not the display name!) must both match include and not match exclude to be included.").Default(".+").StringVar(&o.serviceInclude)
	app.Flag("collector.textfile.directories", "Directory or Directories to read text files with metrics from.").Default(`C:\Program Files\windows_exporter\textfile_inputs`).StringVar(&o.textfileDirectories)
	for _, name := range otherStringFlags {
		app.Flag(name, "").Hidden().String()
	}
	for _, name := range []string{"collector.exchange.list", "collector.process.iis", "collector.process.cmdline", "collector.update.online"} {
		app.Flag(name, "").Hidden().Bool()
	}
	app.Flag("collector.process.counter-version", "").Hidden().Default("0").Uint8()
	app.Flag("collector.update.scrape-interval", "").Hidden().Default("6h0m0s").Duration()
}

// otherStringFlags are the string flags of v0.31.8's other collectors.
var otherStringFlags = []string{
	"collector.container.containerd-state-dir", "collector.container.enabled", "collector.dhcp.enabled",
	"collector.dns.enabled", "collector.exchange.enabled", "collector.filetime.file-patterns",
	"collector.hyperv.enabled", "collector.iis.app-exclude", "collector.iis.app-include",
	"collector.iis.site-exclude", "collector.iis.site-include", "collector.logical_disk.volume-exclude",
	"collector.logical_disk.volume-include", "collector.mscluster.enabled", "collector.mssql.enabled",
	"collector.net.enabled", "collector.netframework.enabled", "collector.performancecounter.objects",
	"collector.physical_disk.disk-exclude", "collector.physical_disk.disk-include", "collector.printer.exclude",
	"collector.printer.include", "collector.process.exclude", "collector.process.include",
	"collector.scheduled_task.exclude", "collector.scheduled_task.include", "collector.smtp.server-exclude",
	"collector.smtp.server-include", "collector.tcp.enabled", "collector.time.enabled",
}

// parseFlags is internal/config.Parse: the config file's values become
// the flags' defaults, then the command line is parsed. done reports
// --help or --version, which printed their text.
func parseFlags(p *program.Proc) (o *options, done bool, err error) {
	o = &options{}
	app := newApp(o, p.Stdout, p.Stderr)
	args := p.Args[1:]
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(errExit)
			if !ok {
				panic(r)
			}
			done, err = true, nil
			if e.code != 0 {
				err = fmt.Errorf("exit status %d", e.code)
			}
		}
	}()
	if name := configFileArg(args); name != "" {
		values, err := readConfigFile(p, name)
		if err != nil {
			return nil, false, fmt.Errorf("failed to load configuration file: %w", err)
		}
		if _, err := app.ParseContext(args); err != nil {
			return nil, false, fmt.Errorf("failed to bind configuration: %w", err)
		}
		for name, value := range values {
			if f := app.GetFlag(name); f != nil {
				f.Default(value)
			}
		}
	}
	if _, err := app.Parse(args); err != nil {
		return nil, false, fmt.Errorf("failed to parse flags: %w", err)
	}
	return o, false, nil
}

// configFileArg is config.ParseConfigFile: only the --config.file=X
// spelling is read before the flags are parsed (upstream's "--config.file
// X" branch reads os.Args, shifted by one, which this follows).
func configFileArg(args []string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--config.file="); ok {
			return v
		}
		if v, ok := strings.CutPrefix(a, "-config.file="); ok {
			return v
		}
		if strings.HasSuffix(a, "-config.file") {
			// upstream indexes os.Args (argv[0] included) with i+1: the
			// flag itself.
			if i+1 > len(args) {
				return ""
			}
			return args[i]
		}
	}
	return ""
}

// configFile is the structure the config file is validated against
// (unknown keys are an error).
type configFile struct {
	Debug struct {
		Enabled bool `yaml:"enabled"`
	} `yaml:"debug"`
	Collectors struct {
		Enabled string `yaml:"enabled"`
	} `yaml:"collectors"`
	Collector map[string]any `yaml:"collector"`
	Log       struct {
		Level  string `yaml:"level"`
		Format string `yaml:"format"`
		File   string `yaml:"file"`
	} `yaml:"log"`
	Process struct {
		Priority    string `yaml:"priority"`
		MemoryLimit string `yaml:"memory-limit"`
	} `yaml:"process"`
	Scrape struct {
		TimeoutMargin string `yaml:"timeout-margin"`
	} `yaml:"scrape"`
	Telemetry struct {
		Path string `yaml:"path"`
	} `yaml:"telemetry"`
	Web struct {
		DisableExporterMetrics bool `yaml:"disable-exporter-metrics"`
		ListenAddresses        any  `yaml:"listen-address"`
		Config                 struct {
			File string `yaml:"file"`
		} `yaml:"config"`
	} `yaml:"web"`
}

// readConfigFile reads the YAML config file from the container's
// filesystem and flattens it to flag names (collectors.enabled).
func readConfigFile(p *program.Proc, name string) (map[string]string, error) {
	fs := p.Sys.FS
	f, err := fs.OpenFile(fs.Abs(p.Dir, name), os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("failed to open configuration file: open %s: %s", name, program.ErrorText(err, true))
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("failed to open configuration file: %w", err)
	}
	var check configFile
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&check); err != nil {
		if errors.Is(err, io.EOF) {
			return map[string]string{}, nil
		}
		return nil, fmt.Errorf("configuration file validation error: %w", err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("failed to parse configuration file: %w", err)
	}
	out := map[string]string{}
	flatten("", raw, out)
	return out, nil
}

// flatten joins nested keys with dots and lists with commas, as
// upstream's config.flatten does.
func flatten(prefix string, data map[string]any, out map[string]string) {
	for k, v := range data {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		switch val := v.(type) {
		case map[string]any:
			flatten(key, val, out)
		case []any:
			parts := make([]string, len(val))
			for i, e := range val {
				parts[i] = fmt.Sprint(e)
			}
			out[key] = strings.Join(parts, ",")
		default:
			out[key] = fmt.Sprint(val)
		}
	}
}
