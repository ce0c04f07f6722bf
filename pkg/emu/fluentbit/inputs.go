package fluentbit

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/eventlog"
)

// inputPlugins are the input plugins of the images' builds by name; a
// maker returns nil on the OS whose build lacks the plugin (winlog is
// Windows only, systemd and kmsg Linux only).
var inputPlugins = map[string]func(windows bool) input{
	"tail":   func(bool) input { return &tailInput{} },
	"dummy":  func(bool) input { return &dummyInput{} },
	"cpu":    func(bool) input { return &cpuInput{} },
	"winlog": func(w bool) input { return onlyOn(w, true, &winlogInput{}) },
}

func onlyOn(windows, want bool, in input) input {
	if windows != want {
		return nil
	}
	return in
}

func init() {
	// Plugins of the images' builds that winkube does not model: they
	// start, say so once, and collect nothing.
	both := []string{"forward", "http", "tcp", "udp", "syslog", "mem", "exec", "random", "health",
		"fluentbit_metrics", "prometheus_scrape", "opentelemetry", "kubernetes_events", "statsd",
		"collectd", "mqtt", "elasticsearch", "splunk", "stdin", "head", "prometheus_textfile"}
	linux := []string{"systemd", "kmsg", "disk", "netif", "proc", "thermal", "node_exporter_metrics",
		"process_exporter_metrics", "docker", "docker_events", "podman_metrics", "serial", "cpu_exporter"}
	windows := []string{"winevtlog", "winstat", "windows_exporter_metrics"}
	for _, n := range both {
		inputPlugins[n] = func(bool) input { return unmodelledInput{} }
	}
	for _, n := range linux {
		inputPlugins[n] = func(w bool) input { return onlyOn(w, false, unmodelledInput{}) }
	}
	for _, n := range windows {
		inputPlugins[n] = func(w bool) input { return onlyOn(w, true, unmodelledInput{}) }
	}
}

type unmodelledInput struct{}

func (unmodelledInput) init(in *inputInstance) error {
	in.once("input", "unmodelled", levelWarn, "winkube: the "+in.plugin+" input is not emulated; it collects nothing")
	return nil
}
func (unmodelledInput) collect(*inputInstance, time.Time) []*record { return nil }

// intervalOf reads Interval_Sec and Interval_NSec.
func intervalOf(in *inputInstance, def time.Duration) time.Duration {
	d := def
	if v, ok := in.prop("Interval_Sec"); ok {
		if s, err := strconv.ParseFloat(strings.TrimSuffix(v, "s"), 64); err == nil && s >= 0 {
			d = time.Duration(s * float64(time.Second))
		}
	}
	if v, ok := in.prop("Interval_NSec"); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			d += time.Duration(n)
		}
	}
	if d <= 0 {
		d = def
	}
	return d
}

// dummyInput is in_dummy: Rate copies a second of Dummy (a JSON map),
// Samples in all when set.
type dummyInput struct {
	body    []field
	sent    int
	samples int
}

func (d *dummyInput) init(in *inputInstance) error {
	text := in.propOr("Dummy", `{"message":"dummy"}`)
	v, ok := parseJSON(text)
	body, isMap := v.([]field)
	if !ok || !isMap {
		in.once("input", "json", levelWarn, "data is incomplete. Use default string.")
		body = []field{{"message", "dummy"}}
	}
	d.body = body
	rate := 1.0
	if v, ok := in.prop("Rate"); ok {
		if r, err := strconv.ParseFloat(v, 64); err == nil && r > 0 {
			rate = r
		}
	}
	in.interval = time.Duration(float64(time.Second) / rate)
	if v, ok := in.prop("Samples"); ok {
		d.samples, _ = strconv.Atoi(v)
	}
	return nil
}

func (d *dummyInput) collect(in *inputInstance, now time.Time) []*record {
	if d.samples > 0 && d.sent >= d.samples {
		return nil
	}
	d.sent++
	return []*record{{body: append([]field(nil), d.body...)}}
}

// cpuInput is in_cpu: the processor use since the last look, in percent
// of the machine (cpu_p) and per mode. The node counts processor time
// without a user/kernel split, so all of it is reported as user time.
type cpuInput struct {
	last     time.Duration
	lastTime time.Time
}

func (c *cpuInput) init(in *inputInstance) error {
	in.interval = intervalOf(in, time.Second)
	if in.e.p.Sys.Machine == nil {
		in.once("input", "nomachine", levelWarn, "winkube: the node reports no processor counters here; cpu collects nothing")
	}
	return nil
}

func (c *cpuInput) collect(in *inputInstance, now time.Time) []*record {
	if in.e.p.Sys.Machine == nil {
		return nil
	}
	m := in.e.p.Sys.Machine()
	defer func() { c.last, c.lastTime = m.CPUBusy, now }()
	if c.lastTime.IsZero() || m.LogicalProcessors == 0 {
		return nil
	}
	wall := now.Sub(c.lastTime) * time.Duration(m.LogicalProcessors)
	p := 0.0
	if wall > 0 {
		p = 100 * float64(m.CPUBusy-c.last) / float64(wall)
	}
	body := []field{{"cpu_p", p}, {"user_p", p}, {"system_p", 0.0}}
	for i := 0; i < m.LogicalProcessors; i++ {
		body = append(body, field{fmt.Sprintf("cpu%d.p_cpu", i), p}, field{fmt.Sprintf("cpu%d.p_user", i), p}, field{fmt.Sprintf("cpu%d.p_system", i), 0.0})
	}
	return []*record{{body: body}}
}

// winlogInput is in_winlog: the classic event log's channels (Channels,
// comma-separated), from their oldest record, as ReadEventLog reads
// them; the container's event log pushes each new entry to it.
type winlogInput struct {
	mu      sync.Mutex
	queue   []eventlog.Entry
	inserts bool
	sub     *eventlog.Subscription
	host    string
	channel map[string]string // the configured name, by log
}

func (w *winlogInput) init(in *inputInstance) error {
	chans := in.propOr("Channels", "")
	if chans == "" {
		return fmt.Errorf("no channel provided")
	}
	in.interval = intervalOf(in, time.Second)
	w.inserts = isTrue(in.propOr("String_Inserts", "true"))
	w.host = strings.ToUpper(in.e.p.Sys.Hostname)
	store := in.e.p.Sys.EventLog()
	var names []string
	w.channel = map[string]string{}
	for _, c := range strings.Split(chans, ",") {
		c = strings.TrimSpace(c)
		name, ok := store.LogName(c)
		if !ok {
			// OpenEventLog opens the Application log in place of a log
			// the machine lacks (the default config's Setup in a
			// container); the records keep the channel's name as given.
			name = "Application"
		}
		names = append(names, name)
		w.channel[strings.ToLower(name)] = c
	}
	w.sub = store.Subscribe(names, true, func(e eventlog.Entry) {
		w.mu.Lock()
		w.queue = append(w.queue, e)
		w.mu.Unlock()
	})
	return nil
}

func (w *winlogInput) collect(in *inputInstance, now time.Time) []*record {
	w.mu.Lock()
	q := w.queue
	w.queue = nil
	w.mu.Unlock()
	out := make([]*record, 0, len(q))
	for _, e := range q {
		t := e.Time.Format("2006-01-02 15:04:05 -0700")
		sid := e.User
		body := []field{
			{"RecordNumber", uint64(e.Index)}, {"TimeGenerated", t}, {"TimeWritten", t},
			{"EventID", uint64(e.EventID & 0xffff)}, {"Qualifiers", uint64(e.EventID >> 16)},
			{"EventType", e.Type.String()}, {"EventCategory", uint64(e.Category)},
			{"Channel", w.channel[strings.ToLower(e.Log)]}, {"SourceName", e.Source}, {"ComputerName", w.host},
			{"Data", bin(nil)}, {"Sid", sid}, {"Message", e.Message},
		}
		if w.inserts {
			body = append(body, field{"StringInserts", []any{e.Message}})
		}
		out = append(out, &record{body: body, time: now})
	}
	return out
}

// readAll reads a file's bytes from off to its end.
func readFrom(in *inputInstance, name string, off int64) ([]byte, int64) {
	fsys := in.e.p.Sys.FS
	f, err := fsys.OpenFile(fsys.Abs("/", name), 0, 0)
	if err != nil {
		return nil, off
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, off
	}
	if st.Size() < off {
		// Truncated: fluent-bit reads it again from the start.
		in.once("input", "trunc:"+name, levelInfo, fmt.Sprintf("file truncated %s", name))
		off = 0
	}
	if st.Size() == off {
		return nil, off
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, off
	}
	b, _ := io.ReadAll(io.LimitReader(f, st.Size()-off))
	return b, off + int64(len(b))
}
