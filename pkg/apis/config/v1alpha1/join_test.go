package v1alpha1

import (
	"strings"
	"testing"
)

// The join fields: version, flannel backend and named nodes default from
// the seeds, and explicit nodes keep their names and addresses.
// rule: PLAN-3, NET-2
func TestJoinFieldDefaults(t *testing.T) {
	c, err := Decode([]byte(`apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
- name: win
  os: windows
  release: "2019"
  nodes:
  - managementIP: 10.127.130.10
  - name: b
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.KubernetesVersion != "v1.36.3" || c.Network.Flannel != (Flannel{Backend: BackendVXLAN, VNI: 4096, Port: 4789}) {
		t.Errorf("defaults = %s %+v", c.KubernetesVersion, c.Network.Flannel)
	}
	nodes := c.Nodes()
	if len(nodes) != 2 || nodes[0].Name != "win-1" || nodes[0].InternalIP.String() != "10.127.130.10" || nodes[0].InterfaceName != "Ethernet" {
		t.Fatalf("nodes = %+v", nodes)
	}
	// The automatic address skips the one the list takes.
	if nodes[1].Name != "b" || nodes[1].InternalIP.String() != "10.127.130.11" {
		t.Errorf("second node = %+v", nodes[1])
	}
}

func TestJoinFieldErrors(t *testing.T) {
	_, err := Decode([]byte(`apiVersion: winkube.io/v1alpha1
kind: Cluster
kubernetesVersion: "2.0"
controlPlaneEndpoint: "https://cp:6443"
network:
  flannel: {vni: 4097}
nodePools:
- name: win
  os: windows
  release: "2019"
  count: 3
  nodes:
  - {name: a, managementIP: 10.127.130.20}
  - {name: a, managementIP: 10.127.130.20}
proxy: {httpProxy: "proxy:80"}
`))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"kubernetesVersion: Invalid value", "controlPlaneEndpoint: Invalid value",
		"network.flannel.vni: Invalid value: 4097: must be 4096", "nodePools[0].count: Invalid value: 3",
		`nodePools[0].nodes[1].name: Duplicate value: "a"`, `nodePools[0].nodes[1].managementIP: Duplicate value`,
		"proxy.httpProxy: Invalid value"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
