package app

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"time"

	"github.com/spf13/cobra"
)

// addPprofFlag adds the hidden --pprof-addr flag: a loopback address where
// the command serves Go's profiles (/debug/pprof/) while it runs.
// hack/bench-scale.sh uses it to profile the node agent at scale.
func addPprofFlag(root *cobra.Command) {
	var addr string
	root.PersistentFlags().StringVar(&addr, "pprof-addr", "", "serve Go profiles at this loopback address (such as 127.0.0.1:6060)")
	_ = root.PersistentFlags().MarkHidden("pprof-addr")
	var srv *http.Server
	root.PersistentPreRunE = func(*cobra.Command, []string) (err error) {
		if addr != "" {
			srv, err = servePprof(addr)
		}
		return err
	}
	root.PersistentPostRun = func(*cobra.Command, []string) {
		if srv != nil {
			_ = srv.Close()
		}
	}
}

// servePprof listens on addr, which must be a loopback address, and serves
// the profiles until the server is closed.
func servePprof(addr string) (*http.Server, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() {
		return nil, fmt.Errorf("--pprof-addr %q: want a loopback address and port, such as 127.0.0.1:6060", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return srv, nil
}
