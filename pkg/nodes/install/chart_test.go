package install

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var chartDir = filepath.Join("..", "..", "..", "deploy", "helm", "winkube-nodes")

// renderDir renders the chart from its directory, as `helm template
// winkube-nodes -n winkube-system` does.
func renderDir(t *testing.T, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Render(chrt, Name, DefaultNamespace, "Helm", values)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func toYAML(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	var b bytes.Buffer
	if err := YAML(&b, objs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// `helm template` of the chart's defaults, kept in testdata: a change to
// the chart shows up as a diff in review (go test -run Golden -update).
func TestChartGolden(t *testing.T) {
	got := toYAML(t, renderDir(t, nil))
	golden := filepath.Join("testdata", "helm-template.golden.yaml")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("chart render differs from %s (-want +got; go test -run Golden -update):\n%s", golden, d)
	}
}

// The chart embedded in winkube is the chart on disk, and install applies
// what helm would, bar the managed-by label and the namespace.
func TestEmbeddedChartIsTheChart(t *testing.T) {
	fromDisk := renderDir(t, nil)
	objs, err := Objects(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if objs[0].GetKind() != "Namespace" || objs[0].GetName() != DefaultNamespace {
		t.Fatalf("first object %s %s, want the namespace", objs[0].GetKind(), objs[0].GetName())
	}
	for _, u := range fromDisk {
		labels := u.GetLabels()
		labels[LabelManagedBy] = ManagedBy
		u.SetLabels(labels)
		setTemplateLabel(t, u, LabelManagedBy, ManagedBy)
	}
	sortByKind(fromDisk)
	if d := cmp.Diff(toYAML(t, fromDisk), toYAML(t, objs[1:])); d != "" {
		t.Errorf("install objects differ from the chart on disk (-chart +install):\n%s", d)
	}
}

func setTemplateLabel(t *testing.T, u *unstructured.Unstructured, key, value string) {
	t.Helper()
	if u.GetKind() != "Deployment" {
		return
	}
	if err := unstructured.SetNestedField(u.Object, value, "spec", "template", "metadata", "labels", key); err != nil {
		t.Fatal(err)
	}
}

func TestChartLint(t *testing.T) {
	l := lint.All(chartDir, nil, DefaultNamespace, false)
	for _, m := range l.Messages {
		t.Log(m)
	}
	if l.HighestSeverity >= support.WarningSev {
		t.Errorf("helm lint: highest severity %d, want below warning", l.HighestSeverity)
	}
}

func deployment(t *testing.T, objs []*unstructured.Unstructured) *appsv1.Deployment {
	t.Helper()
	for _, u := range objs {
		if u.GetKind() == "Deployment" {
			d := &appsv1.Deployment{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, d); err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatal("no Deployment")
	return nil
}

func configOf(t *testing.T, objs []*unstructured.Unstructured) *v1alpha1.Cluster {
	t.Helper()
	for _, u := range objs {
		if u.GetKind() != "ConfigMap" {
			continue
		}
		data, _, _ := unstructured.NestedString(u.Object, "data", "cluster.yaml")
		cfg, err := v1alpha1.Decode([]byte(data))
		if err != nil {
			t.Fatalf("the agent would refuse the chart's config: %v\n%s", err, data)
		}
		return cfg
	}
	t.Fatal("no ConfigMap")
	return nil
}

// The agent runs in-cluster on Linux nodes that it does not emulate, with
// the pod IP as its kubelet address and the pools of the values.
func TestInstallOptions(t *testing.T) {
	three := 3
	objs, err := Objects(Options{
		Namespace: "agents", Image: "registry.local:5000/winkube:dev", Replicas: 2, ApproveCSR: true,
		Pools:     []v1alpha1.NodePool{{Name: "ws25", OS: "windows", Release: "2025", Count: &three}},
		ExtraArgs: []string{"--resolve-images=registry"},
	})
	if err != nil {
		t.Fatal(err)
	}
	d := deployment(t, objs)
	c := d.Spec.Template.Spec.Containers[0]
	if c.Image != "registry.local:5000/winkube:dev" || *d.Spec.Replicas != 2 || d.Namespace != "agents" {
		t.Errorf("image %s replicas %d namespace %s", c.Image, *d.Spec.Replicas, d.Namespace)
	}
	wantArgs := []string{"nodes", "--config=/etc/winkube/cluster.yaml", "--kubelet-address=$(POD_IP)", "--kubelet-port=10250", "--wait=2m", "--approve-csr", "--resolve-images=registry"}
	if d := cmp.Diff(wantArgs, c.Args); d != "" {
		t.Errorf("args (-want +got):\n%s", d)
	}
	if len(c.Env) != 1 || c.Env[0].ValueFrom.FieldRef.FieldPath != "status.podIP" {
		t.Errorf("env = %+v", c.Env)
	}
	// rule: SCH-1 — the Linux image runs on Linux nodes only
	spec := d.Spec.Template.Spec
	if spec.NodeSelector[corev1.LabelOSStable] != "linux" {
		t.Errorf("nodeSelector = %v", spec.NodeSelector)
	}
	expr := spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0]
	if expr.Key != "winkube.io/pool" || expr.Operator != corev1.NodeSelectorOpDoesNotExist {
		t.Errorf("affinity = %+v, want off the emulated nodes", expr)
	}
	cfg := configOf(t, objs)
	if len(cfg.NodePools) != 1 || cfg.NodePools[0].Name != "ws25" || cfg.NodeCount() != 3 {
		t.Errorf("config pools = %+v", cfg.NodePools)
	}
	if !strings.Contains(toYAML(t, objs), "kubernetes.io/kubelet-serving") {
		t.Error("approveCSR gives no signer permission")
	}
}

// The default pools of the chart are winkube's default pools.
func TestChartDefaultPools(t *testing.T) {
	got := configOf(t, renderDir(t, nil))
	if d := cmp.Diff(v1alpha1.DefaultCluster().NodePools, got.NodePools); d != "" {
		t.Errorf("chart pools differ from v1alpha1's defaults (-want +chart):\n%s", d)
	}
}

func TestSplitImage(t *testing.T) {
	for in, want := range map[string][2]string{
		"ghcr.io/winkube/winkube:v1": {"ghcr.io/winkube/winkube", "v1"},
		"localhost:5000/winkube":     {"localhost:5000/winkube", "latest"},
		"winkube":                    {"winkube", "latest"},
	} {
		repo, tag, err := splitImage(in)
		if err != nil || repo != want[0] || tag != want[1] {
			t.Errorf("splitImage(%q) = %q, %q, %v", in, repo, tag, err)
		}
	}
	for _, bad := range []string{"winkube@sha256:abc", "winkube:", ":v1"} {
		if _, _, err := splitImage(bad); err == nil || !strings.Contains(err.Error(), "--image") {
			t.Errorf("splitImage(%q) = %v, want an error naming --image", bad, err)
		}
	}
}
