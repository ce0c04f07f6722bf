package csi

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"

	"github.com/winkube/winkube/pkg/emu/program"
)

// modeKubeletRegistrationProbe is the deprecated --mode that exits at once.
const modeKubeletRegistrationProbe = "kubelet-registration-probe"

// registrar is csi-node-driver-registrar (kubernetes-csi/node-driver-
// registrar) of the image's version: it asks the CSI driver at
// --csi-address its name, binds <--plugin-registration-path>/<name>-reg.sock
// and answers the kubelet's plugin watcher there with the driver's
// --kubelet-registration-path; a failed registration ends it (exit 1) so
// that its container restarts, as upstream's NotifyRegistrationStatus
// does. --http-endpoint (or --health-port) serves /healthz, which asks
// the registration socket itself.
func registrar(version string) program.Main {
	return func(ctx context.Context, p *program.Proc) int {
		fs, v := newFlagSet(p)
		fs.Duration("connection-timeout", 0, "The --connection-timeout flag is deprecated")
		operationTimeout := fs.Duration("timeout", time.Second, "Timeout for waiting for communication with driver")
		csiAddress := fs.String("csi-address", "/run/csi/socket", "Path of the CSI driver socket that the node-driver-registrar will connect to.")
		pluginRegistrationPath := fs.String("plugin-registration-path", "/registration", "Path to Kubernetes plugin registration directory.")
		kubeletRegistrationPath := fs.String("kubelet-registration-path", "", "Path of the CSI driver socket on the Kubernetes host machine.")
		healthzPort := fs.Int("health-port", 0, "(deprecated) TCP port for healthz requests. Set to 0 to disable the healthz server. Only one of `--health-port` and `--http-endpoint` can be set.")
		httpEndpoint := fs.String("http-endpoint", "", "The TCP network address where the HTTP server for diagnostics, including pprof and the health check indicating whether the registration socket exists, will listen (example: `:8080`). The default is empty string, which means the server is disabled. Only one of `--health-port` and `--http-endpoint` can be set.")
		showVersion := fs.Bool("version", false, "Show version.")
		mode := fs.String("mode", "", "DEPRECATED. If this is set to kubelet-registration-probe, the driver will exit successfully without registering with CSI. If set to any other value node-driver-registrar will do the kubelet plugin registration. This flag will be removed in a future major release because the mode kubelet-registration-probe is no longer needed.")
		fs.Bool("enable-pprof", false, "enable pprof profiling")
		if code, ok := parse(fs, p.Args[1:]); !ok {
			return code
		}
		log := &klogger{w: p.Stderr, clock: p.Sys.Clock, v: *v}
		connTimeoutSet := false
		fs.Visit(func(f *flagT) {
			if f.Name == "connection-timeout" && f.Value.String() != "0s" {
				connTimeoutSet = true
			}
		})
		if *showVersion {
			fmt.Fprintln(p.Stdout, p.Args[0], version)
			return 0
		}
		if *kubeletRegistrationPath == "" {
			log.error(nil, "main.go:135", "kubelet-registration-path is a required parameter")
			return 1
		}
		if *mode == modeKubeletRegistrationProbe {
			return 0
		}
		log.info(0, "main.go:145", "Version", "version", version)
		log.info(0, "main.go:146", "Running node-driver-registrar", "mode", *mode)
		if *healthzPort > 0 && *httpEndpoint != "" {
			log.error(nil, "main.go:149", "Only one of `--health-port` and `--http-endpoint` can be set")
			return 1
		}
		addr := *httpEndpoint
		if *healthzPort > 0 {
			addr = ":" + strconv.Itoa(*healthzPort)
		}
		if connTimeoutSet {
			log.info(0, "main.go:160", "--connection-timeout is deprecated and will have no effect")
		}
		log.info(1, "main.go:163", "Attempting to open a gRPC connection", "csiAddress", *csiAddress)
		conn, err := connect(ctx, p, log, "connection.go:253", *csiAddress, 30*time.Second)
		if err != nil {
			if ctx.Err() != nil {
				return 0
			}
			log.error(err, "main.go:167", "Error connecting to CSI driver")
			return 1
		}
		log.info(1, "main.go:171", "Calling CSI driver to discover driver name")
		nameCtx, cancel := context.WithTimeout(ctx, *operationTimeout)
		name, err := getDriverName(nameCtx, conn)
		cancel()
		if err != nil {
			log.error(err, "main.go:177", "Error retreiving CSI driver name")
			conn.Close()
			return 1
		}
		log.info(2, "main.go:180", "CSI driver name", "csiDriverName", name)
		defer conn.Close()
		return nodeRegister(ctx, p, log, name, *kubeletRegistrationPath, *pluginRegistrationPath, addr, *operationTimeout)
	}
}

type flagT = flag.Flag

// registrationServer answers the kubelet's plugin watcher.
type registrationServer struct {
	registerapi.UnsafeRegistrationServer
	log        *klogger
	driverName string
	endpoint   string
	failed     chan struct{}
	once       sync.Once
}

func (s *registrationServer) GetInfo(ctx context.Context, req *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	s.log.info(4, "main.go:90", "Received GetInfo call", "request", req.String())
	return &registerapi.PluginInfo{
		Type:              registerapi.CSIPlugin,
		Name:              s.driverName,
		Endpoint:          s.endpoint,
		SupportedVersions: []string{"1.0.0"},
	}, nil
}

func (s *registrationServer) NotifyRegistrationStatus(ctx context.Context, status *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	s.log.info(0, "main.go:102", "Received NotifyRegistrationStatus call", "status", status.String())
	if !status.PluginRegistered {
		s.log.error(errors.New(status.Error), "main.go:104", "Registration process failed with error, restarting registration container")
		s.once.Do(func() { close(s.failed) })
	}
	return &registerapi.RegistrationStatusResponse{}, nil
}

// nodeRegister is upstream's: the registration socket, its gRPC server
// and the HTTP server, until the container stops (the socket is removed,
// exit 0) or the kubelet reports a failed registration (exit 1).
func nodeRegister(ctx context.Context, p *program.Proc, log *klogger, name, kubeletPath, regDir, addr string, timeout time.Duration) int {
	socketPath := fmt.Sprintf("%s/%s-reg.sock", regDir, name)
	socks := p.Sys.Sockets
	if socks != nil && socks.Exists(socketPath) {
		if err := socks.Remove(socketPath); err != nil {
			log.error(fmt.Errorf("failed to remove stale socket %s with error: %+v", socketPath, err), "node_register.go:46", "")
			return 1
		}
	}
	log.info(0, "node_register.go:56", "Starting Registration Server", "socketPath", socketPath)
	if socks == nil {
		log.error(noUnix("listen", socketPath), "node_register.go:59", "Failed to listen on socket", "socketPath", socketPath)
		return 1
	}
	lis, err := socks.Listen(socketPath)
	if err != nil {
		log.error(err, "node_register.go:59", "Failed to listen on socket", "socketPath", socketPath)
		return 1
	}
	log.info(0, "node_register.go:66", "Registration Server started", "socketPath", socketPath)
	rs := &registrationServer{log: log, driverName: name, endpoint: kubeletPath, failed: make(chan struct{})}
	srv := grpc.NewServer()
	registerapi.RegisterRegistrationServer(srv, rs)
	if addr == "" {
		log.info(0, "node_register.go:96", "Skipping HTTP server")
	} else {
		log.info(0, "node_register.go:99", "Starting HTTP server", "endpoint", addr)
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
			if !socks.Exists(socketPath) {
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte("registration socket does not exist"))
				log.error(nil, "node_register.go:124", "Health check failed, registration socket does not exist")
				return
			}
			if err := checkLiveRegistrationSocket(ctx, p, log, socketPath, name, timeout); err != nil {
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(err.Error()))
				log.error(err, "node_register.go:111", "Health check failed")
				return
			}
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte("ok"))
			log.info(5, "node_register.go:115", "Health check succeeded")
		})
		if err := serveHTTP(ctx, p, addr, mux); err != nil {
			log.error(err, "node_register.go:138", "")
			srv.Stop()
			return 1
		}
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	select {
	case <-ctx.Done():
		// SIGTERM: removeRegSocket removes the socket and exits 0.
		srv.Stop()
		_ = socks.Remove(socketPath)
		return 0
	case <-rs.failed:
		srv.Stop()
		return 1
	case err := <-served:
		log.error(err, "node_register.go:81", "Registration Server stopped serving")
		return 1
	}
}

// checkLiveRegistrationSocket asks the registration socket for its info,
// as the kubelet would.
func checkLiveRegistrationSocket(ctx context.Context, p *program.Proc, log *klogger, socketPath, name string, timeout time.Duration) error {
	log.info(4, "node_register.go:144", "Attempting to open a gRPC connection", "socketfile", socketPath)
	conn, err := connect(ctx, p, log, "connection.go:253", "unix://"+socketPath, 30*time.Second)
	if err != nil {
		return fmt.Errorf("error connecting to node-registrar socket %s: %v", socketPath, err)
	}
	defer conn.Close()
	log.info(4, "node_register.go:152", "Calling node registrar to check if it still responds")
	cctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	info, err := registerapi.NewRegistrationClient(conn).GetInfo(cctx, &registerapi.InfoRequest{})
	if err != nil {
		return fmt.Errorf("error getting info from node-registrar socket: %v", err)
	}
	if info.Name == name {
		return nil
	}
	return fmt.Errorf("invalid driver name %s", info.Name)
}
