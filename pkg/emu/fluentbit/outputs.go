package fluentbit

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// outputPlugins are the output plugins by name.
var outputPlugins = map[string]func() output{
	"stdout":  func() output { return &stdoutOutput{} },
	"null":    func() output { return nullOutput{} },
	"http":    func() output { return &httpOutput{} },
	"forward": func() output { return &forwardOutput{} },
}

func init() {
	for _, n := range []string{"es", "opensearch", "loki", "s3", "cloudwatch_logs", "kafka", "kafka-rest",
		"splunk", "datadog", "azure", "azure_blob", "azure_logs_ingestion", "azure_kusto", "stackdriver",
		"opentelemetry", "prometheus_exporter", "prometheus_remote_write", "file", "counter", "tcp", "udp",
		"syslog", "gelf", "influxdb", "nats", "nrlogs", "websocket", "kinesis_firehose", "kinesis_streams",
		"logdna", "bigquery", "pgsql", "flowcounter", "plot", "td", "slack", "oracle_log_analytics",
		"vivo_exporter", "skywalking", "chronicle", "parseable", "calyptia", "exit", "lib", "logrotate"} {
		outputPlugins[n] = func() output { return unmodelledOutput{} }
	}
}

type unmodelledOutput struct{}

func (unmodelledOutput) init(o *outputInstance) error {
	o.once("output", "unmodelled", levelWarn, "winkube: the "+o.plugin+" output is not emulated; its records are dropped")
	return nil
}
func (unmodelledOutput) flush(context.Context, *outputInstance, string, []*record) error {
	return nil
}

type nullOutput struct{}

func (nullOutput) init(*outputInstance) error                                      { return nil }
func (nullOutput) flush(context.Context, *outputInstance, string, []*record) error { return nil }

// stdoutOutput is out_stdout: by default each record as
// "[N] tag: [[seconds.nanoseconds, {}], {body}]", N counting from 0 in
// each chunk; with Format json_lines one JSON object per line.
type stdoutOutput struct{ format, dateKey, dateFormat string }

func (s *stdoutOutput) init(o *outputInstance) error {
	s.format = strings.ToLower(o.propOr("Format", "msgpack"))
	switch s.format {
	case "msgpack", "json", "json_lines", "json_stream":
	default:
		return fmt.Errorf("unrecognized 'format' option. Using 'msgpack'")
	}
	s.dateKey = o.propOr("json_date_key", "date")
	s.dateFormat = strings.ToLower(o.propOr("json_date_format", "double"))
	return nil
}

func (s *stdoutOutput) flush(_ context.Context, o *outputInstance, tag string, recs []*record) error {
	var b bytes.Buffer
	if s.format == "msgpack" {
		for i, r := range recs {
			fmt.Fprintf(&b, "[%d] %s: [[%s, {}], ", i, tag, formatTime(r.time))
			printValue(&b, r.body)
			b.WriteString("]\n")
		}
	} else {
		b.Write(jsonRecords(recs, s.format, s.dateKey, s.dateFormat))
		if s.format == "json" {
			b.WriteByte('\n')
		}
	}
	_, err := o.e.p.Stdout.Write(b.Bytes())
	return err
}

// jsonRecords is flb_pack_msgpack_to_json_format: an array (json) or
// one object a line (json_lines, json_stream), each with the date key
// first.
func jsonRecords(recs []*record, format, dateKey, dateFormat string) []byte {
	var b bytes.Buffer
	if format == "json" {
		b.WriteByte('[')
	}
	for i, r := range recs {
		if format == "json" && i > 0 {
			b.WriteByte(',')
		}
		body := r.body
		if dateKey != "" && dateKey != "false" && dateKey != "off" {
			body = append([]field{{dateKey, jsonDate(r.time, dateFormat)}}, body...)
		}
		writeJSON(&b, body)
		if format != "json" {
			b.WriteByte('\n')
		}
	}
	if format == "json" {
		b.WriteByte(']')
	}
	return b.Bytes()
}

func jsonDate(t time.Time, format string) any {
	switch format {
	case "iso8601":
		return t.UTC().Format("2006-01-02T15:04:05.000000Z")
	case "epoch":
		return uint64(t.Unix())
	case "java_sql_timestamp":
		return t.UTC().Format("2006-01-02 15:04:05.000000")
	}
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9 // flb_time_to_double
}

// httpOutput is out_http: each chunk POSTed to Host:Port URI through the
// pod network, as msgpack (the default), json or json_lines.
type httpOutput struct {
	host, uri, format, dateKey, dateFormat string
	port                                   int
	headers                                [][2]string
	client                                 *http.Client
}

func (h *httpOutput) init(o *outputInstance) error {
	h.host = o.propOr("Host", "127.0.0.1")
	h.port, _ = strconv.Atoi(o.propOr("Port", "80"))
	h.uri = o.propOr("URI", "/")
	h.format = strings.ToLower(o.propOr("Format", "msgpack"))
	h.dateKey = o.propOr("json_date_key", "date")
	h.dateFormat = strings.ToLower(o.propOr("json_date_format", "double"))
	for _, v := range o.props.All("Header") {
		k, val, _ := strings.Cut(o.e.expand(v), " ")
		h.headers = append(h.headers, [2]string{k, strings.TrimSpace(val)})
	}
	if isTrue(o.propOr("tls", "off")) {
		o.once("output", "tls", levelWarn, "winkube: tls is not emulated for the http output; records are sent in clear")
	}
	h.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: podDialer(o.e.p)}}
	return nil
}

func (h *httpOutput) flush(ctx context.Context, o *outputInstance, tag string, recs []*record) error {
	var body []byte
	ctype := "application/msgpack"
	switch h.format {
	case "json", "json_lines", "json_stream":
		body = jsonRecords(recs, h.format, h.dateKey, h.dateFormat)
		ctype = map[string]string{"json": "application/json", "json_lines": "application/x-ndjson", "json_stream": "application/json"}[h.format]
	default:
		for _, r := range recs {
			body = appendEvent(body, r)
		}
	}
	url := fmt.Sprintf("http://%s%s", net.JoinHostPort(h.host, strconv.Itoa(h.port)), h.uri)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("User-Agent", "Fluent-Bit")
	for _, kv := range h.headers {
		req.Header.Set(kv[0], kv[1])
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return fmt.Errorf("no upstream connections available to %s:%d", h.host, h.port)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 205 {
		return fmt.Errorf("%s:%d, HTTP status=%d", h.host, h.port, resp.StatusCode)
	}
	o.e.log.log(levelInfo, "info", fmt.Sprintf("%s %s:%d, HTTP status=%d", o.logPrefix("output"), h.host, h.port, resp.StatusCode))
	return nil
}

// forwardOutput is out_forward: each chunk to a Fluentd or Fluent Bit
// forward input as the Forward protocol's PackedForward message,
// [tag, entries, {"size": n}], over TCP through the pod network.
type forwardOutput struct {
	host string
	port int
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

func (f *forwardOutput) init(o *outputInstance) error {
	f.host = o.propOr("Host", "127.0.0.1")
	f.port, _ = strconv.Atoi(o.propOr("Port", "24224"))
	if _, ok := o.prop("Shared_Key"); ok {
		o.once("output", "secure", levelWarn, "winkube: secure forward (Shared_Key) is not emulated; the handshake is skipped")
	}
	f.dial = podDialer(o.e.p)
	return nil
}

func (f *forwardOutput) flush(ctx context.Context, o *outputInstance, tag string, recs []*record) error {
	addr := net.JoinHostPort(f.host, strconv.Itoa(f.port))
	c, err := f.dial(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("no upstream connections available")
	}
	defer c.Close()
	var entries []byte
	for _, r := range recs {
		entries = appendEvent(entries, r)
	}
	msg := appendArrayHeader(nil, 3)
	msg = appendMsgpack(msg, tag)
	msg = appendMsgpack(msg, bin(entries))
	msg = appendMsgpack(msg, []field{{"size", uint64(len(recs))}})
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = c.Write(msg)
	return err
}

// podDialer dials through the pod network, resolving names with the
// pod's DNS.
func podDialer(p *program.Proc) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, _ := net.SplitHostPort(addr)
		if net.ParseIP(host) == nil && p.Sys.Net != nil {
			ip, err := resolve(ctx, p.Sys.Net, host)
			if err != nil {
				return nil, err
			}
			addr = net.JoinHostPort(ip, port)
		}
		return program.NetDialer(p)(ctx, network, addr)
	}
}

// resolve looks a name up as the pod's resolv.conf has getaddrinfo do:
// with fewer dots than ndots (5, the kubelet's), the search domains
// first, then the name as it is.
func resolve(ctx context.Context, n program.Net, host string) (string, error) {
	names := []string{host}
	if s, ok := n.(interface{ DNSSearch() []string }); ok && !strings.HasSuffix(host, ".") && strings.Count(host, ".") < 5 {
		names = nil
		for _, d := range s.DNSSearch() {
			names = append(names, host+"."+d)
		}
		names = append(names, host)
	}
	for _, name := range names {
		if addrs, err := n.LookupHost(ctx, name); err == nil && len(addrs) > 0 {
			return addrs[0], nil
		}
	}
	return "", fmt.Errorf("could not resolve %s", host)
}

// appendEvent is a record as Fluent Bit encodes an event:
// [EventTime, body], EventTime being msgpack ext type 0 with seconds
// and nanoseconds.
func appendEvent(b []byte, r *record) []byte {
	b = appendArrayHeader(b, 2)
	b = append(b, 0xd7, 0x00)
	b = binary.BigEndian.AppendUint32(b, uint32(r.time.Unix()))
	b = binary.BigEndian.AppendUint32(b, uint32(r.time.Nanosecond()))
	return appendMsgpack(b, r.body)
}

func appendArrayHeader(b []byte, n int) []byte {
	if n < 16 {
		return append(b, 0x90|byte(n))
	}
	b = append(b, 0xdd)
	return binary.BigEndian.AppendUint32(b, uint32(n))
}

// appendMsgpack encodes a record value as msgpack.
func appendMsgpack(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 0xc0)
	case bool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case int:
		return appendMsgpack(b, int64(x))
	case int64:
		if x >= 0 {
			return appendMsgpack(b, uint64(x))
		}
		b = append(b, 0xd3)
		return binary.BigEndian.AppendUint64(b, uint64(x))
	case uint64:
		if x < 128 {
			return append(b, byte(x))
		}
		b = append(b, 0xcf)
		return binary.BigEndian.AppendUint64(b, x)
	case float64:
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(x))
	case string:
		n := len(x)
		switch {
		case n < 32:
			b = append(b, 0xa0|byte(n))
		case n < 256:
			b = append(b, 0xd9, byte(n))
		case n < 65536:
			b = append(b, 0xda)
			b = binary.BigEndian.AppendUint16(b, uint16(n))
		default:
			b = append(b, 0xdb)
			b = binary.BigEndian.AppendUint32(b, uint32(n))
		}
		return append(b, x...)
	case bin:
		b = append(b, 0xc6)
		b = binary.BigEndian.AppendUint32(b, uint32(len(x)))
		return append(b, x...)
	case []any:
		b = appendArrayHeader(b, len(x))
		for _, e := range x {
			b = appendMsgpack(b, e)
		}
		return b
	case []field:
		if len(x) < 16 {
			b = append(b, 0x80|byte(len(x)))
		} else {
			b = append(b, 0xdf)
			b = binary.BigEndian.AppendUint32(b, uint32(len(x)))
		}
		for _, f := range x {
			b = appendMsgpack(b, f.key)
			b = appendMsgpack(b, f.val)
		}
		return b
	}
	return appendMsgpack(b, fmt.Sprint(v))
}
