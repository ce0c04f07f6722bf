package winexporter

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/winkube/winkube/pkg/emu/program"
)

// defaultCollectors is collector.DefaultCollectors of v0.31.8.
const defaultCollectors = "cpu,memory,logical_disk,physical_disk,net,os,service,system"

// knownCollectors are every collector v0.31.8 builds in (pkg/collector's
// map): naming another is "unknown collector".
var knownCollectors = []string{
	"ad", "adcs", "adfs", "cache", "container", "cpu", "cpu_info", "dfsr", "dhcp", "diskdrive", "dns",
	"exchange", "filetime", "fsrmquota", "gpu", "hyperv", "iis", "license", "logical_disk", "memory",
	"mscluster", "msmq", "mssql", "net", "netframework", "nps", "os", "pagefile", "performancecounter",
	"physical_disk", "printer", "process", "remote_fx", "scheduled_task", "service", "smb", "smbclient",
	"smtp", "system", "tcp", "terminal_services", "textfile", "thermalzone", "time", "udp", "update", "vmware",
}

// errNoData is what a collector returns when there is nothing to report
// (types.ErrNoData upstream): the scrape succeeds "with warnings".
var errNoData = errors.New("no data")

// collectFunc sends a collector's series for one scrape.
type collectFunc func(ch chan<- prometheus.Metric, s *scrape) error

// emulated are the collectors whose series this program derives from
// the node; the others collect nothing (errNoData): the emulated node
// has no IIS, SQL Server, Hyper-V or disks to count.
var emulated = map[string]collectFunc{
	"os": collectOS, "cpu": collectCPU, "memory": collectMemory, "net": collectNet,
	"service": collectService, "system": collectSystem, "container": collectContainer,
}

// collection is the enabled collectors.
type collection struct {
	p       *program.Proc
	o       *options
	names   []string
	start   time.Time
	nic     filter
	service filter
}

func newCollection(p *program.Proc, o *options, enabled []string) (*collection, error) {
	c := &collection{p: p, o: o, start: p.Sys.Clock.Now()}
	if err := c.enable(enabled); err != nil {
		return nil, err
	}
	if o.disabled != "" {
		for _, d := range slices.Compact(splitComma(o.disabled)) {
			c.names = slices.DeleteFunc(c.names, func(n string) bool { return n == d })
		}
	}
	var err error
	if c.nic, err = includeExclude(o.nicInclude, o.nicExclude); err != nil {
		return nil, err
	}
	if c.service, err = includeExclude(o.serviceInclude, o.serviceExclude); err != nil {
		return nil, err
	}
	return c, nil
}

// enable is Collection.Enable: every name must be a collector.
func (c *collection) enable(names []string) error {
	for _, n := range names {
		if !slices.Contains(knownCollectors, n) {
			return fmt.Errorf("unknown collector %s", n)
		}
	}
	c.names = slices.Sorted(maps.Keys(setOf(names)))
	return nil
}

// with is WithCollectors: the collectors a scrape's collect[] asks for,
// among those enabled (upstream clones the enabled set).
func (c *collection) with(names []string) (*collection, error) {
	for _, n := range names {
		if !slices.Contains(c.names, n) {
			return nil, fmt.Errorf("unknown collector %s", n)
		}
	}
	out := *c
	out.names = slices.Sorted(maps.Keys(setOf(names)))
	return &out, nil
}

func setOf(names []string) map[string]bool {
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	return set
}

// filter is a collector's include and exclude regexps (anchored, as
// upstream compiles them).
type filter [2]*regexp.Regexp

func includeExclude(include, exclude string) (filter, error) {
	in, err := regexp.Compile("^(?:" + include + ")$")
	if err != nil {
		return filter{}, err
	}
	ex, err := regexp.Compile("^(?:" + exclude + ")$")
	return filter{in, ex}, err
}

func (r filter) match(name string) bool {
	return r[0].MatchString(name) && !r[1].MatchString(name)
}

var (
	scrapeDurationDesc = prometheus.NewDesc("windows_exporter_scrape_duration_seconds", "windows_exporter: Total scrape duration.", nil, nil)
	collectorDuration  = prometheus.NewDesc("windows_exporter_collector_duration_seconds", "windows_exporter: Duration of a collection.", []string{"collector"}, nil)
	collectorSuccess   = prometheus.NewDesc("windows_exporter_collector_success", "windows_exporter: Whether the collector was successful.", []string{"collector"}, nil)
	collectorTimeout   = prometheus.NewDesc("windows_exporter_collector_timeout", "windows_exporter: Whether the collector timed out.", []string{"collector"}, nil)
)

// handler is the collection as one prometheus.Collector for a scrape
// (collector.Handler): unchecked, as upstream's Describe sends nothing.
type handler struct {
	c      *collection
	logger *slog.Logger
}

func (h handler) Describe(chan<- *prometheus.Desc) {}

// Collect runs each collector on one snapshot of the node, then reports
// how each did, as collectAll does.
func (h handler) Collect(ch chan<- prometheus.Metric) {
	began := time.Now()
	s := h.c.snapshot()
	for _, name := range h.c.names {
		t := time.Now()
		var buf []prometheus.Metric
		bufCh := make(chan prometheus.Metric, 64)
		done := make(chan struct{})
		go func() {
			for m := range bufCh {
				buf = append(buf, m)
			}
			close(done)
		}()
		err := errNoData
		if f, ok := emulated[name]; ok {
			err = f(bufCh, s)
		}
		close(bufCh)
		<-done
		for _, m := range buf {
			ch <- m
		}
		d := time.Since(t)
		ch <- prometheus.MustNewConstMetric(collectorDuration, prometheus.GaugeValue, d.Seconds(), name)
		success, result := 1.0, "succeeded"
		if err != nil {
			result = "succeeded with warnings"
		}
		h.logger.Debug(fmt.Sprintf("collector %s %s after %s, resulting in %d metrics", name, result, d, len(buf)))
		ch <- prometheus.MustNewConstMetric(collectorSuccess, prometheus.GaugeValue, success, name)
		ch <- prometheus.MustNewConstMetric(collectorTimeout, prometheus.GaugeValue, 0, name)
	}
	ch <- prometheus.MustNewConstMetric(scrapeDurationDesc, prometheus.GaugeValue, time.Since(began).Seconds())
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}
