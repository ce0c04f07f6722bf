package winexporter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

// serve binds each --web.listen-address on the container's network and
// answers with upstream's mux. With no network that serves, the
// exporter only waits, as the other emulated servers do.
func serve(ctx context.Context, p *program.Proc, o *options, c *collection, logger *slog.Logger) error {
	srv, ok := p.Sys.Net.(program.Server)
	if !ok {
		return nil
	}
	mux := newMux(o, c, logger)
	for _, addr := range o.listenAddresses {
		host, portText, err := net.SplitHostPort(addr)
		port, perr := strconv.Atoi(portText)
		if err != nil || perr != nil || port < 0 || port > 65535 {
			if err == nil {
				err = fmt.Errorf("listen tcp: address %s: invalid port", addr)
			} else {
				err = fmt.Errorf("listen tcp: %w", err)
			}
			return err
		}
		shown := addr
		if host == "" {
			shown = "[::]:" + portText // net.Listen's address for ":port"
		}
		handle := func(rwc io.ReadWriteCloser) { serveConn(rwc, mux) }
		if err := srv.Serve(ctx, "tcp", port, handle); err != nil {
			return fmt.Errorf("listen tcp %s: bind: %s", addr, bindError(err))
		}
		// exporter-toolkit's lines for a listener without web config.
		logger.Info("Listening on", slog.String("address", shown))
		logger.Info("TLS is disabled.", slog.Bool("http2", false), slog.String("address", shown))
	}
	return nil
}

// newMux is main.go's: /health, /version and the metrics path, GET only;
// anything else is net/http's 404.
func newMux(o *options, c *collection, logger *slog.Logger) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{
			"version": version, "revision": revision, "branch": branch,
			"buildUser": "", "buildDate": buildDate, "goVersion": goVersion,
		})
	})
	mux.Handle("GET "+o.metricsPath, newMetricsHandler(o, c, logger))
	return mux
}

// metricsHandler is httphandler.MetricsHTTPHandler: a registry per
// scrape with build info and the (possibly filtered) collectors, beside
// the exporter's own promhttp_* series.
type metricsHandler struct {
	c        *collection
	logger   *slog.Logger
	exporter *prometheus.Registry // nil with --web.disable-exporter-metrics
}

func newMetricsHandler(o *options, c *collection, logger *slog.Logger) *metricsHandler {
	h := &metricsHandler{c: c, logger: logger}
	if !o.disableExporter {
		// Upstream also registers the Go and process collectors; here they
		// would describe winkube's own process, not the exporter's, so
		// only promhttp's series are kept.
		h.exporter = prometheus.NewRegistry()
	}
	return h
}

var buildInfo = prometheus.NewDesc("windows_exporter_build_info",
	"A metric with a constant '1' value labeled by version, revision, branch, goversion from which windows_exporter was built, and the goos and goarch for the build.",
	nil, prometheus.Labels{"version": version, "revision": revision, "branch": branch, "goversion": goVersion, "goos": "windows", "goarch": "amd64", "tags": "unknown"})

type buildInfoCollector struct{}

func (buildInfoCollector) Describe(ch chan<- *prometheus.Desc) { ch <- buildInfo }
func (buildInfoCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(buildInfo, prometheus.GaugeValue, 1)
}

func (h *metricsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := h.c
	if names := r.URL.Query()["collect[]"]; len(names) != 0 {
		var err error
		if c, err = c.with(names); err != nil {
			err = fmt.Errorf("couldn't create collector handler: failed to create handler with collectors: %w", err)
			h.logger.Warn("Couldn't create filtered metrics handler", slog.String("remote", r.RemoteAddr), slog.Any("err", err))
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, "Couldn't create filtered metrics handler: %s", err)
			return
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(buildInfoCollector{}, handler{c: c, logger: h.logger})
	opts := promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(h.logger.Handler(), slog.LevelError),
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 1,
		EnableOpenMetrics:   true,
		ProcessStartTime:    c.start,
	}
	var out http.Handler
	if h.exporter != nil {
		opts.Registry = h.exporter
		out = promhttp.InstrumentMetricHandler(h.exporter, promhttp.HandlerFor(prometheus.Gatherers{h.exporter, reg}, opts))
	} else {
		out = promhttp.HandlerFor(reg, opts)
	}
	out.ServeHTTP(w, r)
}

// serveConn serves one connection with net/http's server and upstream's
// timeouts.
func serveConn(rwc io.ReadWriteCloser, mux http.Handler) {
	vnet.ServeHTTP(rwc, &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 60 * time.Second, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Minute})
}

// bindError words a failed bind as Go's net package on Windows does
// (WSAEADDRINUSE's text).
func bindError(err error) string {
	if errors.Is(err, syscall.EADDRINUSE) {
		return "Only one usage of each socket address (protocol/network address/port) is normally permitted."
	}
	return program.ErrorText(err, true)
}
