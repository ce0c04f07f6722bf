package fluentbit

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// httpConfig is [SERVICE]'s HTTP_Server settings.
type httpConfig struct {
	on                        bool
	listen                    string
	port                      int
	healthCheck               bool
	hcErrors, hcRetryFailures int
}

// flags are build flags of the images' builds that / lists (the
// features this emulation has among them).
var flags = []string{"FLB_HAVE_IN_STORAGE_BACKLOG", "FLB_HAVE_CHUNK_TRACE", "FLB_HAVE_PARSER",
	"FLB_HAVE_RECORD_ACCESSOR", "FLB_HAVE_STREAM_PROCESSOR", "FLB_HAVE_TLS", "FLB_HAVE_METRICS",
	"FLB_HAVE_HTTP_SERVER", "FLB_HAVE_REGEX", "FLB_HAVE_UTF8_ENCODER"}

// serveHTTP binds the HTTP server on the pod's port.
func (e *engine) serveHTTP(ctx context.Context) error {
	if e.p.Sys.Net == nil {
		e.log.warnf("[http_server] winkube: the pod has no network here; the HTTP server does not listen")
		return nil
	}
	handle := func(c io.ReadWriteCloser) { e.serveConn(c) }
	if srv, ok := e.p.Sys.Net.(program.Server); ok {
		if err := srv.Serve(ctx, "tcp", e.http.port, handle); err != nil {
			return fmt.Errorf("[http_server] could not bind address %s:%d. Aborting", e.http.listen, e.http.port)
		}
		return nil
	}
	l, err := e.p.Sys.Net.Listen(ctx, "tcp", e.http.port)
	if err != nil {
		return fmt.Errorf("[http_server] could not bind address %s:%d. Aborting", e.http.listen, e.http.port)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
	return nil
}

func (e *engine) serveConn(c io.ReadWriteCloser) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		status, ctype, body := e.route(req.URL.Path)
		h := http.Header{}
		if ctype != "" {
			h.Set("Content-Type", ctype)
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		resp := &http.Response{StatusCode: status, ProtoMajor: 1, ProtoMinor: 1, Request: req, Header: h,
			ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body)), Close: req.Close}
		if err := resp.Write(c); err != nil || req.Close {
			return
		}
	}
}

// route answers the v1 endpoints.
func (e *engine) route(path string) (int, string, []byte) {
	switch strings.TrimSuffix(path, "/") {
	case "":
		var b bytes.Buffer
		writeJSON(&b, []field{{"fluent-bit", []field{{"version", Version}, {"edition", "Community"}, {"flags", anyStrings(flags)}}}})
		return 200, "application/json", b.Bytes()
	case "/api/v1/health":
		if e.healthy() {
			return 200, "text/plain", []byte("ok\n")
		}
		return 500, "text/plain", []byte("error\n")
	case "/api/v1/uptime":
		up := int64(e.p.Sys.Clock.Now().Sub(e.started).Seconds())
		var b bytes.Buffer
		writeJSON(&b, []field{{"uptime_sec", uint64(up)}, {"uptime_hr", uptimeText(up)}})
		return 200, "application/json", b.Bytes()
	case "/api/v1/metrics":
		var b bytes.Buffer
		writeJSON(&b, e.metrics())
		return 200, "application/json", b.Bytes()
	case "/api/v1/metrics/prometheus":
		return 200, "text/plain; version=0.0.4", e.prometheus()
	}
	return 404, "", nil
}

// healthy is the health check: with Health_Check on, fewer output
// errors and failed retries than HC_Errors_Count and
// HC_Retry_Failure_Count (fluent-bit counts them per period; winkube
// since start).
func (e *engine) healthy() bool {
	if !e.http.healthCheck {
		return true
	}
	var errs, failed uint64
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, o := range e.outputs {
		errs += o.errors
		failed += o.retriesFailed
	}
	return errs < uint64(e.http.hcErrors) && failed < uint64(e.http.hcRetryFailures)
}

func uptimeText(sec int64) string {
	d, h, m, s := sec/86400, sec%86400/3600, sec%3600/60, sec%60
	return fmt.Sprintf("Fluent Bit has been running:  %d day, %d hour, %d minute and %d second", d, h, m, s)
}

func anyStrings(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// metrics is /api/v1/metrics: the old per-instance counters.
func (e *engine) metrics() []field {
	e.mu.Lock()
	defer e.mu.Unlock()
	var in, flt, out []field
	for _, i := range e.inputs {
		in = append(in, field{i.name, []field{{"records", i.records}, {"bytes", i.bytes}}})
	}
	for _, f := range e.filters {
		flt = append(flt, field{f.name, []field{{"drop_records", uint64(0)}, {"add_records", uint64(0)}, {"records", f.records}}})
	}
	for _, o := range e.outputs {
		out = append(out, field{o.name, []field{{"proc_records", o.records}, {"proc_bytes", o.bytes}, {"errors", o.errors},
			{"retries", o.retries}, {"retries_failed", o.retriesFailed}, {"dropped_records", o.drp}, {"retried_records", uint64(0)}}})
	}
	return []field{{"input", nonNil(in)}, {"filter", nonNil(flt)}, {"output", nonNil(out)}}
}

func nonNil(f []field) []field {
	if f == nil {
		return []field{}
	}
	return f
}

// prometheus is /api/v1/metrics/prometheus: every counter as
// fluentbit_<kind>_<metric>_total{name="<instance>"} <value> <ms>,
// sorted, with HELP and TYPE lines, then uptime and build info.
func (e *engine) prometheus() []byte {
	now := e.p.Sys.Clock.Now()
	var lines []string
	for _, kind := range e.metrics() {
		for _, ins := range kind.val.([]field) {
			for _, m := range ins.val.([]field) {
				lines = append(lines, fmt.Sprintf("fluentbit_%s_%s_total{name=\"%s\"} %d %d\n", kind.key, m.key, ins.key, m.val, now.UnixMilli()))
			}
		}
	}
	sort.Strings(lines)
	var b strings.Builder
	prev := ""
	for _, l := range lines {
		name := l[:strings.IndexByte(l, '{')]
		if name != prev {
			fmt.Fprintf(&b, "# HELP %s%s# TYPE %s counter\n", name, helpText(name), name)
			prev = name
		}
		b.WriteString(l)
	}
	fmt.Fprintf(&b, "# HELP fluentbit_uptime Number of seconds that Fluent Bit has been running.\n# TYPE fluentbit_uptime counter\nfluentbit_uptime %d\n", int64(now.Sub(e.started).Seconds()))
	fmt.Fprintf(&b, "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %d\n", e.started.Unix())
	fmt.Fprintf(&b, "# HELP fluentbit_build_info Build version information.\n# TYPE fluentbit_build_info gauge\nfluentbit_build_info{version=\"%s\",edition=\"Community\"} 1\n", Version)
	return []byte(b.String())
}

// helpText is metrics_help_txt, in its order of tests.
func helpText(name string) string {
	for _, h := range [][2]string{
		{"input_bytes", " Number of input bytes.\n"}, {"input_records", " Number of input records.\n"},
		{"output_bytes", " Number of output bytes.\n"}, {"output_records", " Number of output records.\n"},
		{"output_errors", " Number of output errors.\n"},
		{"output_retries_failed", " Number of abandoned batches because the maximum number of re-tries was reached.\n"},
		{"output_retries", " Number of output retries.\n"}, {"output_proc_records", " Number of processed output records.\n"},
		{"output_proc_bytes", " Number of processed output bytes.\n"}, {"output_dropped_records", " Number of dropped records.\n"},
		{"output_retried_records", " Number of retried records.\n"},
	} {
		if strings.Contains(name, h[0]) {
			return h[1]
		}
	}
	return " Fluentbit metrics.\n"
}
