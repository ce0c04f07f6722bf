package report

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
)

func node(name, pool, os, build, runtime string) corev1.Node {
	labels := map[string]string{"kubernetes.io/os": os, "kubernetes.io/arch": "amd64"}
	if pool != "" {
		labels[labelPool] = pool
	}
	if build != "" {
		labels["node.kubernetes.io/windows-build"] = build
	}
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{ContainerRuntimeVersion: runtime + "://1.7.13"}}}
}

// rule: IMG-2, IMG-4 — each node group runs the entry its runtime pulls
// only when that build starts on the group's build.
func TestPoolsThatRunTheImage(t *testing.T) {
	srv := rt.Start(t)
	srv.PushFixtures(t)
	groups := Groups([]corev1.Node{
		node("linux-1", "linux", "linux", "", "containerd"),
		node("win19-1", "win2019", "windows", "10.0.17763", "containerd"),
		node("win19-2", "win2019", "windows", "10.0.17763", "containerd"),
		node("win22-1", "win2022", "windows", "10.0.20348", "containerd"),
		node("win25-1", "win2025", "windows", "10.0.26100", "containerd"),
		node("dock22-1", "", "windows", "10.0.20348", "docker"),
	})
	if len(groups) != 5 || groups[1].Name() != "win2019" || len(groups[1].Nodes) != 2 {
		t.Fatalf("groups %+v, want 5 with win2019 holding two nodes", groups)
	}
	r := newRegistryResolver(t)
	fits := func(ref string) map[string]PoolFit {
		reps := Describe(t.Context(), r, []string{ref}, nil, groups)
		out := map[string]PoolFit{}
		for _, f := range reps[0].Pools {
			out[f.Pool] = f
		}
		return out
	}
	multi := fits(srv.Ref(rt.MultiOS))
	if !multi["linux"].Runs || !multi["win2019"].Runs || !multi["win2022"].Runs || !multi["win2025"].Runs {
		t.Errorf("multi-OS image: %+v, want every pool to run it", multi)
	}
	if multi["win2019"].Entry != "windows/amd64:10.0.17763.5329" || multi["win2025"].Entry != "windows/amd64:10.0.20348.2227" {
		t.Errorf("multi-OS entries: 2019 pulls %s, 2025 pulls %s", multi["win2019"].Entry, multi["win2025"].Entry)
	}
	img2022 := fits(srv.Ref(rt.Servercore2022))
	if img2022["win2019"].Runs || !strings.Contains(img2022["win2019"].Reason, "no match for platform in manifest") {
		t.Errorf("2022 index on 2019 nodes: %+v, want the pull to fail (IMG-4)", img2022["win2019"])
	}
	if !img2022["win2022"].Runs || !img2022["win2025"].Runs || img2022["linux"].Runs {
		t.Errorf("2022 index: %+v", img2022)
	}
	single := fits(srv.Ref(rt.Single2022))
	if f := single["win2019"]; f.Runs || f.Entry == "" || !strings.Contains(f.Reason, "does not match the host operating system") {
		t.Errorf("single 2022 image on 2019 nodes: %+v, want it pulled and then failing to start (IMG-4)", f)
	}
	img2025 := fits(srv.Ref(rt.Servercore2025))
	// Docker pulls only entries not newer than the host (IMG-4).
	if f := img2025["windows/amd64 10.0.20348"]; f.Runs || f.Runtime != "docker" {
		t.Errorf("2025 index on the docker 2022 node: %+v, want no", f)
	}
}

func newRegistryResolver(t *testing.T) imageinfo.Resolver {
	t.Helper()
	r, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
