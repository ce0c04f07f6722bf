package podlogs

import (
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
)

func read(t *testing.T, disk *vfs.Volume, name string) string {
	t.Helper()
	f, err := disk.FS().OpenFile(name, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	return string(b)
}

func TestCRIFileAndSymlink(t *testing.T) {
	disk := vfs.NewVolume()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "apps", UID: "u1"}}
	s := Open(disk, pod, "iis", 0, "containerd://abc123")
	at := time.Date(2026, 11, 28, 1, 50, 0, 123456789, time.UTC)
	s.WriteLine(0, ctrlog.Line{At: at, Text: "hello"})
	s.WriteLine(1, ctrlog.Line{At: at, Text: "tail", Partial: true})
	want := "2026-11-28T01:50:00.123456789Z stdout F hello\n2026-11-28T01:50:00.123456789Z stderr P tail\n"
	if got := read(t, disk, "/var/log/pods/apps_web_u1/iis/0.log"); got != want {
		t.Fatalf("file:\n%q\nwant\n%q", got, want)
	}
	// The kubelet's symlink names pod, namespace, container and ID.
	if got := read(t, disk, "/var/log/containers/web_apps_iis-abc123.log"); got != want {
		t.Fatalf("through the symlink: %q", got)
	}
	RemovePod(disk, pod)
	if _, err := disk.FS().Lstat("/var/log/containers/web_apps_iis-abc123.log"); err == nil {
		t.Fatal("symlink kept after the pod was removed")
	}
	if _, err := disk.FS().Stat("/var/log/pods/apps_web_u1"); err == nil {
		t.Fatal("pod log directory kept after the pod was removed")
	}
}

func TestRotatesPastMaxSize(t *testing.T) {
	disk := vfs.NewVolume()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "chatty", Namespace: "default", UID: "u2"}}
	s := Open(disk, pod, "c", 0, "containerd://x")
	line := strings.Repeat("x", 4096)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3*MaxSize/4096; i++ {
		s.WriteLine(0, ctrlog.Line{At: at.Add(time.Duration(i) * time.Second), Text: line})
	}
	entries, err := disk.FS().ReadDir("/var/log/pods/default_chatty_u2/c")
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, e := range entries {
		info, _ := e.Info()
		total += info.Size()
	}
	if len(entries) != 2 || total > 2*MaxSize {
		t.Fatalf("%d files, %d bytes: want the log and one rotated file within %d bytes", len(entries), total, 2*MaxSize)
	}
}

// BenchmarkWriteLine is the cost a logged line adds for its file on the
// node's disk.
func BenchmarkWriteLine(b *testing.B) {
	disk := vfs.NewVolume()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: "default", UID: "u3"}}
	s := Open(disk, pod, "c", 0, "containerd://x")
	line := ctrlog.Line{At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Text: strings.Repeat("x", 80)}
	b.ReportAllocs()
	for b.Loop() {
		s.WriteLine(0, line)
	}
}
