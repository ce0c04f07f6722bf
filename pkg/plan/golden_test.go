package plan

import (
	goflag "flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

var update = goflag.Bool("update", false, "rewrite testdata/golden")

// goldenConfigs are the testdata configs whose trees are kept as golden
// files: seed 004's overlay cluster and a 1.27 l2bridge cluster.
var goldenConfigs = []string{"seed-overlay", "l2bridge-v1.27"}

func planFor(t *testing.T, name string) *Plan {
	t.Helper()
	c, err := v1alpha1.Read(filepath.Join("testdata", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rule: PLAN-2, PLAN-3, PLAN-4, PLAN-5, PLAN-6, PLAN-7
func TestGoldenTrees(t *testing.T) {
	for _, name := range goldenConfigs {
		t.Run(name, func(t *testing.T) {
			p := planFor(t, name)
			if !p.Passed() {
				t.Fatalf("checks fail: %+v", p.Verdicts)
			}
			files, err := p.Files()
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "golden", name)
			if *update {
				os.RemoveAll(dir)
				if err := Write(dir, files); err != nil {
					t.Fatal(err)
				}
			}
			compareTree(t, dir, files)
		})
	}
}

func compareTree(t *testing.T, dir string, files []File) {
	t.Helper()
	want := map[string]bool{}
	for _, f := range files {
		want[f.Path] = true
		// Every generated file starts with a comment naming its rules.
		if !strings.Contains(strings.SplitN(f.Content, "\n", 3)[0]+strings.SplitN(f.Content, "\n", 3)[1], "Rules: ") {
			t.Errorf("%s does not start with its rules:\n%s", f.Path, f.Content[:min(len(f.Content), 200)])
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Errorf("%s: %v (run go test ./pkg/plan -update)", f.Path, err)
			continue
		}
		if string(got) != f.Content {
			t.Errorf("%s differs from the golden file (run go test ./pkg/plan -update and review the diff)", f.Path)
		}
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			if !want[filepath.ToSlash(rel)] {
				t.Errorf("golden file %s is no longer generated", rel)
			}
		}
		return nil
	})
}

// The seed's values reach the files a person applies.
// rule: NET-2, PLAN-2, PLAN-3, PLAN-7
func TestSeedValuesInFiles(t *testing.T) {
	files, err := planFor(t, "seed-overlay").Files()
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]string{}
	for _, f := range files {
		byPath[f.Path] = f.Content
	}
	wants := map[string][]string{
		"linux/kube-flannel.yaml":        {`"Network": "10.244.0.0/16"`, `"Type": "vxlan"`, `"VNI": 4096`, `"Port": 4789`, `"name": "vxlan0"`, "kubernetes.io/os: linux"},
		"linux/node-selector-patch.yaml": {"kubernetes.io/os: linux"},
		"linux/pin-linux-daemonsets.sh":  {"kubectl -n kube-system patch daemonset"},
		"linux/sysctl.sh":                {"sysctl net.bridge.bridge-nf-call-iptables=1"},
		"windows/win-node-1/start-seed.ps1": {".\\start.ps1 -ManagementIP 192.168.1.21", "-NetworkMode overlay", "-ClusterCIDR 10.244.0.0/16",
			"-ServiceCIDR 10.96.0.0/12", "-KubeDnsServiceIP 10.96.0.10", "-InterfaceName 'Ethernet'", "-LogDir C:\\k"},
		"windows/win-node-1/proxy.ps1": {`[Environment]::SetEnvironmentVariable("HTTP_PROXY", "http://proxy.example.com:80/", [EnvironmentVariableTarget]::Machine)`,
			`[Environment]::SetEnvironmentVariable("HTTPS_PROXY", "http://proxy.example.com:443/", [EnvironmentVariableTarget]::Machine)`},
		"windows/win-node-1/register-services.ps1":      {"sc.exe create kubelet binPath= $kubelet", "sc.exe create kube-proxy binPath= $proxy start= auto depend= kubelet"},
		"windows/win-node-1/register-services-nssm.ps1": {"nssm install kubelet", "nssm set kubelet AppParameters", "nssm set kube-proxy DependOnService kubelet", "AppEnvironmentExtra HTTP_PROXY="},
		"windows/win-node-1/kubeadm-join.ps1":           {"kubeadm.exe join 192.168.1.10:6443", "--node-name win-node-1"},
		"windows/win-node-2/start-seed.ps1":             {"-InterfaceName 'Ethernet 2'"},
		"runtimeclasses.yaml":                           {"name: windows-2019", "node.kubernetes.io/windows-build: 10.0.17763", "key: os"},
	}
	for path, ws := range wants {
		for _, w := range ws {
			if !strings.Contains(byPath[path], w) {
				t.Errorf("%s lacks %q", path, w)
			}
		}
	}
}
