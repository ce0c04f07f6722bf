package webhook

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/winkube/winkube/pkg/imageinfo/registry"
)

// metrics are the webhook's Prometheus metrics, on a registry of its own
// so that embedding the handler (winkube up --webhook) never clashes with
// another package's global metrics.
type metrics struct {
	registry       *prometheus.Registry
	requests       *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	decisions      *prometheus.CounterVec
	answers        *prometheus.CounterVec
	registryErrors prometheus.Counter
	panics         prometheus.Counter
}

func newMetrics(extra []prometheus.Collector) (*metrics, error) {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "winkube_webhook_requests_total",
			Help: "Admission requests by path and result (allowed, patched, warned, denied, bad-request, error).",
		}, []string{"path", "result"}),
		// Buckets from 100 µs: a warm decision takes well under a
		// millisecond, and the API server gives up at timeoutSeconds.
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "winkube_webhook_request_duration_seconds",
			Help:    "Time to answer an admission request, by path.",
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5},
		}, []string{"path"}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "winkube_webhook_decisions_total",
			Help: "Rule decisions by rule ID and action (placed, denied, warned, allowed).",
		}, []string{"rule", "action"}),
		answers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "winkube_webhook_image_answers_total",
			Help: "Image look-ups by where the answer came from (registry, cache, catalog, unknown); cache hits are source=cache.",
		}, []string{"source"}),
		registryErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "winkube_webhook_registry_errors_total",
			Help: "Image look-ups whose registry request failed or timed out.",
		}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "winkube_webhook_panics_total",
			Help: "Decisions that panicked and were admitted unchanged.",
		}),
	}
	all := []prometheus.Collector{m.requests, m.latency, m.decisions, m.answers, m.registryErrors, m.panics,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})}
	for _, c := range append(all, extra...) {
		if err := m.registry.Register(c); err != nil {
			return nil, fmt.Errorf("registering metrics: %w", err)
		}
	}
	return m, nil
}

func (m *metrics) decision(rule, action string) {
	m.decisions.WithLabelValues(rule, action).Inc()
}

// statsResolver is a resolver with counters of its own (the registry
// resolver's cache); they are served as metrics when present.
type statsResolver interface {
	Stats() registry.Stats
}

func (m *metrics) registerResolverStats(r statsResolver) error {
	counter := func(name, help string, value func(registry.Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(value(r.Stats())) })
	}
	cs := []prometheus.Collector{
		counter("winkube_resolver_cache_hits_total", "Image look-ups the resolver answered from its cache.", func(s registry.Stats) uint64 { return s.CacheHits }),
		counter("winkube_resolver_cache_misses_total", "Image look-ups the resolver could not answer from its cache.", func(s registry.Stats) uint64 { return s.CacheMisses }),
		counter("winkube_resolver_fetches_total", "Registry requests the resolver made.", func(s registry.Stats) uint64 { return s.Fetches }),
		counter("winkube_resolver_registry_errors_total", "Registry requests that failed; the fallback answered.", func(s registry.Stats) uint64 { return s.RegistryErrors }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "winkube_resolver_cache_entries", Help: "Manifests (and remembered failures) in the resolver's cache."},
			func() float64 { return float64(r.Stats().CacheEntries) }),
	}
	for _, c := range cs {
		if err := m.registry.Register(c); err != nil {
			return fmt.Errorf("registering resolver metrics: %w", err)
		}
	}
	return nil
}
