package node

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/node/internal/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rule: SCH-1, SCH-3, KLT-1, KLT-2
func TestNodesRegisteredAndReady(t *testing.T) {
	needCluster(t)
	t.Logf("%d nodes Ready %s after Start", len(agent.NodeNames()), readyAfter.Round(time.Millisecond))
	want := map[string]struct {
		os, build, osImage, kernel string
		tainted                    bool
	}{
		"linux-1":   {os: "linux", osImage: "Debian GNU/Linux 12 (bookworm)", kernel: "6.1.0-28-cloud-amd64"},
		"win2019-1": {os: "windows", build: "10.0.17763", osImage: "Windows Server 2019 Datacenter", kernel: "10.0.17763.5329", tainted: true},
		"win2019-2": {os: "windows", build: "10.0.17763", osImage: "Windows Server 2019 Datacenter", kernel: "10.0.17763.5329", tainted: true},
		"win2022-1": {os: "windows", build: "10.0.20348", osImage: "Windows Server 2022 Datacenter", kernel: "10.0.20348.2227", tainted: true},
	}
	if got := agent.NodeNames(); len(got) != len(want) {
		t.Fatalf("NodeNames() = %v, want %d nodes", got, len(want))
	}
	ips := map[string]bool{}
	for name, w := range want {
		n, err := client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get node %s: %v", name, err)
		}
		for k, v := range map[string]string{
			"kubernetes.io/os": w.os, "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name,
			"beta.kubernetes.io/os": w.os, "beta.kubernetes.io/arch": "amd64", LabelPool: n.Labels[LabelPool],
		} {
			if n.Labels[k] != v || v == "" {
				t.Errorf("%s: label %s = %q, want %q", name, k, n.Labels[k], v)
			}
		}
		if got := n.Labels["node.kubernetes.io/windows-build"]; got != w.build {
			t.Errorf("%s: windows-build label = %q, want %q", name, got, w.build)
		}
		info := n.Status.NodeInfo
		if info.OperatingSystem != w.os || info.Architecture != "amd64" || info.OSImage != w.osImage || info.KernelVersion != w.kernel {
			t.Errorf("%s: nodeInfo = %+v", name, info)
		}
		if info.ContainerRuntimeVersion == "" || info.KubeletVersion != "v1.36.3" || info.MachineID == "" || info.SystemUUID == "" || info.BootID == "" {
			t.Errorf("%s: nodeInfo runtime/kubelet/ids = %+v", name, info)
		}
		if hasTaint := hasWindowsTaint(n); hasTaint != w.tainted {
			t.Errorf("%s: os=windows:NoSchedule taint present = %v, want %v (taints %v)", name, hasTaint, w.tainted, n.Spec.Taints)
		}
		checkAddresses(t, n, ips)
		checkAllocatable(t, n)
		if !status.Ready(n) {
			t.Errorf("%s: not Ready: %+v", name, n.Status.Conditions)
		}
		if _, err := netip.ParsePrefix(n.Spec.PodCIDR); err != nil {
			t.Errorf("%s: podCIDR %q: %v", name, n.Spec.PodCIDR, err)
		}
		if n.Status.DaemonEndpoints.KubeletEndpoint.Port != 10250 {
			t.Errorf("%s: kubelet port = %d", name, n.Status.DaemonEndpoints.KubeletEndpoint.Port)
		}
		checkLease(t, n)
	}
}

func hasWindowsTaint(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == "os" && t.Value == "windows" && t.Effect == corev1.TaintEffectNoSchedule {
			return true
		}
	}
	return false
}

func checkAddresses(t *testing.T, n *corev1.Node, seen map[string]bool) {
	t.Helper()
	var internal, host string
	for _, a := range n.Status.Addresses {
		switch a.Type {
		case corev1.NodeInternalIP:
			internal = a.Address
		case corev1.NodeHostName:
			host = a.Address
		}
	}
	mgmt := netip.MustParsePrefix(cluster.Network.ManagementCIDR)
	if ip, err := netip.ParseAddr(internal); err != nil || !mgmt.Contains(ip) || seen[internal] {
		t.Errorf("%s: InternalIP %q not a unique address of %s", n.Name, internal, mgmt)
	}
	seen[internal] = true
	if host != n.Name {
		t.Errorf("%s: Hostname address = %q", n.Name, host)
	}
}

// rule: KLT-2
func checkAllocatable(t *testing.T, n *corev1.Node) {
	t.Helper()
	capMem := n.Status.Capacity.Memory().Value()
	allocMem := n.Status.Allocatable.Memory().Value()
	reserved := int64(100 << 20) // Linux memory.available<100Mi
	if n.Labels["kubernetes.io/os"] == "windows" {
		reserved = 2<<30 + 500<<20 // system-reserved 2Gi + memory.available<500Mi
	}
	if capMem-allocMem != reserved {
		t.Errorf("%s: capacity-allocatable memory = %d, want %d", n.Name, capMem-allocMem, reserved)
	}
	_, hasHuge := n.Status.Capacity["hugepages-2Mi"]
	if hasHuge != (n.Labels["kubernetes.io/os"] == "linux") {
		t.Errorf("%s: hugepages-2Mi in capacity = %v", n.Name, hasHuge)
	}
	if n.Status.Capacity.Pods().Value() != 110 {
		t.Errorf("%s: pods capacity = %v", n.Name, n.Status.Capacity.Pods())
	}
}

func checkLease(t *testing.T, n *corev1.Node) {
	t.Helper()
	l, err := client.CoordinationV1().Leases(status.LeaseNamespace).Get(context.Background(), n.Name, metav1.GetOptions{})
	if err != nil {
		t.Errorf("%s: lease: %v", n.Name, err)
		return
	}
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != n.Name || l.Spec.RenewTime == nil {
		t.Errorf("%s: lease spec = %+v", n.Name, l.Spec)
	}
	if len(l.OwnerReferences) != 1 || l.OwnerReferences[0].UID != n.UID || l.OwnerReferences[0].Kind != "Node" {
		t.Errorf("%s: lease owner = %+v, want the node (uid %s)", n.Name, l.OwnerReferences, n.UID)
	}
}

// Every node's kubelet events of its start reach the API; Windows nodes'
// without NodeAllocatableEnforced.
// rule: KLT-3
func TestNodeEvents(t *testing.T) {
	needCluster(t)
	for _, name := range agent.NodeNames() {
		for _, reason := range []string{"Starting", "NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"} {
			waitEvent(t, "default", name, reason, "", 30*time.Second)
		}
		n, err := client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n.Labels[corev1.LabelOSStable] != "windows" {
			waitEvent(t, "default", name, "NodeAllocatableEnforced", "", 30*time.Second)
			continue
		}
		for _, e := range podEvents(t, "default", name) {
			if e.Reason == "NodeAllocatableEnforced" {
				t.Errorf("%s: a Windows node emitted NodeAllocatableEnforced", name)
			}
		}
	}
	waitEvent(t, "default", "win2019-1", "NodeReady", "", 30*time.Second)
}
