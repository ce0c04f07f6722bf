package csimount

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	emucsi "github.com/winkube/winkube/pkg/emu/csi"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/unixsock"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/rootfs"
)

const (
	testDriver   = "tiny.csi.example.com"
	testEndpoint = `C:\var\lib\kubelet\plugins\tiny\csi.sock`
)

// tinyDriver is a CSI node plugin that stages and publishes by writing
// files in the node's disk, as a driver with a host mount would, and
// records the requests it gets.
type tinyDriver struct {
	csi.UnimplementedNodeServer
	disk *vfs.Volume
	caps []csi.NodeServiceCapability_RPC_Type
	// started, when set, receives each NodePublishVolume call, which
	// then waits for the call's context to end, or for release.
	started, release chan struct{}

	mu          sync.Mutex
	stages      []*csi.NodeStageVolumeRequest
	publishes   []*csi.NodePublishVolumeRequest
	unpublishes []*csi.NodeUnpublishVolumeRequest
	unstages    []*csi.NodeUnstageVolumeRequest
}

func (d *tinyDriver) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	rsp := &csi.NodeGetCapabilitiesResponse{}
	for _, c := range d.caps {
		rsp.Capabilities = append(rsp.Capabilities, &csi.NodeServiceCapability{Type: &csi.NodeServiceCapability_Rpc{Rpc: &csi.NodeServiceCapability_RPC{Type: c}}})
	}
	return rsp, nil
}

func (d *tinyDriver) NodeStageVolume(_ context.Context, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error) {
	d.mu.Lock()
	d.stages = append(d.stages, req)
	d.mu.Unlock()
	return &csi.NodeStageVolumeResponse{}, d.disk.WriteFile(rootfs.HostRel(req.StagingTargetPath)+"/share.txt", []byte(req.VolumeContext["source"]), 0o644)
}

func (d *tinyDriver) NodePublishVolume(ctx context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	d.mu.Lock()
	d.publishes = append(d.publishes, req)
	d.mu.Unlock()
	if d.started != nil {
		d.started <- struct{}{}
		select {
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-d.release:
		}
	}
	target := rootfs.HostRel(req.TargetPath)
	if err := d.disk.MkdirAll(target, 0o755); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csi.NodePublishVolumeResponse{}, d.disk.WriteFile(target+"/greeting", []byte("published by "+req.VolumeId), 0o644)
}

func (d *tinyDriver) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	d.mu.Lock()
	d.unpublishes = append(d.unpublishes, req)
	d.mu.Unlock()
	return &csi.NodeUnpublishVolumeResponse{}, d.disk.Remove(rootfs.HostRel(req.TargetPath) + "/greeting")
}

func (d *tinyDriver) NodeUnstageVolume(_ context.Context, req *csi.NodeUnstageVolumeRequest) (*csi.NodeUnstageVolumeResponse, error) {
	d.mu.Lock()
	d.unstages = append(d.unstages, req)
	d.mu.Unlock()
	return &csi.NodeUnstageVolumeResponse{}, d.disk.Remove(rootfs.HostRel(req.StagingTargetPath) + "/share.txt")
}

// serve serves d on the Windows node's socket namespace until the test
// ends, and returns a Mounter of that node whose only registered driver
// is d.
func serve(t *testing.T, d *tinyDriver, objects ...*corev1.Secret) *Mounter {
	t.Helper()
	ns := unixsock.NewNamespace(true)
	l, err := ns.Listen(testEndpoint)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	csi.RegisterNodeServer(srv, d)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	client := fake.NewSimpleClientset()
	for _, s := range objects {
		if _, err := client.CoreV1().Secrets(s.Namespace).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return New(Config{
		Client: client, Windows: true, Dial: ns.Dial, Disk: func() *vfs.Volume { return d.disk },
		Endpoint: func(driver string) (string, bool) { return testEndpoint, driver == testDriver },
	})
}

func testPod(uid string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-" + uid, UID: types.UID("uid-web-" + uid)},
		Spec:       corev1.PodSpec{ServiceAccountName: "web", SecurityContext: &corev1.PodSecurityContext{FSGroup: ptr.To[int64](2000)}},
	}
}

func sharePV() *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-share"},
		Spec: corev1.PersistentVolumeSpec{
			AccessModes:  []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			MountOptions: []string{"dir_mode=0777"},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: testDriver, VolumeHandle: "server/share##", FSType: "ntfs",
				VolumeAttributes:   map[string]string{"source": `\\server\share`},
				NodeStageSecretRef: &corev1.SecretReference{Namespace: "apps", Name: "smbcreds"},
			}},
		},
	}
}

func podInfoDriver() *storagev1.CSIDriver {
	return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: testDriver}, Spec: storagev1.CSIDriverSpec{PodInfoOnMount: ptr.To(true)}}
}

// A persistent volume of a driver that stages: NodeStageVolume once at
// the staging path (the plugin's directory, the driver, the SHA-256 of
// the handle) with the stage secret, then NodePublishVolume at each
// pod's target path with the pod's information; what the driver writes
// at the target is the volume (Published). The volume is unstaged when
// the last pod using it goes.
// rule: STO-1
func TestPersistentVolumeStagedThenPublished(t *testing.T) {
	d := &tinyDriver{disk: vfs.NewVolume(), caps: []csi.NodeServiceCapability_RPC_Type{csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME}}
	m := serve(t, d, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "smbcreds"}, Data: map[string][]byte{"username": []byte("u")}})
	ctx := context.Background()
	pv := sharePV()
	pods := []*corev1.Pod{testPod("1"), testPod("2")}
	for _, pod := range pods {
		v := Volume{Name: "data", Spec: pv.Name, PV: pv, Driver: podInfoDriver()}
		if err := m.MountDevice(ctx, pod, v); err != nil {
			t.Fatalf("MountDevice: %v", err)
		}
		if err := m.SetUp(ctx, pod, v); err != nil {
			t.Fatalf("SetUp: %v", err)
		}
	}
	staging := fmt.Sprintf(`c:\var\lib\kubelet\plugins\kubernetes.io\csi\%s\%x\globalmount`, testDriver, sha256.Sum256([]byte("server/share##")))
	if len(d.stages) != 1 {
		t.Fatalf("%d NodeStageVolume calls, want 1", len(d.stages))
	}
	st := d.stages[0]
	if st.StagingTargetPath != staging || st.VolumeId != "server/share##" || st.Secrets["username"] != "u" ||
		st.VolumeCapability.GetMount().GetFsType() != "ntfs" || st.VolumeCapability.GetMount().GetMountFlags()[0] != "dir_mode=0777" ||
		st.VolumeCapability.GetAccessMode().GetMode() != csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER ||
		st.VolumeCapability.GetMount().GetVolumeMountGroup() != "" {
		t.Errorf("NodeStageVolume = %v", st)
	}
	if len(d.publishes) != 2 {
		t.Fatalf("%d NodePublishVolume calls, want 2", len(d.publishes))
	}
	pub := d.publishes[0]
	target := `c:\var\lib\kubelet\pods\` + string(pods[0].UID) + `\volumes\kubernetes.io~csi\pv-share\mount`
	wantCtx := map[string]string{
		"source": `\\server\share`, "csi.storage.k8s.io/pod.name": "web-1", "csi.storage.k8s.io/pod.namespace": "apps",
		"csi.storage.k8s.io/pod.uid": string(pods[0].UID), "csi.storage.k8s.io/serviceAccount.name": "web", "csi.storage.k8s.io/ephemeral": "false",
	}
	if pub.TargetPath != target || pub.StagingTargetPath != staging || fmt.Sprint(pub.VolumeContext) != fmt.Sprint(wantCtx) ||
		len(pub.Secrets) != 0 || pub.VolumeCapability.GetMount().GetVolumeMountGroup() != "" {
		t.Errorf("NodePublishVolume = %v", pub)
	}
	got, ok := m.Published(pods[0].UID, "data")
	if !ok || got != target {
		t.Fatalf("Published = %q %v, want %q", got, ok, target)
	}
	if b := readDisk(t, d.disk, target+`\greeting`); b != "published by server/share##" {
		t.Errorf("target content %q", b)
	}

	m.TearDown(ctx, pods[0].UID)
	if len(d.unpublishes) != 1 || d.unpublishes[0].TargetPath != target || len(d.unstages) != 0 {
		t.Errorf("after the first pod: %d unpublished, %d unstaged; want 1, 0", len(d.unpublishes), len(d.unstages))
	}
	if _, ok := m.Published(pods[0].UID, "data"); ok {
		t.Error("a torn-down volume is still published")
	}
	if _, err := d.disk.FS().Stat(d.disk.FS().Abs("/", rootfs.HostRel(target))); err == nil {
		t.Error("the empty target directory stayed after NodeUnpublishVolume")
	}
	m.TearDown(ctx, pods[1].UID)
	if len(d.unpublishes) != 2 || len(d.unstages) != 1 || d.unstages[0].StagingTargetPath != staging {
		t.Errorf("after the last pod: %d unpublished, %d unstaged; want 2, 1", len(d.unpublishes), len(d.unstages))
	}
}

func readDisk(t *testing.T, disk *vfs.Volume, p string) string {
	t.Helper()
	f, err := disk.FS().OpenFile(disk.FS().Abs("/", rootfs.HostRel(p)), os.O_RDONLY, 0)
	if err != nil {
		t.Fatalf("open %s: %v", p, err)
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	return string(b)
}

// An inline volume is never staged: NodePublishVolume alone, with the
// handle csi-<sha256(pod UID, volume name)>, the volume's attributes,
// its readOnly, the fsGroup of a driver with VOLUME_MOUNT_GROUP, and
// csi.storage.k8s.io/ephemeral "true".
// rule: STO-1
func TestInlineVolumePublishedOnly(t *testing.T) {
	d := &tinyDriver{disk: vfs.NewVolume(), caps: []csi.NodeServiceCapability_RPC_Type{
		csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME, csi.NodeServiceCapability_RPC_VOLUME_MOUNT_GROUP}}
	m := serve(t, d)
	pod := testPod("3")
	v := Volume{Name: "secrets", Spec: "secrets", ReadOnly: true, Driver: podInfoDriver(), Inline: &corev1.CSIVolumeSource{
		Driver: testDriver, ReadOnly: ptr.To(true), VolumeAttributes: map[string]string{"secretProviderClass": "app"},
	}}
	ctx := context.Background()
	if err := m.MountDevice(ctx, pod, v); err != nil {
		t.Fatal(err)
	}
	if err := m.SetUp(ctx, pod, v); err != nil {
		t.Fatal(err)
	}
	if err := m.SetUp(ctx, pod, v); err != nil { // a published volume is not published again
		t.Fatal(err)
	}
	if len(d.stages) != 0 || len(d.publishes) != 1 {
		t.Fatalf("%d stages, %d publishes; want 0, 1", len(d.stages), len(d.publishes))
	}
	pub := d.publishes[0]
	handle := fmt.Sprintf("csi-%x", sha256.Sum256([]byte(string(pod.UID)+"secrets")))
	if pub.VolumeId != handle || !pub.Readonly || pub.StagingTargetPath != "" || pub.VolumeContext["secretProviderClass"] != "app" ||
		pub.VolumeContext["csi.storage.k8s.io/ephemeral"] != "true" || pub.VolumeCapability.GetMount().GetVolumeMountGroup() != "2000" ||
		pub.VolumeCapability.GetAccessMode().GetMode() != csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER {
		t.Errorf("NodePublishVolume = %v", pub)
	}
}

// The Secrets Store CSI Driver's node plugin answers the publish of a
// SecretProviderClass volume; its error is the mount's, word for word.
// rule: STO-2
func TestSecretsStoreDriverAnswers(t *testing.T) {
	ns := unixsock.NewNamespace(true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	view := &unixsock.View{Windows: true, Mounts: []unixsock.Mount{{Path: `C:\csi`, NS: ns, Dir: `C:\var\lib\kubelet\plugins\csi-secrets-store\`}}}
	sys := &program.Sys{Windows: true, Clock: clock.RealClock{}, Sockets: view}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = sys.Run(ctx, &program.Proc{Args: []string{`C:\secrets-store-csi.exe`, `--endpoint=unix://C:\\csi\\csi.sock`, "--nodeid=win-1"}, Stdout: io.Discard, Stderr: io.Discard, Sys: sys},
			emucsi.Table("registry.k8s.io/csi-secrets-store/driver:v1.6.0")["secrets-store-csi"])
	}()
	defer func() { cancel(); <-done }()
	endpoint := `C:\var\lib\kubelet\plugins\csi-secrets-store\csi.sock`
	for end := time.Now().Add(time.Minute); !ns.Exists(endpoint); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the driver did not listen")
		}
	}
	m := New(Config{Windows: true, Dial: ns.Dial, Disk: func() *vfs.Volume { return vfs.NewVolume() },
		Endpoint: func(string) (string, bool) { return endpoint, true }})
	pod := testPod("4")
	driver := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "secrets-store.csi.k8s.io"}, Spec: storagev1.CSIDriverSpec{PodInfoOnMount: ptr.To(true)}}
	err := m.SetUp(ctx, pod, Volume{Name: "secrets", Spec: "secrets", Driver: driver, Inline: &corev1.CSIVolumeSource{
		Driver: "secrets-store.csi.k8s.io", VolumeAttributes: map[string]string{"secretProviderClass": "azure-kv"},
	}})
	want := `rpc error: code = Unknown desc = failed to get secretproviderclass apps/azure-kv, error: secretproviderclasses.secrets-store.csi.x-k8s.io "azure-kv" not found`
	if err == nil || err.Error() != want {
		t.Errorf("SetUp = %v\nwant %s", err, want)
	}
	if _, ok := m.Published(pod.UID, "secrets"); ok {
		t.Error("a failed publish counts as published")
	}
}

// A driver that is not registered: the kubelet's words, from the step
// that needs the client.
// rule: STO-2
func TestUnregisteredDriver(t *testing.T) {
	m := New(Config{Windows: true, Endpoint: func(string) (string, bool) { return "", false }})
	pv := sharePV()
	err := m.MountDevice(context.Background(), testPod("5"), Volume{Name: "data", Spec: pv.Name, PV: pv})
	want := "kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name " + testDriver + " not found in the list of registered CSI drivers"
	if err == nil || err.Error() != want {
		t.Errorf("MountDevice = %v, want %s", err, want)
	}
	err = m.SetUp(context.Background(), testPod("5"), Volume{Name: "v", Spec: "v", Inline: &corev1.CSIVolumeSource{Driver: testDriver}})
	want = "kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: driver name " + testDriver + " not found in the list of registered CSI drivers"
	if err == nil || err.Error() != want {
		t.Errorf("SetUp = %v, want %s", err, want)
	}
}

// A publish whose call ends before the driver answers (the kubelet's
// timeout, here a cancelled context) leaves the volume uncertain: not
// published, but unpublished when the pod goes.
func TestUnansweredPublishIsUnpublished(t *testing.T) {
	d := &tinyDriver{disk: vfs.NewVolume(), started: make(chan struct{})}
	m := serve(t, d)
	pod := testPod("6")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-d.started; cancel() }()
	err := m.SetUp(ctx, pod, Volume{Name: "v", Spec: "v", Inline: &corev1.CSIVolumeSource{Driver: testDriver}})
	if status.Code(err) != codes.Canceled {
		t.Fatalf("SetUp = %v, want Canceled", err)
	}
	if _, ok := m.Published(pod.UID, "v"); ok {
		t.Error("an uncertain publish counts as published")
	}
	m.TearDown(context.Background(), pod.UID)
	if len(d.unpublishes) != 1 {
		t.Errorf("%d NodeUnpublishVolume calls, want 1", len(d.unpublishes))
	}
}

// pollMount asks for the volume's mount, as due, until it is no longer
// pending, as the volume wait polls a pending mount (the deadline is a
// hang guard).
func pollMount(t *testing.T, m *Mounter, pod *corev1.Pod, v Volume) Result {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if r := m.Mount(context.Background(), pod, v, true); !r.Pending {
			return r
		}
	}
	t.Fatal("the mount stayed pending")
	return Result{}
}

// Mount runs off the caller: pending while the driver works, then its
// result once; the same result until a new attempt is asked for, which
// calls the driver again. A lifecycle mode the CSIDriver does not allow
// fails SetUp after MountDevice, without a publish.
// rule: STO-2
func TestMountOperation(t *testing.T) {
	d := &tinyDriver{disk: vfs.NewVolume(), caps: []csi.NodeServiceCapability_RPC_Type{csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME}}
	m := serve(t, d, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "smbcreds"}})
	pod := testPod("7")
	pv := sharePV()
	v := Volume{Name: "data", Spec: pv.Name, PV: pv, ModeError: `volume mode "Persistent" not supported by driver x (only supports ["Ephemeral"])`}
	r := pollMount(t, m, pod, v)
	want := `kubernetes.io/csi: mounter.SetupAt failed to check volume lifecycle mode: volume mode "Persistent" not supported by driver x (only supports ["Ephemeral"])`
	if r.Step != "SetUp" || r.Err == nil || r.Err.Error() != want {
		t.Fatalf("Mount = %+v, want SetUp: %s", r, want)
	}
	if len(d.stages) != 1 || len(d.publishes) != 0 {
		t.Errorf("%d stages, %d publishes; want 1, 0", len(d.stages), len(d.publishes))
	}
	if again := m.Mount(context.Background(), pod, v, false); again.Pending || again.Err != r.Err {
		t.Errorf("a look before the back-off passed = %+v, want the last result", again)
	}
	v.ModeError = ""
	if r := pollMount(t, m, pod, v); r.Err != nil {
		t.Fatalf("Mount = %+v", r)
	}
	if len(d.stages) != 1 || len(d.publishes) != 1 {
		t.Errorf("%d stages, %d publishes; want 1, 1", len(d.stages), len(d.publishes))
	}
	if _, ok := m.Published(pod.UID, "data"); !ok {
		t.Error("not published")
	}
}

// A pod deleted while its volume's publish runs has the volume torn
// down once the publish ends.
func TestTearDownDuringMount(t *testing.T) {
	d := &tinyDriver{disk: vfs.NewVolume(), started: make(chan struct{}), release: make(chan struct{})}
	m := serve(t, d)
	pod := testPod("8")
	if r := m.Mount(context.Background(), pod, Volume{Name: "v", Spec: "v", Inline: &corev1.CSIVolumeSource{Driver: testDriver}}, true); !r.Pending {
		t.Fatalf("Mount = %+v, want pending", r)
	}
	<-d.started
	m.TearDown(context.Background(), pod.UID)
	close(d.release) // the publish ends after the pod went
	for end := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		d.mu.Lock()
		n := len(d.unpublishes)
		d.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the abandoned volume was never unpublished")
		}
	}
}

// Unmount tears a deleted pod's volumes down off the caller and says
// when they are gone; a pod with no CSI volume is done at once.
func TestUnmountReportsWhenGone(t *testing.T) {
	d := &tinyDriver{disk: vfs.NewVolume()}
	m := serve(t, d)
	ctx := context.Background()
	if !m.Unmount(ctx, "no-csi-volumes") {
		t.Error("a pod without CSI volumes waits for its unmount")
	}
	pod := testPod("9")
	if r := pollMount(t, m, pod, Volume{Name: "v", Spec: "v", Inline: &corev1.CSIVolumeSource{Driver: testDriver}}); r.Err != nil {
		t.Fatal(r.Err)
	}
	if m.Unmount(ctx, pod.UID) {
		t.Fatal("a published volume counts as gone before NodeUnpublishVolume")
	}
	for end := time.Now().Add(time.Minute); !m.Unmount(ctx, pod.UID); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the volume never went")
		}
	}
	if len(d.unpublishes) != 1 {
		t.Errorf("%d NodeUnpublishVolume calls, want 1", len(d.unpublishes))
	}
}
