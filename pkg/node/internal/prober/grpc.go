package prober

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/probe"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	grpchealth "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/winkube/winkube/pkg/kubeversion"
)

// GRPC asks the pod's server for grpc.health.v1.Health/Check over the
// pod network, with the results and messages of the kubelet's gRPC prober.
func (p *Prober) GRPC(a *corev1.GRPCAction, podIP string, timeout time.Duration) (probe.Result, string, error) {
	service := ""
	if a.Service != nil {
		service = *a.Service
	}
	addr := net.JoinHostPort(podIP, strconv.Itoa(int(a.Port)))
	ctx, cancel := context.WithTimeout(p.Ctx, timeout)
	defer cancel()
	// Dial first, as the kubelet's blocking dial does, so that a refused
	// port is a connect failure rather than an RPC one.
	raw, err := p.Dial(ctx, addr)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return probe.Failure, fmt.Sprintf("timeout: failed to connect service %q within %v: %+v", addr, timeout, err), nil
		}
		return probe.Failure, fmt.Sprintf("error: failed to connect service at %q: %+v", addr, err), nil
	}
	used := false
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUserAgent("kube-probe/"+kubeProbeVersion(p.KubeletVersion)),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			if !used {
				used = true
				return raw, nil
			}
			return p.Dial(ctx, addr)
		}))
	if err != nil {
		raw.Close()
		return probe.Failure, fmt.Sprintf("error: failed to connect service at %q: %+v", addr, err), nil
	}
	defer conn.Close()
	resp, err := grpchealth.NewHealthClient(conn).Check(ctx, &grpchealth.HealthCheckRequest{Service: service})
	if err != nil {
		if st, ok := status.FromError(err); ok {
			switch st.Code() {
			case codes.Unimplemented:
				return probe.Failure, fmt.Sprintf("error: this server does not implement the grpc health protocol (grpc.health.v1.Health): %s", st.Message()), nil
			case codes.DeadlineExceeded:
				return probe.Failure, fmt.Sprintf("timeout: health rpc did not complete within %v", timeout), nil
			}
		}
		return probe.Failure, fmt.Sprintf("error: health rpc probe failed: %+v", err), nil
	}
	if resp.GetStatus() != grpchealth.HealthCheckResponse_SERVING {
		return probe.Failure, fmt.Sprintf("service unhealthy (responded with %q)", resp.GetStatus().String()), nil
	}
	return probe.Success, "service healthy", nil
}

// kubeProbeVersion is "MAJOR.MINOR" of the kubelet's version, as its
// probes' User-Agent says it.
func kubeProbeVersion(v string) string {
	if m, err := kubeversion.ParseMinor(v); err == nil {
		return fmt.Sprintf("1.%d", m)
	}
	return v
}
