package plan

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/addons"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/kubeversion"
)

// seedBase is seed 004's cluster: the default address spaces, VXLAN VNI
// 4096 on port 4789, Windows Server 2019 nodes.
const seedBase = `apiVersion: winkube.io/v1alpha1
kind: Cluster
kubernetesVersion: v1.36.3
network:
  mode: overlay
  clusterCIDR: 10.244.0.0/16
  serviceCIDR: 10.96.0.0/12
  dnsServiceIP: 10.96.0.10
`

func mustPlan(t *testing.T, yaml string) *Plan {
	t.Helper()
	c, err := v1alpha1.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// failed is the problems of the failing checks with the rule ID.
func failed(p *Plan, rule string) []string {
	var out []string
	for _, v := range p.Verdicts {
		if v.Rule == rule && !v.Pass {
			out = append(out, v.Problems...)
		}
	}
	return out
}

func TestChecks(t *testing.T) {
	pool := func(extra string) string {
		return "nodePools:\n- name: win\n  os: windows\n  release: \"2019\"\n" + extra
	}
	cases := []struct {
		name, rule, yaml string
		want             string // a problem must contain it; "" means the rule passes
	}{
		// rule: PLAN-1
		{"seed defaults pass", "PLAN-1", seedBase + pool("  count: 5\n  maxPods: 100\n"), ""},
		{"5 nodes × 100 pods need 505", "PLAN-1", strings.Replace(seedBase, "10.244.0.0/16", "10.244.0.0/24", 1) + pool("  count: 5\n  maxPods: 100\n"),
			"network.clusterCIDR: Invalid value: \"10.244.0.0/24\": holds 256 addresses but 5 nodes with their maxPods need 505"},
		{"DNS outside the service subnet", "PLAN-1", strings.Replace(seedBase, "dnsServiceIP: 10.96.0.10", "dnsServiceIP: 10.244.0.10", 1) + pool(""),
			"network.dnsServiceIP: Invalid value: \"10.244.0.10\": must be inside network.serviceCIDR 10.96.0.0/12"},
		{"node outside the management network", "PLAN-1", seedBase + "  managementCIDR: 192.168.1.0/24\n" + pool("  nodes:\n  - managementIP: 192.168.2.5\n"),
			"nodePools[0].nodes[0].managementIP: Invalid value: \"192.168.2.5\": is outside network.managementCIDR 192.168.1.0/24"},
		// rule: NET-2
		{"VNI 4096 port 4789", "NET-2", seedBase + "  flannel: {backend: vxlan, vni: 4096, port: 4789}\n" + pool(""), ""},
		{"VNI 4097", "NET-2", seedBase + "  flannel: {vni: 4097}\n" + pool(""), "network.flannel.vni: Invalid value: 4097: must be 4096"},
		{"port 8472", "NET-2", seedBase + "  flannel: {port: 8472}\n" + pool(""), "network.flannel.port: Invalid value: 8472: must be 4789"},
		{"host-gw on overlay", "NET-2", seedBase + "  flannel: {backend: host-gw}\n" + pool(""), "network.mode overlay needs the vxlan backend"},
		// rule: VER-1
		{"2019 on 1.36", "VER-1", seedBase + pool(""), ""},
		{"2025 on 1.27", "VER-1", strings.Replace(seedBase, "v1.36.3", "v1.27.16", 1) + "nodePools:\n- name: win\n  os: windows\n  release: \"2025\"\n",
			"nodePools[0].release: Invalid value: \"2025\": Kubernetes 1.27 supports Windows Server 2019, 2022, 20H2 as nodes"},
		{"2022 on 1.18", "VER-1", strings.Replace(seedBase, "v1.36.3", "v1.18.20", 1) + "nodePools:\n- name: win\n  os: windows\n  release: \"2022\"\n",
			"Kubernetes 1.18 supports Windows Server 2019, 1809, 1903, 1909 as nodes"},
		// rule: IMG-5
		{"seed 002 pause image on 2019", "IMG-5", seedBase + pool("  pauseImage: registry.k8s.io/pause:3.6\n"), ""},
		{"2022-only image on 2019", "IMG-5", seedBase + pool("  pauseImage: mcr.microsoft.com/windows/nanoserver:ltsc2022\n"), "nodePools[0].pauseImage"},
		// rule: PLAN-4
		{"1Gi system-reserved", "PLAN-4", seedBase + pool("  systemReserved: {memory: 1Gi}\n"), "nodePools[0].systemReserved.memory"},
		// rule: KLT-10
		{"docker on 1.36", "KLT-10", seedBase + pool("  runtime: docker\n"), "nodePools[0].runtime: Invalid value: \"docker\""},
		{"docker on 1.20", "KLT-10", strings.Replace(seedBase, "v1.36.3", "v1.20.15", 1) + pool("  runtime: docker\n"), ""},
		// rule: PLAN-7
		{"proxy with default noProxy", "PLAN-7", seedBase + pool("") + "proxy: {httpProxy: \"http://proxy.example.com:80/\"}\n", ""},
		{"noProxy misses the service subnet", "PLAN-7", seedBase + pool("") + "proxy: {httpProxy: \"http://proxy.example.com:80/\", noProxy: \"10.244.0.0/16,10.127.130.0/24\"}\n",
			"proxy.noProxy: Invalid value: \"10.244.0.0/16,10.127.130.0/24\": must list 10.96.0.0/12"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustPlan(t, tc.yaml)
			probs := failed(p, tc.rule)
			if tc.want == "" {
				if len(probs) > 0 {
					t.Fatalf("%s fails: %v", tc.rule, probs)
				}
				return
			}
			if !strings.Contains(strings.Join(probs, "\n"), tc.want) {
				t.Errorf("%s problems = %q, want one containing %q", tc.rule, probs, tc.want)
			}
			if p.Passed() {
				t.Error("Passed() with a failing check")
			}
		})
	}
}

// rule: PLAN-1
func TestServiceOverlapFails(t *testing.T) {
	yaml := strings.Replace(seedBase, "serviceCIDR: 10.96.0.0/12", "serviceCIDR: 10.244.128.0/20", 1)
	p := mustPlan(t, strings.Replace(yaml, "dnsServiceIP: 10.96.0.10", "dnsServiceIP: 10.244.128.10", 1))
	if probs := failed(p, "PLAN-1"); len(probs) == 0 || !strings.Contains(probs[0], "network.serviceCIDR") || !strings.Contains(probs[0], "overlaps network.clusterCIDR") {
		t.Errorf("PLAN-1 problems = %q", probs)
	}
}

// rule: PLAN-1
func TestCapacity(t *testing.T) {
	p := mustPlan(t, seedBase+"nodePools:\n- name: win\n  os: windows\n  release: \"2019\"\n  count: 5\n  maxPods: 100\n")
	cp := p.Capacity
	if cp.Required != 505 || cp.Available != 65536 || cp.NodeSubnets != 256 || cp.PodsPerSubnet != 253 {
		t.Errorf("capacity = %+v, want 505 required of 65536, 256 /24 subnets of 253 pods", cp)
	}
}

// rule: VER-1, IMG-5
func TestReleasesAndPauseImages(t *testing.T) {
	p := mustPlan(t, seedBase)
	if got := strings.Join(p.SupportedReleases, ","); got != "2019,2022,20H2" {
		t.Errorf("supported releases for 1.36 = %s", got)
	}
	builds := map[string]string{}
	for _, pi := range p.PauseImages {
		builds[pi.Build] = pi.Image
	}
	if builds["10.0.17763"] == "" || builds["10.0.20348"] == "" {
		t.Errorf("pause images = %v, want the 2019 and 2022 builds of the default pools", p.PauseImages)
	}
}

// The plan's default version is the emulated control plane's, so what plan
// writes is what `winkube up` runs.
func TestDefaultVersionIsEmulated(t *testing.T) {
	for name, v := range map[string]string{
		"v1alpha1.DefaultKubernetesVersion": v1alpha1.DefaultKubernetesVersion,
		"addons.KubernetesVersion":          addons.KubernetesVersion,
	} {
		if v != kubeversion.Default {
			t.Errorf("%s is %s; kubeversion.Default is %s", name, v, kubeversion.Default)
		}
	}
}

// rule: PLAN-4, KP-1, KP-2, KP-8
func TestFlags(t *testing.T) {
	p := mustPlan(t, seedBase+"nodePools:\n- name: win\n  os: windows\n  release: \"2019\"\n  nodes:\n  - name: win-node-1\n    managementIP: 10.127.130.21\n")
	n := p.WindowsNodes[0]
	kubelet := flagLines(p.kubeletFlags(n, nil))
	for _, want := range []string{"--hostname-override=win-node-1\n", `--resolv-conf=""` + "\n", "--cluster-dns=10.96.0.10\n",
		"--cluster-domain=cluster.local\n", "--cgroups-per-qos=false\n", `--enforce-node-allocatable=""` + "\n",
		"--register-with-taints=os=windows:NoSchedule\n", "--system-reserved=memory=2Gi\n", "--windows-priorityclass="} {
		if !strings.Contains(kubelet, want) {
			t.Errorf("kubelet flags lack %q:\n%s", want, kubelet)
		}
	}
	if strings.Contains(kubelet, "--pod-infra-container-image") || strings.Contains(kubelet, "--network-plugin") {
		t.Errorf("1.36 kubelet flags have removed flags:\n%s", kubelet)
	}
	proxy := flagLines(p.kubeProxyFlags(n))
	for _, want := range []string{"--proxy-mode=kernelspace\n", "--hostname-override=win-node-1\n", "--network-name=vxlan0\n", "--source-vip=$SourceVip\n"} {
		if !strings.Contains(proxy, want) {
			t.Errorf("kube-proxy flags lack %q:\n%s", want, proxy)
		}
	}
	old := mustPlan(t, strings.Replace(seedBase, "v1.36.3", "v1.27.16", 1)+"  enableDSR: true\nnodePools:\n- name: win\n  os: windows\n  release: \"2019\"\n")
	o := old.WindowsNodes[0]
	if got := flagLines(old.kubeProxyFlags(o)); !strings.Contains(got, "WinDSR=true") || !strings.Contains(got, "--enable-dsr=true") {
		t.Errorf("1.27 DSR kube-proxy flags:\n%s", got)
	}
	if got := flagLines(old.kubeletFlags(o, nil)); !strings.Contains(got, "--pod-infra-container-image=") {
		t.Errorf("1.27 kubelet flags lack --pod-infra-container-image:\n%s", got)
	}
}

// rule: PLAN-5
func TestServiceArgEscapesSpaces(t *testing.T) {
	if got := (flag{"root-dir", `C:\Program Files\k`}).serviceArg(); got != `--root-dir=\"C:\Program Files\k\"` {
		t.Errorf("serviceArg = %s", got)
	}
	if got := (flag{"resolv-conf", ""}).serviceArg(); got != "--resolv-conf=" {
		t.Errorf("empty serviceArg = %s", got)
	}
}

func TestInputErrors(t *testing.T) {
	c, err := v1alpha1.Parse([]byte(seedBase + "kubernetesVersion: banana\n"))
	if err == nil {
		// a duplicate key is a decode error; build the bad version directly
		t.Fatal("duplicate key accepted")
	}
	c, _ = v1alpha1.Parse([]byte(strings.Replace(seedBase, "v1.36.3", "banana", 1)))
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "kubernetesVersion") {
		t.Errorf("New with a bad version = %v", err)
	}
}
