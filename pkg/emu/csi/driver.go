package csi

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/winkube/winkube/pkg/emu/program"
)

// plugin is a CSI driver's node plugin as an emulated program serves it:
// the Identity service (its name and version, Probe) and the Node
// service (the node ID it was given, its capabilities) over the Unix
// socket of its endpoint. What a real driver does to a node's mounts
// is the driver's own (smb.go, secretsstore.go).
type plugin struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedNodeServer
	csi.UnimplementedControllerServer

	name, version, nodeID string
	nodeCaps              []csi.NodeServiceCapability_RPC_Type
	controller            bool // GetPluginCapabilities says CONTROLLER_SERVICE

	// getInfoLog, when set, is logged by NodeGetInfo (secrets-store).
	getInfoLog func()
	stage      func(ctx context.Context, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error)
	publish    func(ctx context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error)
}

func (d *plugin) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	if d.name == "" {
		return nil, status.Error(codes.Unavailable, "Driver name not configured")
	}
	if d.version == "" {
		return nil, status.Error(codes.Unavailable, "Driver is missing version")
	}
	return &csi.GetPluginInfoResponse{Name: d.name, VendorVersion: d.version}, nil
}

func (d *plugin) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	return &csi.ProbeResponse{Ready: wrapperspb.Bool(true)}, nil
}

func (d *plugin) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	rsp := &csi.GetPluginCapabilitiesResponse{}
	if d.controller {
		rsp.Capabilities = []*csi.PluginCapability{{Type: &csi.PluginCapability_Service_{Service: &csi.PluginCapability_Service{Type: csi.PluginCapability_Service_CONTROLLER_SERVICE}}}}
	}
	return rsp, nil
}

func (d *plugin) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	if d.getInfoLog != nil {
		d.getInfoLog()
	}
	return &csi.NodeGetInfoResponse{NodeId: d.nodeID}, nil
}

func (d *plugin) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	rsp := &csi.NodeGetCapabilitiesResponse{}
	for _, c := range d.nodeCaps {
		rsp.Capabilities = append(rsp.Capabilities, &csi.NodeServiceCapability{Type: &csi.NodeServiceCapability_Rpc{Rpc: &csi.NodeServiceCapability_RPC{Type: c}}})
	}
	return rsp, nil
}

func (d *plugin) NodeStageVolume(ctx context.Context, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error) {
	if d.stage == nil {
		return d.UnimplementedNodeServer.NodeStageVolume(ctx, req)
	}
	return d.stage(ctx, req)
}

func (d *plugin) NodePublishVolume(ctx context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	if d.publish == nil {
		return d.UnimplementedNodeServer.NodePublishVolume(ctx, req)
	}
	return d.publish(ctx, req)
}

// parseEndpoint is csi-common's ParseEndpoint: unix:// or tcp://, any
// case, with something after it.
func parseEndpoint(ep string) (proto, addr string, err error) {
	if l := strings.ToLower(ep); strings.HasPrefix(l, "unix://") || strings.HasPrefix(l, "tcp://") {
		s := strings.SplitN(ep, "://", 2)
		if s[1] != "" {
			return s[0], s[1], nil
		}
	}
	return "", "", fmt.Errorf("Invalid endpoint: %v", ep)
}

// listenEndpoint is the drivers' serve(): the socket's stale name
// removed, then bound. Linux drivers root the address (unix://tmp/x is
// /tmp/x); on Windows it is taken as written. A tcp:// endpoint binds
// the container's network, which no emulated kubelet dials.
func listenEndpoint(p *program.Proc, endpoint string) (net.Listener, string, error) {
	proto, addr, err := parseEndpoint(endpoint)
	if err != nil {
		return nil, "", err
	}
	if !strings.EqualFold(proto, "unix") {
		return nil, addr, fmt.Errorf("listen %s %s: the emulated driver serves unix:// endpoints only", proto, addr)
	}
	if !p.Sys.Windows {
		addr = "/" + addr
	}
	if p.Sys.Sockets == nil {
		return nil, addr, noUnix("listen", addr)
	}
	if p.Sys.Sockets.Exists(addr) {
		_ = p.Sys.Sockets.Remove(addr)
	}
	l, err := p.Sys.Sockets.Listen(addr)
	return l, addr, err
}

// serveUntilDone serves the driver's gRPC server on l until the container
// stops.
func serveUntilDone(ctx context.Context, srv *grpc.Server, l net.Listener) int {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		srv.Stop()
		return 0
	case <-done:
		return 1
	}
}
