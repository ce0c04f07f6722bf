package netcmds

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	grpchealth "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// GRPCHealthSetup declares the flags of its subcommand and returns its body.
func GRPCHealthSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	h := &healthChecker{}
	var port, httpPort int
	var cert, key string
	fs.IntVar(&port, "port", 5000, "Port number.")
	fs.IntVar(&httpPort, "http-port", 8080, "Port number for the /make-serving and /make-not-serving.")
	fs.IntVar(&h.delaySec, "delay-unhealthy-sec", -1, "Number of seconds to delay before start reporting NOT_SERVING, negative value indicates never.")
	fs.StringVar(&h.service, "service", "", "Service name to register the health check for.")
	fs.StringVar(&cert, "tls-cert-file", "", "File containing an x509 certificate for gRPC TLS. (CA cert, if any, concatenated after server cert).")
	fs.StringVar(&key, "tls-private-key-file", "", "File containing an x509 private key matching --tls-cert-file.")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		if (cert == "") != (key == "") {
			a.Log.Printf("Both --tls-cert-file and --tls-private-key-file must be set")
			return 1
		}
		h.a, h.started = a, a.P.Sys.Clock.Now()
		return h.run(ctx, port, httpPort, cert, key)
	}
}

// healthChecker is grpc-health-checking: grpc.health.v1 on --port,
// SERVING until --delay-unhealthy-sec has passed (or /make-not-serving
// was called on --http-port), NOT_FOUND for another service name.
type healthChecker struct {
	grpchealth.UnimplementedHealthServer
	a        *kit.App
	started  time.Time
	delaySec int
	service  string
	forced   atomic.Pointer[bool] // set by /make-serving and /make-not-serving
}

func (h *healthChecker) run(ctx context.Context, port, httpPort int, cert, key string) int {
	h.a.Log.Printf("Http server starting to listen on :%d", httpPort)
	if h.a.P.Sys.Net == nil {
		h.a.Log.Printf("gRPC server starting to listen on :%d", port)
		return wait(ctx)
	}
	var opts []grpc.ServerOption
	if cert != "" {
		creds, err := h.creds(cert, key)
		if err != nil {
			h.a.Log.Printf("Failed to generate credentials %v", err)
			return 1
		}
		opts = append(opts, grpc.Creds(creds))
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		serveOn(h.a, ctx, httpPort, h.httpHandler(), nil)
	}()
	defer wg.Wait()
	l, err := kit.Listen(ctx, h.a.P, "tcp", port)
	if err != nil {
		h.a.Log.Printf("Error while starting the listening service %v", err)
		return 1
	}
	srv := grpc.NewServer(opts...)
	grpchealth.RegisterHealthServer(srv, h)
	h.a.Log.Printf("gRPC server starting to listen on :%d", port)
	stop := context.AfterFunc(ctx, srv.Stop)
	defer stop()
	_ = srv.Serve(l)
	return 0
}

// creds reads the key pair from the container's filesystem.
func (h *healthChecker) creds(cert, key string) (credentials.TransportCredentials, error) {
	certPEM, err := kit.ReadFile(h.a.P, cert)
	if err != nil {
		return nil, fmt.Errorf("%s", kit.GoError(h.a.P, err))
	}
	keyPEM, err := kit.ReadFile(h.a.P, key)
	if err != nil {
		return nil, fmt.Errorf("%s", kit.GoError(h.a.P, err))
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	return credentials.NewServerTLSFromCert(&pair), nil
}

func (h *healthChecker) httpHandler() http.Handler {
	mux := http.NewServeMux()
	mark := func(unhealthy bool, what string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			h.a.Log.Printf("%s", what)
			h.forced.Store(&unhealthy)
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(h.a.P.Sys.Clock.Now().Sub(h.started).String()))
		}
	}
	mux.HandleFunc("/make-not-serving", mark(true, "Mark as unhealthy"))
	mux.HandleFunc("/make-serving", mark(false, "Mark as healthy"))
	return mux
}

// Check implements grpc.health.v1.Health.
func (h *healthChecker) Check(_ context.Context, req *grpchealth.HealthCheckRequest) (*grpchealth.HealthCheckResponse, error) {
	h.a.Log.Printf("Serving the Check request for health check, started at %v", h.started)
	if req.Service != h.service {
		return nil, status.Errorf(codes.NotFound, "unknown service")
	}
	elapsed := h.a.P.Sys.Clock.Now().Sub(h.started)
	forced := h.forced.Load()
	if (forced != nil && *forced) || (h.delaySec >= 0 && elapsed.Seconds() >= float64(h.delaySec)) {
		return &grpchealth.HealthCheckResponse{Status: grpchealth.HealthCheckResponse_NOT_SERVING}, nil
	}
	return &grpchealth.HealthCheckResponse{Status: grpchealth.HealthCheckResponse_SERVING}, nil
}
