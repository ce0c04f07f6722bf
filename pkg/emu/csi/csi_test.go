package csi

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	"k8s.io/utils/clock"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/unixsock"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

type direct struct{}

func (direct) Route(_ vnet.Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	return dst, nil
}

func (direct) Lookup(context.Context, vnet.Host, string) ([]netip.Addr, error) { return nil, nil }

var podIP = netip.MustParseAddr("10.244.1.7")

// pod is the Windows DaemonSet pod of secrets-store-csi-driver-windows.yaml
// on one node: its three containers mount the node's plugin directory at
// C:\csi, the registrar the plugin registry at C:\registration.
type pod struct {
	t      *testing.T
	ctx    context.Context
	node   *unixsock.Namespace
	fabric *vnet.Fabric
	host   *vnet.Host
}

const (
	pluginDir   = `C:\var\lib\kubelet\plugins\csi-secrets-store\`
	registryDir = `C:\var\lib\kubelet\plugins_registry\`
)

func newPod(t *testing.T) *pod {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &pod{t: t, ctx: ctx, node: unixsock.NewNamespace(true), fabric: vnet.New(direct{}),
		host: &vnet.Host{IP: podIP, Scope: "pod-uid", Source: "pod/kube-system/csi"}}
}

// run starts a container's program; it returns its output and a channel
// with its exit status.
func (p *pod) run(ctx context.Context, main program.Main, regDir bool, args ...string) (*syncbuf.Buffer, chan int) {
	mounts := []unixsock.Mount{{Path: `C:\csi`, NS: p.node, Dir: pluginDir}}
	if regDir {
		mounts = append(mounts, unixsock.Mount{Path: `C:\registration`, NS: p.node, Dir: registryDir})
	}
	sys := &program.Sys{Windows: true, FS: vfs.New(vfs.Options{Windows: true}), Clock: clock.RealClock{},
		Net: p.fabric.Net(p.host), Sockets: &unixsock.View{Windows: true, Mounts: mounts}}
	out := &syncbuf.Buffer{}
	proc := &program.Proc{Args: args, Dir: `C:\`, Stdout: out, Stderr: out, Sys: sys}
	done := make(chan int, 1)
	go func() {
		code, _ := sys.Run(ctx, proc, main)
		done <- code
	}()
	return out, done
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func (p *pod) client(path string) *grpc.ClientConn {
	p.t.Helper()
	cc, err := grpc.NewClient("passthrough:///x", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return p.node.Dial(ctx, path) }))
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { cc.Close() })
	return cc
}

func (p *pod) get(port string, path string) (int, string) {
	p.t.Helper()
	c, err := p.fabric.Dial(p.ctx, vnet.Host{IP: netip.MustParseAddr("10.0.0.4"), Scope: "node", Source: "node/win-1"}, "tcp", podIP.String()+":"+port)
	if err != nil {
		p.t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	req, _ := http.NewRequest("GET", "http://"+podIP.String()+":"+port+path, nil)
	if err := req.Write(c); err != nil {
		p.t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b := make([]byte, 512)
	n, _ := resp.Body.Read(b)
	return resp.StatusCode, string(b[:n])
}

// The chart's pod: the registrar waits for the driver, learns its name
// and publishes secrets-store.csi.k8s.io-reg.sock in the plugin
// registry; the kubelet's calls there and to the driver's endpoint are
// answered as upstream answers them; livenessprobe's /healthz probes the
// driver; a failed registration ends the registrar with status 1.
func TestSecretsStorePodRegisters(t *testing.T) {
	p := newPod(t)
	tbl := Table("registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.16.0")
	regOut, regDone := p.run(p.ctx, tbl["csi-node-driver-registrar"], true, `C:\csi-node-driver-registrar.exe`,
		"--v=5", `--csi-address=unix://C:\\csi\\csi.sock`, `--kubelet-registration-path=C:\var\lib\kubelet\plugins\csi-secrets-store\csi.sock`)
	drv := Table("registry.k8s.io/csi-secrets-store/driver:v1.6.0")["secrets-store-csi"]
	drvOut, _ := p.run(p.ctx, drv, false, `C:\secrets-store-csi.exe`, "--endpoint=unix://C:\\\\csi\\\\csi.sock", "--nodeid=win-1",
		`--provider-volume=C:\k\secrets-store-csi-providers`, "--additional-provider-volume-paths=", "--metrics-addr=:8095",
		"--provider-health-check-interval=2m", "--max-call-recv-msg-size=4194304")
	liveOut, _ := p.run(p.ctx, Table("registry.k8s.io/sig-storage/livenessprobe:v2.18.0")["livenessprobe"], false,
		`C:\livenessprobe.exe`, `--csi-address=unix://C:\\csi\\csi.sock`, "--probe-timeout=3s", "--http-endpoint=0.0.0.0:9808", "-v=2")

	regSock := registryDir + "secrets-store.csi.k8s.io-reg.sock"
	waitFor(t, "the registration socket", func() bool { return p.node.Exists(regSock) })
	reg := registerapi.NewRegistrationClient(p.client(regSock))
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	info, err := reg.GetInfo(ctx, &registerapi.InfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Type != registerapi.CSIPlugin || info.Name != "secrets-store.csi.k8s.io" || info.Endpoint != `C:\var\lib\kubelet\plugins\csi-secrets-store\csi.sock` || strings.Join(info.SupportedVersions, ",") != "1.0.0" {
		t.Errorf("GetInfo = %v", info)
	}
	// The kubelet dials the endpoint on the node and asks the driver.
	drvConn := p.client(info.Endpoint)
	ni, err := csi.NewNodeClient(drvConn).NodeGetInfo(ctx, &csi.NodeGetInfoRequest{})
	if err != nil || ni.NodeId != "win-1" {
		t.Errorf("NodeGetInfo = %v, %v", ni, err)
	}
	pi, err := csi.NewIdentityClient(drvConn).GetPluginInfo(ctx, &csi.GetPluginInfoRequest{})
	if err != nil || pi.Name != "secrets-store.csi.k8s.io" || pi.VendorVersion != "v1.6.0" {
		t.Errorf("GetPluginInfo = %v, %v", pi, err)
	}
	caps, err := csi.NewNodeClient(drvConn).NodeGetCapabilities(ctx, &csi.NodeGetCapabilitiesRequest{})
	if err != nil || len(caps.Capabilities) != 1 || caps.Capabilities[0].GetRpc().GetType() != csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME {
		t.Errorf("NodeGetCapabilities = %v, %v", caps, err)
	}
	if _, err := reg.NotifyRegistrationStatus(ctx, &registerapi.RegistrationStatus{PluginRegistered: true}); err != nil {
		t.Fatal(err)
	}

	waitFor(t, "livenessprobe's server", func() bool { return strings.Contains(liveOut.String(), "ServeMux listening") })
	if code, body := p.get("9808", "/healthz"); code != 200 || body != "ok" {
		t.Errorf("/healthz = %d %q\n%s", code, body, liveOut)
	}

	// Upstream exits inside the call: the kubelet sees the connection go.
	_, _ = reg.NotifyRegistrationStatus(ctx, &registerapi.RegistrationStatus{PluginRegistered: false, Error: "RegisterPlugin error -- plugin registration failed"})
	select {
	case code := <-regDone:
		if code != 1 {
			t.Errorf("registrar exited %d after a failed registration", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the registrar did not exit after a failed registration")
	}
	if p.node.Exists(regSock) {
		t.Error("the registration socket outlived the registrar")
	}
	for _, want := range []string{
		`main.go:145] "Version" version="v2.16.0"`,
		`main.go:163] "Attempting to open a gRPC connection" csiAddress="unix://C:\\\\csi\\\\csi.sock"`,
		`main.go:180] "CSI driver name" csiDriverName="secrets-store.csi.k8s.io"`,
		`node_register.go:56] "Starting Registration Server" socketPath="/registration/secrets-store.csi.k8s.io-reg.sock"`,
		`node_register.go:66] "Registration Server started"`,
		`"Received GetInfo call"`,
		`main.go:102] "Received NotifyRegistrationStatus call" status="plugin_registered:true"`,
		`"Registration process failed with error, restarting registration container" err="RegisterPlugin error -- plugin registration failed"`,
	} {
		if !strings.Contains(regOut.String(), want) {
			t.Errorf("registrar log lacks %s:\n%s", want, regOut)
		}
	}
	for _, want := range []string{
		`"Initializing Secrets Store CSI Driver" driver="secrets-store.csi.k8s.io" version="v1.6.0"`,
		`"Listening for connections" address="C:\\\\csi\\\\csi.sock"`,
		`"node: getting default node info"`,
	} {
		if !strings.Contains(drvOut.String(), want) {
			t.Errorf("driver log lacks %s:\n%s", want, drvOut)
		}
	}
	if !strings.Contains(liveOut.String(), `"CSI driver name" driver="secrets-store.csi.k8s.io"`) {
		t.Errorf("livenessprobe log:\n%s", liveOut)
	}
}

// The HostProcess smb DaemonSet: no mounts, the node's own paths; the
// registrar's kubelet-registration-path keeps the chart's doubled
// backslashes, which name the same socket. Staging a share whose server
// does not answer fails as the driver does.
func TestSMBHostProcess(t *testing.T) {
	p := newPod(t)
	hpc := func(main program.Main, args ...string) (*syncbuf.Buffer, chan int) {
		sys := &program.Sys{Windows: true, FS: vfs.New(vfs.Options{Windows: true}), Clock: clock.RealClock{},
			Net: p.fabric.Net(p.host), Sockets: &unixsock.View{Windows: true, Mounts: []unixsock.Mount{{Path: `C:\`, NS: p.node, Dir: `C:\`}}}}
		out := &syncbuf.Buffer{}
		done := make(chan int, 1)
		go func() {
			code, _ := sys.Run(p.ctx, &program.Proc{Args: args, Stdout: out, Stderr: out, Sys: sys}, main)
			done <- code
		}()
		return out, done
	}
	endpoint := `unix://C:\var\lib\kubelet\plugins\smb.csi.k8s.io\csi.sock`
	drvOut, _ := hpc(Table("gcr.io/k8s-staging-sig-storage/smbplugin:canary-windows-hp")["smbplugin"], "smbplugin.exe",
		"--v=5", "--drivername=smb.csi.k8s.io", "--endpoint="+endpoint, "--nodeid=win-1", "--enable-get-volume-stats=true",
		"--remove-smb-mapping-during-unmount=true", "--enable-windows-host-process=true")
	regOut, _ := hpc(Table("registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.17.0")["csi-node-driver-registrar"], "csi-node-driver-registrar.exe",
		"--csi-address="+endpoint, `--kubelet-registration-path=C:\\var\\lib\\kubelet\\plugins\\smb.csi.k8s.io\\csi.sock`,
		`--plugin-registration-path=C:\\var\\lib\\kubelet\\plugins_registry\\`, "--v=2")
	regSock := registryDir + "smb.csi.k8s.io-reg.sock"
	waitFor(t, "the registration socket", func() bool { return p.node.Exists(regSock) })
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	info, err := registerapi.NewRegistrationClient(p.client(regSock)).GetInfo(ctx, &registerapi.InfoRequest{})
	if err != nil || info.Name != "smb.csi.k8s.io" || info.Endpoint != `C:\\var\\lib\\kubelet\\plugins\\smb.csi.k8s.io\\csi.sock` {
		t.Fatalf("GetInfo = %v, %v", info, err)
	}
	node := csi.NewNodeClient(p.client(info.Endpoint))
	ni, err := node.NodeGetInfo(ctx, &csi.NodeGetInfoRequest{})
	if err != nil || ni.NodeId != "win-1" {
		t.Errorf("NodeGetInfo = %v, %v", ni, err)
	}
	caps, _ := node.NodeGetCapabilities(ctx, &csi.NodeGetCapabilitiesRequest{})
	if len(caps.GetCapabilities()) != 4 {
		t.Errorf("capabilities = %v", caps)
	}
	_, err = node.NodeStageVolume(ctx, &csi.NodeStageVolumeRequest{VolumeId: "vol-1", StagingTargetPath: `C:\var\lib\kubelet\plugins\kubernetes.io\csi\smb.csi.k8s.io\x\globalmount`,
		VolumeCapability: &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}}},
		VolumeContext:    map[string]string{"source": `//smb-server.default.svc.cluster.local/share`}, Secrets: map[string]string{"username": "u", "password": "p"}})
	if s := status.Convert(err); s.Code().String() != "Internal" || !strings.HasPrefix(s.Message(), `volume(vol-1) mount "//smb-server.default.svc.cluster.local/share" on`) {
		t.Errorf("NodeStageVolume = %v", err)
	}
	_, err = node.NodeStageVolume(ctx, &csi.NodeStageVolumeRequest{VolumeId: "vol-1"})
	if s := status.Convert(err); s.Message() != "Volume capability not provided" {
		t.Errorf("NodeStageVolume without capability = %v", err)
	}
	for _, want := range []string{
		"DRIVER INFORMATION:\n-------------------\nBuild Date: N/A\nCompiler: gc\nDriver Name: smb.csi.k8s.io\nDriver Version: v1.21.0",
		`Listening for connections on address: &net.UnixAddr{Name:"C:\\var\\lib\\kubelet\\plugins\\smb.csi.k8s.io\\csi.sock", Net:"unix"}`,
		"GRPC call: /csi.v1.Node/NodeGetInfo",
		`"secrets":{"password":"***stripped***","username":"***stripped***"}`,
	} {
		if !strings.Contains(drvOut.String(), want) {
			t.Errorf("driver log lacks %s:\n%s", want, drvOut)
		}
	}
	if !strings.Contains(regOut.String(), `socketPath="C:\\\\var\\\\lib\\\\kubelet\\\\plugins_registry\\\\/smb.csi.k8s.io-reg.sock"`) {
		t.Errorf("registrar log:\n%s", regOut)
	}
}

// Without the node's sockets the driver cannot bind (no AF_UNIX) and
// exits; the registrar's bad command lines end as upstream's do.
func TestFailures(t *testing.T) {
	sys := &program.Sys{Windows: true, Clock: clock.RealClock{}}
	out := &syncbuf.Buffer{}
	code, _ := sys.Run(context.Background(), &program.Proc{Args: []string{"secrets-store-csi", "--endpoint=unix://C:\\csi\\csi.sock"}, Stdout: out, Stderr: out, Sys: sys},
		Table("registry.k8s.io/csi-secrets-store/driver:v1.6.0")["secrets-store-csi"])
	if code != 1 || !strings.Contains(out.String(), `"failed to listen" err="listen unix C:\\csi\\csi.sock: socket: address family not supported by protocol" proto="unix"`) {
		t.Errorf("status %d:\n%s", code, out)
	}
	reg := Table("registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.17.0")["csi-node-driver-registrar"]
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--csi-address=/csi/csi.sock"}, 1, `"kubelet-registration-path is a required parameter"`},
		{[]string{"--kubelet-registration-path=/x", "--mode=kubelet-registration-probe"}, 0, ""},
		{[]string{"--kubelet-registration-path=/x", "--health-port=9809", "--http-endpoint=:9809"}, 1, "Only one of `--health-port` and `--http-endpoint` can be set"},
		{[]string{"--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"--version"}, 0, "csi-node-driver-registrar v2.17.0"},
	} {
		out := &syncbuf.Buffer{}
		code, _ := sys.Run(context.Background(), &program.Proc{Args: append([]string{"csi-node-driver-registrar"}, tc.args...), Stdout: out, Stderr: out, Sys: sys}, reg)
		if code != tc.code || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: status %d:\n%s", tc.args, code, out)
		}
	}
}
