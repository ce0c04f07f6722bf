package csi

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

const defaultHealthzPort = "9808"

// livenessprobe is kubernetes-csi's livenessprobe of the image's
// version: it connects to the CSI driver at --csi-address (retrying for
// as long as it takes), learns its name, then serves /healthz on
// --http-endpoint (or 0.0.0.0:--health-port), each request a Probe of the
// driver within --probe-timeout.
func livenessprobe(version string) program.Main {
	return func(ctx context.Context, p *program.Proc) int {
		fs, v := newFlagSet(p)
		probeTimeout := fs.Duration("probe-timeout", 3*time.Second, "Probe timeout in seconds.")
		csiAddress := fs.String("csi-address", "/run/csi/socket", "Address of the CSI driver socket.")
		healthzPort := fs.String("health-port", defaultHealthzPort, "(deprecated) TCP ports for listening healthz requests. The default is `9808`. If set, `--http-endpoint` cannot be set.")
		metricsAddress := fs.String("metrics-address", "", "(deprecated) The TCP network address where the prometheus metrics endpoint will listen (example: `:8080`). The default is empty string, which means metrics endpoint is disabled. If set, `--http-endpoint` cannot be set, and the address cannot resolve to localhost + the port from `--health-port`.")
		httpEndpoint := fs.String("http-endpoint", "", "The TCP network address where the HTTP server for diagnostics, including CSI driver health check and metrics. The default is empty string, which means the server is disabled. If set, `--health-port` and `--metrics-address` cannot be explicitly set.")
		fs.String("metrics-path", "/metrics", "The HTTP path where prometheus metrics will be exposed. Default is `/metrics`.")
		if code, ok := parse(fs, p.Args[1:]); !ok {
			return code
		}
		log := &klogger{w: p.Stderr, clock: p.Sys.Clock, v: *v}
		if *healthzPort != defaultHealthzPort && *httpEndpoint != "" {
			log.error(nil, "main.go:109", "Only one of `--health-port` and `--http-endpoint` can be explicitly set")
			return 1
		}
		if *metricsAddress != "" && *httpEndpoint != "" {
			log.error(nil, "main.go:113", "Only one of `--metrics-address` and `--http-endpoint` can be explicitly set")
			return 1
		}
		addr := *httpEndpoint
		if addr == "" {
			addr = net.JoinHostPort("0.0.0.0", *healthzPort)
		}
		conn, err := connect(ctx, p, log, "connection.go:253", *csiAddress, 0)
		if err != nil {
			return 0 // stopped while connecting
		}
		log.info(0, "main.go:137", "Calling CSI driver to discover driver name")
		name, err := getDriverName(ctx, conn)
		conn.Close()
		if err != nil {
			log.error(err, "main.go:142", "Failed to get CSI driver name")
			return 1
		}
		log.info(0, "main.go:145", "CSI driver name", "driver", name)
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
			pctx, cancel := context.WithTimeout(r.Context(), *probeTimeout)
			defer cancel()
			conn, err := connect(pctx, p, log, "connection.go:253", *csiAddress, *probeTimeout)
			if err != nil {
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(err.Error()))
				log.error(err, "main.go:68", "Failed to establish connection to CSI driver")
				return
			}
			defer conn.Close()
			log.info(5, "main.go:73", "Sending probe request to CSI driver", "driver", name)
			ready, err := probe(pctx, conn)
			if err != nil {
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(err.Error()))
				log.error(err, "main.go:78", "Health check failed")
				return
			}
			if !ready {
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte("driver responded but is not ready"))
				log.error(nil, "main.go:85", "Driver responded but is not ready")
				return
			}
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte("ok"))
			log.info(5, "main.go:91", "Health check succeeded")
		})
		log.info(0, "main.go:174", "ServeMux listening", "address", addr)
		if err := serveHTTP(ctx, p, addr, mux); err != nil {
			log.error(err, "main.go:177", "Failed to start http server")
			return 0
		}
		_ = version
		return program.Forever
	}
}
