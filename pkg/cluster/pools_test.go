package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

type runtimeObject = runtime.Object

func nodeObj(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"winkube.io/pool": "p"}}}
}

func pod(name, nodeName string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PodSpec{NodeName: nodeName}}
}

func asInput(err error, target **InputError) bool { return errors.As(err, target) }

func decodeConfig(t *testing.T, doc string) *v1alpha1.Cluster {
	t.Helper()
	c, err := v1alpha1.Decode([]byte("apiVersion: winkube.io/v1alpha1\nkind: Cluster\n" + doc))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The re-run of `up --config` with other pools: the old nodes
// stayed, and two nodes shared 10.127.130.11.
func TestPlanPoolsRemovesAndKeepsAddresses(t *testing.T) {
	saved := v1alpha1.DefaultCluster() // linux-1, win2019-1, win2019-2, win2022-1
	cfg := decodeConfig(t, `
nodePools:
- {name: win2022, os: windows, release: "2022", count: 2}
- {name: linux, os: linux, count: 1}
`)
	plan, err := planPools(saved, cfg, "/d")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(plan.removed, ",") != "win2019-1,win2019-2" || len(plan.replaced) != 0 {
		t.Errorf("removed %v, replaced %v", plan.removed, plan.replaced)
	}
	ips := map[string]string{}
	seen := map[string]string{}
	for _, n := range cfg.Nodes() {
		ip := n.InternalIP.String()
		if other, dup := seen[ip]; dup {
			t.Errorf("%s and %s share %s", other, n.Name, ip)
		}
		seen[ip] = n.Name
		ips[n.Name] = ip
	}
	if ips["win2022-1"] != "10.127.130.13" || ips["linux-1"] != "10.127.130.10" {
		t.Errorf("unchanged nodes moved: %v", ips)
	}
	for _, held := range []string{"10.127.130.11", "10.127.130.12"} {
		if ips["win2022-2"] == held {
			t.Errorf("the new node took %s, which a removed node held until now", held)
		}
	}
}

func TestPlanPoolsReplacesANodeThatChangesOS(t *testing.T) {
	saved := decodeConfig(t, "nodePools:\n- {name: pool, os: linux, count: 1}\n")
	cfg := decodeConfig(t, "nodePools:\n- {name: pool, os: windows, release: \"2022\", count: 1}\n")
	plan, err := planPools(saved, cfg, "/d")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(plan.replaced, ",") != "pool-1" || len(plan.removed) != 0 {
		t.Errorf("replaced %v, removed %v", plan.replaced, plan.removed)
	}
}

func TestPlanPoolsRefusesFixedFields(t *testing.T) {
	saved := v1alpha1.DefaultCluster()
	cfg := decodeConfig(t, "network: {clusterCIDR: 10.200.0.0/16}\n")
	_, err := planPools(saved, cfg, "/d")
	if err == nil || !strings.Contains(err.Error(), "network.clusterCIDR changed from 10.244.0.0/16 to 10.200.0.0/16") || !strings.Contains(err.Error(), "winkube down") {
		t.Errorf("want an error naming network.clusterCIDR, got %v", err)
	}
}

// An `up --config` that changes a fixed field fails as an input error
// before anything starts.
func TestUpRefusesAFixedFieldChangeBeforeStarting(t *testing.T) {
	dir := t.TempDir()
	saved, _ := yaml.Marshal(v1alpha1.DefaultCluster())
	os.WriteFile(filepath.Join(dir, savedConfig), saved, 0o644)
	os.WriteFile(filepath.Join(dir, lockFile), nil, 0o644)
	file := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(file, []byte("apiVersion: winkube.io/v1alpha1\nkind: Cluster\nnetwork: {serviceCIDR: 10.100.0.0/16, dnsServiceIP: 10.100.0.10}\n"), 0o644)
	_, err := Up(context.Background(), Options{DataDir: dir, ConfigFile: file})
	var input *InputError
	if !asInput(err, &input) || !strings.Contains(err.Error(), "network.serviceCIDR") || !strings.Contains(err.Error(), "network.dnsServiceIP") {
		t.Errorf("want an InputError naming the fields, got %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the refused up wrote into the data dir: %v", entries)
	}
}

func TestRemoveStaleNodes(t *testing.T) {
	objs := []runtimeObject{
		nodeObj("win2019-1"), nodeObj("linux-1"), nodeObj("joined-elsewhere"),
		pod("p1", "linux-1"), pod("p2", "win2019-1"),
	}
	client := fake.NewSimpleClientset(objs...)
	var out strings.Builder
	c := &Cluster{out: &out}
	plan := &poolPlan{removed: []string{"win2019-1", "win2019-2"}, replaced: []string{"linux-1"}}
	if err := c.removeStaleNodes(context.Background(), client, plan); err != nil {
		t.Fatal(err)
	}
	nodes, _ := client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if len(nodes.Items) != 1 || nodes.Items[0].Name != "joined-elsewhere" {
		t.Errorf("nodes left: %v", nodes.Items)
	}
	// The removed node's pod is left to the pod GC; the replaced node's goes at once.
	if _, err := client.CoreV1().Pods("default").Get(context.Background(), "p2", metav1.GetOptions{}); err != nil {
		t.Errorf("p2: %v", err)
	}
	if _, err := client.CoreV1().Pods("default").Get(context.Background(), "p1", metav1.GetOptions{}); err == nil {
		t.Error("the replaced node's pod p1 is still there")
	}
	if strings.Count(out.String(), "Removed node") != 1 || !strings.Contains(out.String(), "Replaced node linux-1") {
		t.Errorf("output:\n%s", out.String())
	}
}
