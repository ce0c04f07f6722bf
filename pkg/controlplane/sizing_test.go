package controlplane

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestSmallClustersKeepUpstreamDefaults(t *testing.T) {
	for _, nodes := range []int{0, 4, 100} {
		for _, c := range components {
			if got := sizedFlags(c.name, nodes); got != nil {
				t.Errorf("%d nodes: %s gets %v, want no flags (upstream defaults)", nodes, c.name, got)
			}
		}
	}
}

func TestLargeClustersScaleLimits(t *testing.T) {
	// 1,000 nodes is ten times the small cluster: the controller-manager's
	// 20 requests/s per controller (≈ 20 pods/s created by the ReplicaSet
	// controller) becomes 200, the scheduler's 50 becomes 500, and the
	// apiserver's 400/200 in-flight limits grow five-fold.
	want := map[string]map[string]string{
		controllerManagerName: {
			"kube-api-qps": "200", "kube-api-burst": "300",
			"concurrent-replicaset-syncs": "50", "concurrent-deployment-syncs": "50",
			"concurrent-job-syncs": "50", "concurrent-daemonset-syncs": "20", "concurrent-gc-syncs": "200",
		},
		schedulerName: {"kube-api-qps": "500", "kube-api-burst": "1000"},
		apiserverName: {"max-requests-inflight": "2000", "max-mutating-requests-inflight": "1000"},
	}
	for comp, flags := range want {
		got := sizedFlags(comp, 1000)
		for flag, value := range flags {
			if got[flag] != value {
				t.Errorf("1000 nodes: %s --%s = %q, want %s", comp, flag, got[flag], value)
			}
		}
	}
	// 250 nodes: 2.5x for clients; in-flight limits stay at 1.25x.
	if got := sizedFlags(controllerManagerName, 250)["kube-api-qps"]; got != "50" {
		t.Errorf("250 nodes: kube-controller-manager --kube-api-qps = %s, want 50", got)
	}
	if got := sizedFlags(apiserverName, 250)["max-requests-inflight"]; got != "500" {
		t.Errorf("250 nodes: --max-requests-inflight = %s, want 500", got)
	}
	// Past 1,000 nodes the machine, not the clients, is the limit.
	if a, b := sizedFlags(schedulerName, 1000), sizedFlags(schedulerName, 5000); a["kube-api-qps"] != b["kube-api-qps"] {
		t.Errorf("scheduler qps at 5000 nodes = %s, want the 1000-node cap %s", b["kube-api-qps"], a["kube-api-qps"])
	}
}

func testLayout(o Options) *layout {
	o.DataDir = "/d"
	o.Default()
	return &layout{opts: o, ports: map[string]int{apiserverName: 6443}}
}

func TestOverridesReplaceSizedFlags(t *testing.T) {
	l := testLayout(Options{Nodes: 1000, Flags: map[string]map[string]string{
		controllerManagerName: {"kube-api-qps": "150", "concurrent-gc-syncs": "50"},
	}})
	args := componentArgs(l, components[2])
	for _, want := range []string{"--kube-api-qps=150", "--concurrent-gc-syncs=50", "--kube-api-burst=300", "--kubeconfig=/d/kubeconfigs/kube-controller-manager.conf"} {
		if !slices.Contains(args, want) {
			t.Errorf("kube-controller-manager args lack %s: %v", want, args)
		}
	}
	if slices.Contains(args, "--kube-api-qps=200") {
		t.Error("the sized --kube-api-qps=200 was passed beside the override")
	}
}

func TestValidateRefusesReservedFlagsAndUnknownComponents(t *testing.T) {
	o := Options{DataDir: "/d", Flags: map[string]map[string]string{
		apiserverName:         {"secure-port": "7443", "max-requests-inflight": "800"},
		controllerManagerName: {"kubeconfig": "/tmp/x", "cluster-cidr": "10.0.0.0/8"},
		"kube-proxy":          {"v": "2"},
	}}
	o.Default()
	err := o.Validate()
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{
		"controlPlane[kube-apiserver][secure-port]: --secure-port is set by winkube",
		"controlPlane[kube-controller-manager][kubeconfig]: --kubeconfig is set by winkube",
		"controlPlane[kube-controller-manager][cluster-cidr]",
		"controlPlane[kube-proxy]: unknown component",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "max-requests-inflight") {
		t.Errorf("error %q refuses max-requests-inflight, which is winkube's default only", err)
	}
}

// TestCheckFlagsAsksUpstream runs the check in children of this test binary
// (TestMain serves "component check-flags"), so the flag names are the
// upstream commands' own.
func TestCheckFlagsAsksUpstream(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	err = checkFlags(exe, map[string]map[string]string{
		controllerManagerName: {"kube-api-qps": "200", "concurrent-gc-syncs": "many", "kube-api-qpz": "1"},
		schedulerName:         {"kube-api-burst": "400"},
	})
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{
		"controlPlane[kube-controller-manager][kube-api-qpz]: kube-controller-manager has no flag --kube-api-qpz",
		`controlPlane[kube-controller-manager][concurrent-gc-syncs]: invalid value "many"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Count(err.Error(), "controlPlane[") != 2 {
		t.Errorf("error %q: want exactly the two bad overrides", err)
	}
	if err := checkFlags(exe, nil); err != nil {
		t.Errorf("no overrides: %v", err)
	}
}

// TestComponentGOGCGrowsWithTheCluster: a small cluster's components
// collect at half Go's default growth, a cluster of twice smallCluster
// nodes and more at Go's default; a GOGC of the environment wins.
func TestComponentGOGCGrowsWithTheCluster(t *testing.T) {
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	for nodes, want := range map[int]string{0: "GOGC=50", 4: "GOGC=50", 100: "GOGC=50", 150: "GOGC=75", 200: "GOGC=100", 1000: "GOGC=100"} {
		if got := componentEnv(nodes); len(got) != 1 || got[0] != want {
			t.Errorf("%d nodes: environment %v, want [%s]", nodes, got, want)
		}
	}
	t.Setenv("GOGC", "off")
	if got := componentEnv(4); len(got) != 0 {
		t.Errorf("with GOGC=off in the environment: %v, want nothing added", got)
	}
}
