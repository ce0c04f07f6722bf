package fluentbit

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/fluentbit/conf"
	"github.com/winkube/winkube/pkg/emu/program"
)

// engine is one fluent-bit process's pipeline.
type engine struct {
	p       *program.Proc
	log     *logger
	vars    map[string]string
	confDir string
	flush   time.Duration
	parsers map[string]*parser
	http    httpConfig
	started time.Time

	inputs  []*inputInstance
	filters []*filterInstance
	outputs []*outputInstance
	counts  map[string]int // instances per plugin, for their names

	// mu guards pending and the instances' counters, which the HTTP
	// server reads.
	mu      sync.Mutex
	pending []*record // collected, not yet flushed
}

func newEngine(p *program.Proc, log *logger) *engine {
	return &engine{p: p, log: log, flush: time.Second, parsers: map[string]*parser{}, counts: map[string]int{},
		http: httpConfig{listen: "0.0.0.0", port: 2020, hcErrors: 5, hcRetryFailures: 5}}
}

// instance is what every plugin instance has: its name (tail.0 or its
// Alias), its section and the records and bytes it counted.
type instance struct {
	plugin, name string
	props        *conf.Section
	e            *engine
	records      uint64
	bytes        uint64
	told         map[string]bool
}

func (in *instance) prop(key string) (string, bool) {
	v, ok := in.props.Get(key)
	return in.e.expand(v), ok
}

func (in *instance) propOr(key, def string) string {
	if v, ok := in.prop(key); ok {
		return v
	}
	return def
}

// logPrefix is flb_plg_*'s "[input:tail:tail.0]".
func (in *instance) logPrefix(kind string) string {
	return fmt.Sprintf("[%s:%s:%s]", kind, in.plugin, in.name)
}

// once logs a message a single time per instance.
func (in *instance) once(kind, key string, level int, msg string) {
	if in.told == nil {
		in.told = map[string]bool{}
	}
	if in.told[key] {
		return
	}
	in.told[key] = true
	title := map[int]string{levelError: "error", levelWarn: "warn", levelInfo: "info"}[level]
	in.e.log.log(level, title, in.logPrefix(kind)+" "+msg)
}

type inputInstance struct {
	instance
	tag      string
	interval time.Duration
	next     time.Time
	impl     input
}

type filterInstance struct {
	instance
	match string
	re    *regexp.Regexp
	impl  filter
}

type outputInstance struct {
	instance
	match                               string
	re                                  *regexp.Regexp
	impl                                output
	errors, retries, retriesFailed, drp uint64
}

func (m *filterInstance) matches(tag string) bool { return matchesTag(m.match, m.re, tag) }
func (m *outputInstance) matches(tag string) bool { return matchesTag(m.match, m.re, tag) }

func matchesTag(pattern string, re *regexp.Regexp, tag string) bool {
	if re != nil {
		return re.MatchString(tag)
	}
	return pattern != "" && matchTag(pattern, tag)
}

// input, filter and output are the plugin kinds.
type input interface {
	// init checks the instance's properties; an error stops fluent-bit.
	init(in *inputInstance) error
	// collect returns what the input has gathered by now.
	collect(in *inputInstance, now time.Time) []*record
}

type filter interface {
	init(f *filterInstance) error
	// filter changes a record; false drops it.
	filter(f *filterInstance, r *record) bool
}

type output interface {
	init(o *outputInstance) error
	// flush delivers the records of one tag.
	flush(ctx context.Context, o *outputInstance, tag string, records []*record) error
}

// instance makes the plugin a section names.
func (e *engine) instance(s *conf.Section) error {
	nameVal, ok := s.Get("Name")
	if !ok {
		return conf.Errorf("[config] section '%s' is missing the 'name' property", strings.ToLower(s.Kind))
	}
	name := strings.ToLower(e.expand(nameVal))
	base := instance{plugin: name, props: s, e: e}
	base.name = fmt.Sprintf("%s.%d", name, e.counts[name])
	if alias, ok := s.Get("Alias"); ok {
		base.name = alias
	}
	switch s.Kind {
	case "INPUT":
		mk, ok := inputPlugins[name]
		if !ok || (mk == nil) {
			return conf.Errorf("[config] section '%s' tried to instance a plugin name that doesn't exist", nameVal)
		}
		plug := mk(e.p.Sys.Windows)
		if plug == nil {
			return conf.Errorf("[config] section '%s' tried to instance a plugin name that doesn't exist", nameVal)
		}
		in := &inputInstance{instance: base, impl: plug, interval: time.Second}
		in.tag = in.propOr("Tag", in.name)
		e.counts[name]++
		e.inputs = append(e.inputs, in)
	case "FILTER":
		mk, ok := filterPlugins[name]
		if !ok {
			return conf.Errorf("[config] section '%s' tried to instance a plugin name that doesn't exist", nameVal)
		}
		f := &filterInstance{instance: base, impl: mk()}
		if err := setMatch(&f.instance, &f.match, &f.re); err != nil {
			return err
		}
		e.counts[name]++
		e.filters = append(e.filters, f)
	case "OUTPUT":
		mk, ok := outputPlugins[name]
		if !ok {
			return conf.Errorf("[config] section '%s' tried to instance a plugin name that doesn't exist", nameVal)
		}
		o := &outputInstance{instance: base, impl: mk()}
		if err := setMatch(&o.instance, &o.match, &o.re); err != nil {
			return err
		}
		e.counts[name]++
		e.outputs = append(e.outputs, o)
	}
	return nil
}

func setMatch(in *instance, match *string, re **regexp.Regexp) error {
	*match, _ = in.prop("Match")
	if v, ok := in.prop("Match_Regex"); ok {
		r, err := regexp.Compile(v)
		if err != nil {
			return conf.Errorf("[config] invalid Match_Regex '%s'", v)
		}
		*re = r
	}
	return nil
}

// start initialises the plugins and prints fluent-bit's start-up lines.
func (e *engine) start(ctx context.Context) error {
	e.started = e.p.Sys.Clock.Now()
	e.log.infof("[fluent bit] version=%s, commit=%s, pid=1", Version, commit)
	e.log.infof("[storage] ver=1.5.4, type=memory, sync=normal, checksum=off, max_chunks_up=128")
	e.log.infof("[simd    ] SSE2")
	e.log.infof("[cmetrics] version=2.2.1")
	e.log.infof("[ctraces ] version=0.7.1")
	for _, in := range e.inputs {
		e.log.infof("%s initializing", in.logPrefix("input"))
		e.log.infof("%s storage_strategy='memory' (memory only)", in.logPrefix("input"))
		if err := in.impl.init(in); err != nil {
			e.log.errorf("%s %s", in.logPrefix("input"), err)
			return fmt.Errorf("failed initialize input %s", in.name)
		}
	}
	for _, f := range e.filters {
		if err := f.impl.init(f); err != nil {
			e.log.errorf("%s %s", f.logPrefix("filter"), err)
			return fmt.Errorf("failed initialize filter %s", f.name)
		}
	}
	for _, o := range e.outputs {
		if err := o.impl.init(o); err != nil {
			e.log.errorf("%s %s", o.logPrefix("output"), err)
			return fmt.Errorf("[output] failed to initialize '%s' plugin", o.plugin)
		}
		e.log.infof("%s worker #0 started", o.logPrefix("output"))
	}
	if e.http.on {
		if err := e.serveHTTP(ctx); err != nil {
			return err
		}
		e.log.infof("[http_server] listen iface=%s tcp_port=%d", e.http.listen, e.http.port)
	}
	e.log.infof("[sp] stream processor started")
	return nil
}

// tick is how often the engine looks at its inputs: fluent-bit's
// collectors run on their own intervals, the shortest of which (tail's
// file events, dummy's rate) the emulation rounds to this.
const tick = 250 * time.Millisecond

// run is the engine's loop on the container's clock until stopped.
func (e *engine) run(ctx context.Context) {
	nextFlush := e.p.Sys.Clock.Now().Add(e.flush)
	for e.p.Sys.Sleep(ctx, tick) {
		now := e.p.Sys.Clock.Now()
		e.collect(now)
		if !now.Before(nextFlush) {
			e.flushAll(ctx)
			nextFlush = now.Add(e.flush)
		}
	}
	// On SIGTERM fluent-bit flushes what it holds within its grace.
	e.collect(e.p.Sys.Clock.Now())
	e.flushAll(context.WithoutCancel(ctx))
}

// collect runs the inputs whose interval has come and the filters over
// what they gave.
func (e *engine) collect(now time.Time) {
	for _, in := range e.inputs {
		if now.Before(in.next) {
			continue
		}
		in.next = now.Add(in.interval)
		for _, r := range in.impl.collect(in, now) {
			if r.tag == "" {
				r.tag = in.tag
			}
			if r.time.IsZero() {
				r.time = now
			}
			kept := e.filterRecord(r)
			e.mu.Lock()
			in.records++
			in.bytes += uint64(approxSize(r.body))
			if kept {
				e.pending = append(e.pending, r)
			}
			e.mu.Unlock()
		}
	}
}

func (e *engine) filterRecord(r *record) bool {
	for _, f := range e.filters {
		if !f.matches(r.tag) {
			continue
		}
		e.mu.Lock()
		f.records++
		e.mu.Unlock()
		if !f.impl.filter(f, r) {
			return false
		}
	}
	return true
}

// flushAll hands each output the pending records its Match selects,
// one chunk per tag in the order the tags came.
func (e *engine) flushAll(ctx context.Context) {
	e.mu.Lock()
	recs := e.pending
	e.pending = nil
	e.mu.Unlock()
	if len(recs) == 0 {
		return
	}
	var tags []string
	byTag := map[string][]*record{}
	for _, r := range recs {
		if _, ok := byTag[r.tag]; !ok {
			tags = append(tags, r.tag)
		}
		byTag[r.tag] = append(byTag[r.tag], r)
	}
	for _, o := range e.outputs {
		for _, tag := range tags {
			if !o.matches(tag) {
				continue
			}
			chunk := byTag[tag]
			err := o.impl.flush(ctx, o, tag, chunk)
			e.mu.Lock()
			if err != nil {
				o.errors++
				o.retriesFailed++
				o.drp += uint64(len(chunk))
			} else {
				o.records += uint64(len(chunk))
				for _, r := range chunk {
					o.bytes += uint64(approxSize(r.body))
				}
			}
			e.mu.Unlock()
			if err != nil {
				e.log.errorf("%s %s", o.logPrefix("output"), err)
			}
		}
	}
}

// approxSize is a record body's size as msgpack would encode it, for
// the byte counters.
func approxSize(body []field) int {
	n := 1
	for _, f := range body {
		n += len(f.key) + 1
		switch v := f.val.(type) {
		case string:
			n += len(v) + 1
		case []field:
			n += approxSize(v)
		default:
			n += 9
		}
	}
	return n
}
