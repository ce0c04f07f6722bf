package podfs

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
)

// configMaps is the agent's view of the API as far as these tests use
// it: ConfigMaps by namespace and name.
type configMaps map[string]*corev1.ConfigMap

func (m configMaps) ConfigMap(_ context.Context, ns, name string) (*corev1.ConfigMap, error) {
	if cm, ok := m[ns+"/"+name]; ok {
		return cm, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
}

func (m configMaps) Secret(_ context.Context, _, name string) (*corev1.Secret, error) {
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
}

func (m configMaps) Services(context.Context, string) ([]*corev1.Service, error) { return nil, nil }

func (m configMaps) ServiceAccountToken(context.Context, string, string, *authenticationv1.TokenRequest) (string, error) {
	return "", apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccounts"}, "default")
}

// testPod is a pod of two containers sharing a configMap volume and an
// emptyDir.
func testPod() *corev1.Pod {
	mounts := []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/cfg"}, {Name: "scratch", MountPath: "/scratch"}}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "uid-1"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{
				{Name: "a", Image: "busybox", VolumeMounts: mounts},
				{Name: "b", Image: "busybox", VolumeMounts: mounts},
			},
			Volumes: []corev1.Volume{
				{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}}},
				{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
		},
	}
}

type fixture struct {
	pod   *corev1.Pod
	objs  configMaps
	clock *clocktesting.FakeClock
	fs    *Pod
	rec   *record.FakeRecorder
}

func newFixture(t *testing.T, layerDir string) *fixture {
	t.Helper()
	f := &fixture{
		pod:   testPod(),
		objs:  configMaps{"ns/settings": {Data: map[string]string{"mode": "one"}}},
		clock: clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		rec:   record.NewFakeRecorder(10),
	}
	disk := vfs.NewVolume()
	f.fs = New(Config{
		Clock: f.clock, Ctx: context.Background(), Recorder: f.rec, Objects: f.objs,
		KubeletNode: func() kubeletenv.Node { return kubeletenv.Node{Name: "n1"} },
		Disk:        func() *vfs.Volume { return disk },
		LayerDir:    layerDir, SyncPeriod: time.Minute,
		Pod: func() *corev1.Pod { return f.pod }, PodIPs: func() []string { return []string{"10.244.0.5"} },
	})
	return f
}

// containerFS is the filesystem of container i of the pod.
func (f *fixture) containerFS(t *testing.T, i int, runningID string) program.FS {
	t.Helper()
	c := &f.pod.Spec.Containers[i]
	mounts, err := kubeletenv.Mounts(f.pod, c, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	return f.fs.LazyFS(Plan{
		Container: c, RunningID: runningID, Mounts: mounts,
		Ref: func(pod *corev1.Pod) *corev1.ObjectReference {
			return &corev1.ObjectReference{Kind: "Pod", Name: pod.Name}
		},
	})
}

func readFile(t *testing.T, fs program.FS, name string) string {
	t.Helper()
	fh, err := fs.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer fh.Close()
	b, err := io.ReadAll(fh)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return string(b)
}

func writeFile(t *testing.T, fs program.FS, name, data string) {
	t.Helper()
	fh, err := fs.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	if _, err := io.WriteString(fh, data); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
}

// A configMap volume shows the object's data, and a running pod's copy
// follows the object on the kubelet's sync period, as the volume
// manager's remount writes it again through the atomic writer.
func TestConfigMapVolumeFollowsItsObject(t *testing.T) {
	f := newFixture(t, "")
	fs := f.containerFS(t, 0, "")
	if got := readFile(t, fs, "/etc/cfg/mode"); got != "one" {
		t.Fatalf("mode = %q, want one", got)
	}
	ctx := context.Background()
	f.fs.Sync(ctx, f.pod) // the first sync only schedules the next
	if f.fs.SyncWake().IsZero() {
		t.Fatal("no resync scheduled for a written volume")
	}
	f.objs["ns/settings"] = &corev1.ConfigMap{Data: map[string]string{"mode": "two"}}
	f.fs.Sync(ctx, f.pod)
	if got := readFile(t, fs, "/etc/cfg/mode"); got != "one" {
		t.Errorf("mode = %q before the sync period passed, want one", got)
	}
	f.clock.Step(2 * time.Minute) // past the period and its jitter
	f.fs.Sync(ctx, f.pod)
	if got := readFile(t, fs, "/etc/cfg/mode"); got != "two" {
		t.Errorf("mode = %q after the sync period, want two", got)
	}
}

// An emptyDir is the pod's, not a container's: what one container writes
// the other reads, and both reach the same Unix sockets in it.
func TestEmptyDirSharedByTheContainers(t *testing.T) {
	f := newFixture(t, "")
	a, b := f.containerFS(t, 0, ""), f.containerFS(t, 1, "")
	writeFile(t, a, "/scratch/handoff", "from a")
	if got := readFile(t, b, "/scratch/handoff"); got != "from a" {
		t.Errorf("container b reads %q, want the file container a wrote", got)
	}
	mounts, _ := kubeletenv.Mounts(f.pod, &f.pod.Spec.Containers[0], nil, false)
	va := f.fs.SocketView(f.pod, mounts, false, false)
	vb := f.fs.SocketView(f.pod, mounts, false, false)
	var nsA, nsB any
	for i, m := range va.Mounts {
		if m.Path == "/scratch" {
			nsA, nsB = m.NS, vb.Mounts[i].NS
		}
	}
	if nsA == nil || nsA != nsB {
		t.Errorf("the emptyDir's socket namespace is not shared: %v %v", nsA, nsB)
	}
	if va.Own == vb.Own {
		t.Error("two container runs share their own socket namespace")
	}
}

// A container's writable layer is kept across a stop of the node agent:
// saved by container ID, put back under the container adopted Running,
// and its file removed once loaded; PruneLayers drops the layers of
// containers that are gone.
func TestLayerKeptAcrossAgentStop(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, dir)
	fs := f.containerFS(t, 0, "")
	writeFile(t, fs, "/state", "written before the stop")
	lf := fs.(*vfs.Lazy)
	if err := SaveLayer(dir, lf.Current().(*vfs.FS), LayerID("containerd://abc123")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gone.tar"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	PruneLayers(dir, map[string]bool{"abc123": true})
	if _, err := os.Stat(filepath.Join(dir, "gone.tar")); !os.IsNotExist(err) {
		t.Errorf("the layer of a container that is gone was kept: %v", err)
	}

	after := newFixture(t, dir) // the agent that adopts the pod
	fresh := after.containerFS(t, 0, "")
	if _, err := fresh.Stat("/state"); err == nil {
		t.Error("a fresh start found the kept layer")
	}
	adopted := after.containerFS(t, 0, "containerd://abc123")
	if got := readFile(t, adopted, "/state"); got != "written before the stop" {
		t.Errorf("adopted container reads %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "abc123.tar")); !os.IsNotExist(err) {
		t.Errorf("the loaded layer's file stays: %v", err)
	}
}

// LayerID keeps a container ID as a file name, without the runtime's
// scheme, and refuses one that would leave the layer dir.
func TestLayerID(t *testing.T) {
	for in, want := range map[string]string{"containerd://abc": "abc", "abc": "abc", "containerd://../x": "", "..": "", "": ""} {
		if got := LayerID(in); got != want {
			t.Errorf("LayerID(%q) = %q, want %q", in, got, want)
		}
	}
}

// The Linux kubelet mounts a tmpfs for emptyDir medium Memory, secret,
// downwardAPI and projected volumes; the Windows kubelet has no tmpfs.
// rule: LIM-4
func TestRAMBackedOnLinuxOnly(t *testing.T) {
	for _, kind := range []string{kubeletenv.KindEmptyDirMemory, kubeletenv.KindSecret, kubeletenv.KindDownwardAPI, kubeletenv.KindProjected} {
		if !(&Pod{cfg: Config{Windows: false}}).ramBacked(kind) {
			t.Errorf("Linux: %s not in memory", kind)
		}
		if (&Pod{cfg: Config{Windows: true}}).ramBacked(kind) {
			t.Errorf("Windows: %s in memory", kind)
		}
	}
	if (&Pod{}).ramBacked(kubeletenv.KindConfigMap) {
		t.Error("Linux: a configMap volume in memory")
	}
}

// The token manager asks again for a token within 20 % of its lifetime of
// expiring, or 24 hours after it was issued.
func TestTokenRefreshAt(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tr := func(ttl time.Duration) *authenticationv1.TokenRequest {
		return &authenticationv1.TokenRequest{
			Spec:   authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(ttl / time.Second))},
			Status: authenticationv1.TokenRequestStatus{ExpirationTimestamp: metav1.NewTime(now.Add(ttl))},
		}
	}
	if got, want := tokenRefreshAt(now, tr(time.Hour)), now.Add(48*time.Minute); !got.Equal(want) {
		t.Errorf("1h token refreshes at %v, want %v", got, want)
	}
	if got, want := tokenRefreshAt(now, tr(7*24*time.Hour)), now.Add(24*time.Hour); !got.Equal(want) {
		t.Errorf("7d token refreshes at %v, want %v", got, want)
	}
}

// A CSI volume a driver published is the directory the driver wrote at
// the volume's target path on the node's disk: the container sees its
// files at the mount path.
// rule: STO-1
func TestPublishedCSIVolumeIsTheTargetDirectory(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "uid-1"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "a", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "secrets", MountPath: "/mnt/secrets"}}}},
			Volumes: []corev1.Volume{{Name: "secrets", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{
				Driver: "secrets-store.csi.k8s.io"}}}},
		},
	}
	const target = `/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~csi/secrets/mount`
	disk := vfs.NewVolume()
	if err := disk.MkdirAll(target[1:], 0o755); err != nil {
		t.Fatal(err)
	}
	if err := disk.WriteFile(target[1:]+"/password", []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := New(Config{
		Clock: clocktesting.NewFakeClock(time.Now()), Ctx: context.Background(), Recorder: record.NewFakeRecorder(10), Objects: configMaps{},
		KubeletNode:  func() kubeletenv.Node { return kubeletenv.Node{Name: "n1"} },
		Disk:         func() *vfs.Volume { return disk },
		CSIPublished: func(name string) (string, bool) { return target, name == "secrets" },
		Pod:          func() *corev1.Pod { return pod }, PodIPs: func() []string { return nil },
	})
	c := &pod.Spec.Containers[0]
	mounts, err := kubeletenv.Mounts(pod, c, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	fs := p.LazyFS(Plan{Container: c, Mounts: mounts, Ref: func(pod *corev1.Pod) *corev1.ObjectReference {
		return &corev1.ObjectReference{Kind: "Pod", Name: pod.Name}
	}})
	if got := readFile(t, fs, "/mnt/secrets/password"); got != "s3cret" {
		t.Errorf("/mnt/secrets/password = %q, want what the driver wrote", got)
	}
}
