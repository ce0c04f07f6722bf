package node

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/facts"
	"github.com/winkube/winkube/pkg/windows"
)

// An image a user imported (its index and config, no layers) runs its
// config's entrypoint and cmd with the config's environment and user, as
// the runtime takes them from the image on a real node: no stand-in,
// since the config says what to run and the base's programs can run it.
// rule: IMG-3
func TestImportedImageRunsItsConfig(t *testing.T) {
	needCluster(t)
	rel, ok := windows.ReleaseByName("2022")
	if !ok {
		t.Fatal("no 2022 release")
	}
	const image = "registry.example.com/team/greeter:1.0"
	store, err := facts.Open(filepath.Join(t.TempDir(), "imported.json"))
	if err != nil {
		t.Fatal(err)
	}
	err = store.Put(facts.Fact{
		Ref: facts.Key(image), Index: true,
		Platforms:  []facts.Platform{{OS: "windows", Architecture: "amd64", OSVersion: rel.Version().String()}},
		Entrypoint: []string{"cmd.exe", "/c"},
		Cmd:        []string{"echo %GREETING% & whoami & ping -t localhost > NUL"},
		Env:        []string{"GREETING=hello from the image config"},
		User:       "ContainerUser",
	})
	if err != nil {
		t.Fatal(err)
	}
	pool := v1alpha1.NodePool{Name: "imported", OS: v1alpha1.OSWindows, Release: "2022", Count: ptr.To(1), Taints: []corev1.Taint{}}
	a := startPoolWith(t, pool, "10.127.144.0/24", Options{Images: facts.Resolver{Facts: store, Next: imageinfo.CatalogResolver{}}})
	defer func() {
		a.Close()
		_ = client.CoreV1().Nodes().Delete(context.Background(), "imported-1", metav1.DeleteOptions{})
	}()
	ns := newNamespace(t)
	createPod(t, ns, simplePod("greeter", "imported-1", image))
	waitPod(t, ns, "greeter", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	// cmd.exe's echo keeps the space before "&".
	want := "hello from the image config \r\nuser manager\\containeruser\r\n"
	var got string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		_, got = get(t, kubeletClientOf(t, a), "https://imported-1:10250/containerLogs/"+ns+"/greeter/main")
		if strings.Contains(got, "containeruser") {
			break
		}
	}
	if got != want {
		t.Errorf("log: %q, want %q", got, want)
	}
}
