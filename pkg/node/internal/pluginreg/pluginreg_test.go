package pluginreg

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
	emucsi "github.com/winkube/winkube/pkg/emu/csi"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/unixsock"
)

var restConfig *rest.Config

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(_ *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		restConfig = cfg
		return nil, nil
	}))
}

func needCluster(t *testing.T) kubernetes.Interface {
	t.Helper()
	if restConfig == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
	return kubernetes.NewForConfigOrDie(restConfig)
}

// run starts an emulated program in a container whose sockets are view.
func run(ctx context.Context, main program.Main, view *unixsock.View, args ...string) (*syncbuf.Buffer, chan int) {
	sys := &program.Sys{Windows: view.Windows, Clock: clock.RealClock{}, Sockets: view}
	out := &syncbuf.Buffer{}
	done := make(chan int, 1)
	go func() {
		code, _ := sys.Run(ctx, &program.Proc{Args: args, Stdout: out, Stderr: out, Sys: sys}, main)
		done <- code
	}()
	return out, done
}

func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		ok, s := cond()
		if ok {
			return
		}
		last = s
	}
	t.Fatalf("timed out waiting for %s; last: %s", what, last)
}

// A Windows node: the CSINode is made with the kubelet's annotation and
// the Node as owner; the secrets-store chart's registrar and driver
// (mounting the node's directories at C:\csi and C:\registration)
// register secrets-store.csi.k8s.io, which appears in the CSINode's
// drivers and the Node's nodeid annotation; when the registrar's
// container stops, its socket goes and so does the driver.
func TestWindowsNodeRegistersDriver(t *testing.T) {
	client := needCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const nodeName = "win-csi-1"
	node, err := client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns := unixsock.NewNamespace(true)
	m := Start(ctx, Config{Client: client, NodeName: nodeName, Sockets: ns})
	select {
	case <-m.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("CSINode not initialised")
	}
	cn, err := client.StorageV1().CSINodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cn.OwnerReferences) != 1 || cn.OwnerReferences[0].UID != node.UID || cn.Annotations["storage.alpha.kubernetes.io/migrated-plugins"] == "" {
		t.Errorf("CSINode = %+v", cn.ObjectMeta)
	}

	pluginDir := `C:\var\lib\kubelet\plugins\csi-secrets-store\`
	mounts := []unixsock.Mount{{Path: `C:\csi`, NS: ns, Dir: pluginDir}}
	drvCtx, stopDrv := context.WithCancel(ctx)
	defer stopDrv()
	drvOut, _ := run(drvCtx, emucsi.Table("registry.k8s.io/csi-secrets-store/driver:v1.6.0")["secrets-store-csi"],
		&unixsock.View{Windows: true, Mounts: mounts}, `C:\secrets-store-csi.exe`, `--endpoint=unix://C:\\csi\\csi.sock`, "--nodeid="+nodeName)
	regCtx, stopReg := context.WithCancel(ctx)
	defer stopReg()
	regOut, regDone := run(regCtx, emucsi.Table("registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.16.0")["csi-node-driver-registrar"],
		&unixsock.View{Windows: true, Mounts: append(mounts, unixsock.Mount{Path: `C:\registration`, NS: ns, Dir: `C:\var\lib\kubelet\plugins_registry\`})},
		`C:\csi-node-driver-registrar.exe`, "--v=5", `--csi-address=unix://C:\\csi\\csi.sock`, `--kubelet-registration-path=C:\var\lib\kubelet\plugins\csi-secrets-store\csi.sock`)

	eventually(t, "the driver in the CSINode", func() (bool, string) {
		cn, err := client.StorageV1().CSINodes().Get(ctx, nodeName, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		want := storagev1.CSINodeDriver{Name: "secrets-store.csi.k8s.io", NodeID: nodeName, TopologyKeys: []string{}}
		if len(cn.Spec.Drivers) != 1 {
			return false, "drivers: " + toJSON(cn.Spec.Drivers) + "\nregistrar:\n" + regOut.String() + "\ndriver:\n" + drvOut.String()
		}
		d := cn.Spec.Drivers[0]
		return d.Name == want.Name && d.NodeID == want.NodeID && d.Allocatable == nil, toJSON(d)
	})
	n, err := client.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Annotations["csi.volume.kubernetes.io/nodeid"]; got != `{"secrets-store.csi.k8s.io":"win-csi-1"}` {
		t.Errorf("nodeid annotation = %q", got)
	}
	if d := m.Drivers(); d["secrets-store.csi.k8s.io"] != `C:\var\lib\kubelet\plugins\csi-secrets-store\csi.sock` {
		t.Errorf("drivers = %v", d)
	}
	eventually(t, "the registrar told of its registration", func() (bool, string) {
		return strings.Contains(regOut.String(), `"Received NotifyRegistrationStatus call" status="plugin_registered:true"`), regOut.String()
	})

	// The registrar's container stops: its socket is removed.
	stopReg()
	<-regDone
	eventually(t, "the driver gone from the CSINode", func() (bool, string) {
		cn, err := client.StorageV1().CSINodes().Get(ctx, nodeName, metav1.GetOptions{})
		if err != nil {
			return apierrors.IsNotFound(err), err.Error()
		}
		n, _ := client.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		_, annotated := n.Annotations["csi.volume.kubernetes.io/nodeid"]
		return len(cn.Spec.Drivers) == 0 && !annotated, toJSON(cn.Spec.Drivers)
	})
	if len(m.Drivers()) != 0 {
		t.Errorf("drivers after deregistration: %v", m.Drivers())
	}
}

// A plugin whose endpoint does not answer fails registration: the kubelet
// tells the registrar, which exits 1, as upstream's restarts its
// container.
func TestFailedRegistrationEndsRegistrar(t *testing.T) {
	client := needCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const nodeName = "linux-csi-1"
	if _, err := client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ns := unixsock.NewNamespace(false)
	Start(ctx, Config{Client: client, NodeName: nodeName, Sockets: ns})
	vol := unixsock.NewNamespace(false) // the pod's emptyDir socket-dir
	view := &unixsock.View{Mounts: []unixsock.Mount{{Path: "/csi", NS: vol, Dir: "/"}, {Path: "/registration", NS: ns, Dir: "/var/lib/kubelet/plugins_registry"}}}
	_, _ = run(ctx, emucsi.Table("registry.k8s.io/sig-storage/smbplugin:v1.17.0")["smbplugin"], &unixsock.View{Mounts: view.Mounts[:1]},
		"/smbplugin", "--endpoint=unix:///csi/csi.sock", "--nodeid="+nodeName)
	// The kubelet-registration-path names a node path where no driver
	// listens (the driver's socket is in the pod's emptyDir).
	regOut, regDone := run(ctx, emucsi.Table("registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.17.0")["csi-node-driver-registrar"], view,
		"/csi-node-driver-registrar", "--csi-address=/csi/csi.sock", "--kubelet-registration-path=/var/lib/kubelet/plugins/smb.csi.k8s.io/csi.sock")
	select {
	case code := <-regDone:
		if code != 1 || !strings.Contains(regOut.String(), `"Registration process failed with error, restarting registration container" err="RegisterPlugin error -- plugin registration failed with err: rpc error: code = Unavailable`) {
			t.Errorf("registrar status %d:\n%s", code, regOut)
		}
	case <-time.After(3 * time.Minute):
		t.Fatalf("the registrar did not end:\n%s", regOut)
	}
	cn, err := client.StorageV1().CSINodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil || len(cn.Spec.Drivers) != 0 {
		t.Errorf("CSINode after a failed registration: %v %v", cn, err)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
