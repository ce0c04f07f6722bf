package windows

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rule: KLT-1
// What a container's programs read about their OS comes from the node's
// nodeInfo: the build and UBR of kernelVersion, the product name of osImage,
// the registry values of the release; a Linux node's kernel release.
func TestOSFacts(t *testing.T) {
	node := func(os, osImage, kernel string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{LabelOS: os}},
			Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{OSImage: osImage, KernelVersion: kernel}}}
	}
	cases := []struct {
		name string
		node *corev1.Node
		want OSFacts
	}{
		{"2019", node("windows", "Windows Server 2019 Datacenter", "10.0.17763.5329"), OSFacts{Version: Build{10, 0, 17763, 5329},
			ProductName: "Windows Server 2019 Datacenter", EditionID: "ServerDatacenter", ReleaseID: "1809", PSVersion: "5.1.17763.5329"}},
		{"2022 Standard", node("windows", "Windows Server 2022 Standard", "10.0.20348.2227"), OSFacts{Version: Build{10, 0, 20348, 2227},
			ProductName: "Windows Server 2022 Standard", EditionID: "ServerStandard", ReleaseID: "2009", DisplayVersion: "21H2", PSVersion: "5.1.20348.2227"}},
		{"20H2 without osImage", node("windows", "", "10.0.19042.1889"), OSFacts{Version: Build{10, 0, 19042, 1889},
			ProductName: "Windows Server Datacenter", EditionID: "ServerDatacenterACor", ReleaseID: "2009", DisplayVersion: "20H2", PSVersion: "5.1.19042.1889"}},
		{"linux", node("linux", "Debian GNU/Linux 12 (bookworm)", "6.1.0-28-cloud-amd64"), OSFacts{
			ProductName: "Debian GNU/Linux 12 (bookworm)", KernelRelease: "6.1.0-28-cloud-amd64"}},
	}
	for _, c := range cases {
		if got := HostOf(c.node).OSFacts(); got != c.want {
			t.Errorf("%s: OSFacts = %+v, want %+v", c.name, got, c.want)
		}
	}
}
