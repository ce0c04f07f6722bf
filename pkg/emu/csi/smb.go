package csi

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"strings"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/winkube/winkube/pkg/emu/program"
)

// smbDriverVersion is the version a build of csi-driver-smb reports when
// its tag names none (canary): the Makefile's IMAGE_VERSION.
const smbDriverVersion = "v1.21.0"

// smbplugin is csi-driver-smb's smbplugin (kubernetes-csi/csi-driver-smb)
// as its node DaemonSets run it: its flags, its start (the DRIVER
// INFORMATION block, "Listening for connections on address"), the CSI
// Identity and Node services with its capabilities and the node ID of
// --nodeid, and every call logged by its gRPC interceptor. Staging a
// share needs an SMB server: the share's host is dialled on port 445 of
// the pod's network and, as no emulated server speaks SMB, the mount
// fails in the driver's words.
func smbplugin(version string) program.Main {
	return func(ctx context.Context, p *program.Proc) int {
		fs, v := newFlagSet(p)
		endpoint := fs.String("endpoint", "unix://tmp/csi.sock", "CSI endpoint")
		nodeID := fs.String("nodeid", "", "node id")
		driverName := fs.String("drivername", "smb.csi.k8s.io", "name of the driver")
		ver := fs.Bool("ver", false, "Print the version and exit.")
		fs.String("metrics-address", "", "export the metrics")
		fs.String("kubeconfig", "", "Absolute path to the kubeconfig file. Required only when running out of cluster.")
		enableStats := fs.Bool("enable-get-volume-stats", true, "allow GET_VOLUME_STATS on agent node")
		fs.Bool("remove-smb-mapping-during-unmount", true, "remove SMBMapping during unmount on Windows node")
		fs.String("working-mount-dir", "/tmp", "working directory for provisioner to mount smb shares temporarily")
		fs.Int("vol-stats-cache-expire-in-minutes", 10, "The cache expire time in minutes for volume stats cache")
		fs.String("krb5-cache-directory", "/var/lib/kubelet/kerberos/", "The directory for kerberos cache")
		fs.String("krb5-prefix", "krb5cc_", "The prefix for kerberos cache")
		fs.String("default-ondelete-policy", "", "default policy for deleting subdirectory when deleting a volume")
		fs.Bool("remove-archived-volume-path", true, "remove archived volume path in DeleteVolume")
		fs.Bool("enable-windows-host-process", false, "enable windows host process")
		if code, ok := parse(fs, p.Args[1:]); !ok {
			return code
		}
		log := &klogger{w: p.Stderr, clock: p.Sys.Clock, v: *v}
		platform := "linux/amd64"
		if p.Sys.Windows {
			platform = "windows/amd64"
		}
		info := fmt.Sprintf("Build Date: N/A\nCompiler: gc\nDriver Name: %s\nDriver Version: %s\nGit Commit: N/A\nGo Version: %s\nPlatform: %s",
			*driverName, version, runtime.Version(), platform)
		if *ver {
			fmt.Fprintln(p.Stdout, info)
			return 0
		}
		if *nodeID == "" {
			log.warningf("main.go:69", "nodeid is empty")
		}
		log.infof(2, "smb.go:166", "\nDRIVER INFORMATION:\n-------------------\n%s\n\nStreaming logs below:", info)
		d := &plugin{
			name: *driverName, version: version, nodeID: *nodeID, controller: true,
			nodeCaps: []csi.NodeServiceCapability_RPC_Type{
				csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME,
				csi.NodeServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER,
				csi.NodeServiceCapability_RPC_VOLUME_MOUNT_GROUP,
			},
		}
		if *enableStats {
			d.nodeCaps = append(d.nodeCaps, csi.NodeServiceCapability_RPC_GET_VOLUME_STATS)
		}
		d.stage = func(ctx context.Context, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error) {
			return smbStage(ctx, p, log, req)
		}
		l, addr, err := listenEndpoint(p, *endpoint)
		if err != nil {
			if strings.HasPrefix(err.Error(), "Invalid endpoint") {
				log.line('F', "server.go:83", err.Error())
			} else {
				log.line('F', "server.go:97", fmt.Sprintf("Failed to listen: %v", err))
			}
			_ = addr
			return 255
		}
		srv := grpc.NewServer(grpc.UnaryInterceptor(smbLogGRPC(log)))
		csi.RegisterIdentityServer(srv, d)
		csi.RegisterControllerServer(srv, d)
		csi.RegisterNodeServer(srv, d)
		log.infof(0, "server.go:126", "Listening for connections on address: %#v", l.Addr())
		return serveUntilDone(ctx, srv, l)
	}
}

// smbLogGRPC is csi-common's logGRPC: Probe, NodeGetCapabilities and
// NodeGetVolumeStats at level 6, the rest at 2; errors always.
func smbLogGRPC(log *klogger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		level := 2
		switch info.FullMethod {
		case "/csi.v1.Identity/Probe", "/csi.v1.Node/NodeGetCapabilities", "/csi.v1.Node/NodeGetVolumeStats":
			level = 6
		}
		log.infof(level, "utils.go:76", "GRPC call: %s", info.FullMethod)
		log.infof(level, "utils.go:77", "GRPC request: %s", stripSecrets(req))
		rsp, err := handler(ctx, req)
		if err != nil {
			log.errorf("utils.go:81", "GRPC error: %v", err)
		} else {
			log.infof(level, "utils.go:83", "GRPC response: %s", stripSecrets(rsp))
		}
		return rsp, err
	}
}

// stripSecrets is protosanitizer.StripSecrets' JSON: the message with its
// secrets replaced.
func stripSecrets(msg any) string {
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Sprint(msg)
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return string(b)
	}
	if s, ok := m["secrets"].(map[string]any); ok {
		for k := range s {
			s[k] = "***stripped***"
		}
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// smbStage is NodeStageVolume: the request's checks in the driver's
// words, then the mount, which needs the share's server.
func smbStage(ctx context.Context, p *program.Proc, log *klogger, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error) {
	volumeID := req.GetVolumeId()
	if volumeID == "" {
		return nil, status.Error(codes.InvalidArgument, "Volume ID missing in request")
	}
	if req.GetVolumeCapability() == nil {
		return nil, status.Error(codes.InvalidArgument, "Volume capability not provided")
	}
	target := req.GetStagingTargetPath()
	if target == "" {
		return nil, status.Error(codes.InvalidArgument, "Staging target not provided")
	}
	var source, subDir string
	for k, v := range req.GetVolumeContext() {
		switch strings.ToLower(k) {
		case "source":
			source = v
		case "subdir":
			subDir = v
		}
	}
	if source == "" {
		return nil, status.Error(codes.InvalidArgument, fmt.Sprintf("source field is missing, current context: %v", req.GetVolumeContext()))
	}
	log.infof(2, "nodeserver.go:296", "NodeStageVolume: targetPath(%v) volumeID(%v) context(%v) mountflags(%v) mountOptions(%v)",
		target, volumeID, req.GetVolumeContext(), req.GetVolumeCapability().GetMount().GetMountFlags(), []string{})
	if subDir != "" {
		source = strings.TrimRight(source, "/") + "/" + subDir
	}
	host := smbHost(source)
	mountErr := fmt.Errorf("could not connect to %s: no SMB server answers in the emulated cluster", host)
	if p.Sys.Net != nil && host != "" {
		addr := host
		if _, err := netip.ParseAddr(host); err != nil {
			addrs, err := p.Sys.Net.LookupHost(ctx, host)
			if err != nil || len(addrs) == 0 {
				return nil, status.Errorf(codes.Internal, "volume(%s) mount %q on %q failed with could not resolve address for %s", volumeID, source, target, host)
			}
			addr = addrs[0]
		}
		if c, err := p.Sys.Net.Dial(ctx, "tcp", net.JoinHostPort(addr, "445")); err != nil {
			mountErr = fmt.Errorf("could not connect to %s: %v", host, err)
		} else {
			c.Close()
		}
	}
	return nil, status.Errorf(codes.Internal, "volume(%s) mount %q on %q failed with %v", volumeID, source, target, mountErr)
}

// smbHost is the server of //server/share (or \\server\share).
func smbHost(source string) string {
	s := strings.TrimLeft(strings.ReplaceAll(source, `\`, "/"), "/")
	host, _, _ := strings.Cut(s, "/")
	return host
}
