package csi

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/winkube/winkube/pkg/emu/program"
)

// secretsStore is the Secrets Store CSI Driver's node plugin
// (kubernetes-sigs/secrets-store-csi-driver, secrets-store-csi[.exe])
// of the image's version: its flags, its start lines, the CSI Identity and
// Node services over --endpoint. Mounting a SecretProviderClass needs a
// provider plugin on --provider-volume, which no emulated image
// provides: NodePublishVolume fails as the driver does without one.
func secretsStore(version string) program.Main {
	return func(ctx context.Context, p *program.Proc) int {
		fs, v := newFlagSet(p)
		endpoint := fs.String("endpoint", "unix://tmp/csi.sock", "CSI endpoint")
		driverName := fs.String("drivername", "secrets-store.csi.k8s.io", "name of the driver")
		nodeID := fs.String("nodeid", "", "node id")
		fs.Bool("log-format-json", false, "set log formatter to json")
		fs.String("provider-volume", "/var/run/secrets-store-csi-providers", "Volume path for provider")
		fs.String("additional-provider-volume-paths", "/etc/kubernetes/secrets-store-csi-providers", "Comma separated list of additional paths to communicate with providers")
		fs.String("metrics-addr", ":8095", "The address the metric endpoint binds to")
		fs.Bool("enable-secret-rotation", false, "Enable secret rotation feature [alpha]")
		fs.Duration("rotation-poll-interval", 2*time.Minute, "Secret rotation poll interval duration")
		fs.Bool("enable-pprof", false, "enable pprof profiling")
		fs.Int("pprof-port", 6065, "port for pprof profiling")
		fs.Int("max-call-recv-msg-size", 1024*1024*4, "maximum size in bytes of gRPC response from plugins")
		showVersion := fs.Bool("version", false, "Print the version and exit")
		fs.Bool("provider-health-check", false, "Enable health check for configured providers")
		fs.Duration("provider-health-check-interval", 2*time.Minute, "Provider healthcheck interval duration")
		if code, ok := parse(fs, p.Args[1:]); !ok {
			return code
		}
		log := &klogger{w: p.Stderr, clock: p.Sys.Clock, v: *v}
		if *showVersion {
			fmt.Fprintf(p.Stdout, "{\"version\":%q,\"buildTime\":\"\",\"gitCommit\":\"\"}\n", version)
			return 0
		}
		log.info(0, "secrets-store.go:55", "Initializing Secrets Store CSI Driver", "driver", *driverName, "version", version, "buildTime", "")
		d := &plugin{
			name: *driverName, version: version, nodeID: *nodeID, controller: true,
			nodeCaps:   []csi.NodeServiceCapability_RPC_Type{csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME},
			getInfoLog: func() { log.info(0, "nodeserver.go:367", "node: getting default node info") },
		}
		d.publish = func(ctx context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
			if req.GetVolumeCapability() == nil {
				return nil, status.Error(codes.InvalidArgument, "Volume capability missing in request")
			}
			if req.GetVolumeId() == "" {
				return nil, status.Error(codes.InvalidArgument, "Volume ID missing in request")
			}
			if req.GetTargetPath() == "" {
				return nil, status.Error(codes.InvalidArgument, "Target path missing in request")
			}
			spc := req.GetVolumeContext()["secretProviderClass"]
			if spc == "" {
				return nil, status.Error(codes.InvalidArgument, "secretProviderClass is not set")
			}
			return nil, status.Errorf(codes.Unknown, "failed to get secretproviderclass %s/%s, error: secretproviderclasses.secrets-store.csi.x-k8s.io %q not found", req.GetVolumeContext()["csi.storage.k8s.io/pod.namespace"], spc, spc)
		}
		l, addr, err := listenEndpoint(p, *endpoint)
		if err != nil {
			if strings.HasPrefix(err.Error(), "Invalid endpoint") {
				log.line('F', "server.go:91", err.Error())
				return 255
			}
			proto, _, _ := parseEndpoint(*endpoint)
			log.error(err, "server.go:106", "failed to listen", "proto", proto, "address", addr)
			log.error(err, "main.go:192", "failed to run manager")
			return 1
		}
		srv := grpc.NewServer()
		csi.RegisterIdentityServer(srv, d)
		csi.RegisterControllerServer(srv, d)
		csi.RegisterNodeServer(srv, d)
		log.info(0, "server.go:126", "Listening for connections", "address", l.Addr().String())
		return serveUntilDone(ctx, srv, l)
	}
}
