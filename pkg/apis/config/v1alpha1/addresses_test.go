package v1alpha1

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func decode(t *testing.T, doc string) *Cluster {
	t.Helper()
	c, err := Decode([]byte("apiVersion: winkube.io/v1alpha1\nkind: Cluster\n" + doc))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func addresses(c *Cluster) map[string]string {
	out := map[string]string{}
	for _, n := range c.Nodes() {
		out[n.Name] = n.InternalIP.String()
	}
	return out
}

// Removing a pool used to shift every later node down by one address, so
// an unchanged node changed its InternalIP and a new node took an address
// a running node still held.
func TestKeepAddressesAcrossPoolChanges(t *testing.T) {
	before := DefaultCluster() // linux-1 .10, win2019-1 .11, win2019-2 .12, win2022-1 .13
	if err := before.KeepAddresses(nil); err != nil {
		t.Fatal(err)
	}
	after := decode(t, `
nodePools:
- {name: win2022, os: windows, release: "2022", count: 2}
- {name: linux, os: linux, count: 1}
`)
	if err := after.KeepAddresses(before.Nodes()); err != nil {
		t.Fatal(err)
	}
	got := addresses(after)
	want := map[string]string{
		"win2022-1": "10.127.130.13", // unchanged node: same address
		"linux-1":   "10.127.130.10",
		"win2022-2": "10.127.130.14", // new node: past every address held before
	}
	for name, ip := range want {
		if got[name] != ip {
			t.Errorf("%s = %s, want %s (all: %v)", name, got[name], ip, got)
		}
	}
	// The addresses travel with the saved config: resuming it moves nothing.
	data, err := yaml.Marshal(after)
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := Decode(data)
	if err != nil {
		t.Fatalf("the saved config does not load again: %v\n%s", err, data)
	}
	if err := resumed.KeepAddresses(after.Nodes()); err != nil {
		t.Fatal(err)
	}
	for name, ip := range addresses(resumed) {
		if got[name] != ip {
			t.Errorf("resumed %s = %s, want %s", name, ip, got[name])
		}
	}
}

func TestKeepAddressesFreshClusterMatchesNodes(t *testing.T) {
	c := DefaultCluster()
	plain := addresses(c)
	if err := c.KeepAddresses(nil); err != nil {
		t.Fatal(err)
	}
	for name, ip := range addresses(c) {
		if plain[name] != ip {
			t.Errorf("%s = %s, want %s as Nodes gives it", name, ip, plain[name])
		}
	}
	if errs := Validate(c); len(errs) > 0 {
		t.Errorf("pinned config is invalid: %v", errs)
	}
}

func TestKeepAddressesRefusesAHeldAddress(t *testing.T) {
	before := DefaultCluster()
	before.KeepAddresses(nil)
	after := decode(t, `
nodePools:
- {name: linux, os: linux, count: 1}
- name: extra
  os: linux
  nodes: [{name: extra-1, managementIP: 10.127.130.10}]
`)
	err := after.KeepAddresses(before.Nodes())
	if err == nil || !strings.Contains(err.Error(), "nodePools[1].nodes[0].managementIP") || !strings.Contains(err.Error(), "linux-1") {
		t.Errorf("want an error naming the field and the node holding the address, got %v", err)
	}
	// The address of a removed node may be given explicitly.
	after = decode(t, `
nodePools:
- name: extra
  os: linux
  nodes: [{name: extra-1, managementIP: 10.127.130.10}]
`)
	if err := after.KeepAddresses(before.Nodes()); err != nil {
		t.Errorf("the address of a removed node: %v", err)
	}
}
