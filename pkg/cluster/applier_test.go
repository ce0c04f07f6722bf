package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/manifest"
)

// configMaps are n ConfigMaps in namespace ns, preceded by the Namespace.
func configMaps(ns string, n int) []manifest.Object {
	objs := []manifest.Object{{File: "ns.yaml", Line: 1, Obj: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns},
	}}}}
	for i := range n {
		objs = append(objs, manifest.Object{File: "cms.yaml", Line: 1 + 5*i, Obj: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i), "namespace": ns},
			"data":     map[string]any{"index": fmt.Sprint(i)},
		}}})
	}
	return objs
}

// The Namespace is listed last: the applier applies it first anyway, as a
// user's directory of files may name it after what it holds.
func TestApplyObjectsAppliesEverythingAndSummarises(t *testing.T) {
	cfg := sharedControlPlane(t)
	objs := configMaps("apply-all", 300)
	objs = append(objs[1:], objs[0])
	var out bytes.Buffer
	sum, err := applyObjects(context.Background(), cfg, objs, newProgress(&out, len(objs)))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Applied != 301 || sum.Kinds["ConfigMap"] != 300 || sum.Kinds["Namespace"] != 1 {
		t.Errorf("summary %+v", sum)
	}
	if s := sum.String(); !strings.HasPrefix(s, "301 objects applied in ") || !strings.HasSuffix(s, ": 300 ConfigMap, 1 Namespace") {
		t.Errorf("summary line %q", s)
	}
	if out.Len() != 0 {
		t.Errorf("fewer objects than progressEvery printed progress: %q", out.String())
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	list, err := cs.CoreV1().ConfigMaps("apply-all").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.Items); n < 300 { // plus kube-root-ca.crt
		t.Errorf("%d ConfigMaps in the namespace, want 300", n)
	}
	cm, _ := cs.CoreV1().ConfigMaps("apply-all").Get(context.Background(), "cm-7", metav1.GetOptions{})
	if cm == nil || cm.Annotations["kubectl.kubernetes.io/last-applied-configuration"] == "" || cm.ManagedFields[0].Manager != "winkube" {
		t.Errorf("cm-7 not applied as kubectl apply --field-manager=winkube: %+v", cm)
	}
}

// A custom resource listed before its definition is applied once the API
// server serves its kind.
func TestApplyObjectsWaitsForDefinitions(t *testing.T) {
	cfg := sharedControlPlane(t)
	dir := t.TempDir()
	path := writeManifest(t, dir, "crd.yaml", `apiVersion: example.com/v1
kind: Widget
metadata: {name: w1}
spec: {size: 3}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`)
	m, err := LoadManifests([]string{path}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := applyObjects(context.Background(), cfg, m.Objects, nil); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	if _, err := dynamic.NewForConfigOrDie(cfg).Resource(gvr).Namespace("default").Get(context.Background(), "w1", metav1.GetOptions{}); err != nil {
		t.Errorf("custom resource not applied: %v", err)
	}
}

// Every object is tried; the error names each failure's file and line.
func TestApplyObjectsReportsEveryFailure(t *testing.T) {
	cfg := sharedControlPlane(t)
	objs := configMaps("apply-fail", 3)[1:] // no Namespace: all three fail
	objs[1].Obj.SetNamespace("default")     // this one lands
	sum, err := applyObjects(context.Background(), cfg, objs[1:2], nil)
	if err != nil || sum.Applied != 1 {
		t.Fatalf("applied %d: %v", sum.Applied, err)
	}
	bad := []manifest.Object{objs[0], {File: filepath.Join("dir", "bad.yaml"), Line: 4, Obj: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "Not_A_Name"},
	}}}}
	_, err = applyObjects(context.Background(), cfg, bad, nil)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"2 of 2 objects failed", "cms.yaml:1: ", "dir/bad.yaml:4: ", "Not_A_Name"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// BenchmarkApply5000ConfigMaps applies 5,000 ConfigMaps (and their
// Namespace) per iteration against the real control plane. Besides the
// rate it reports the CPU each object costs this process (the client and
// the embedded etcd) and kube-apiserver, which move far less than the rate
// with the machine's load.
func BenchmarkApply5000ConfigMaps(b *testing.B) {
	cfg := sharedControlPlane(b)
	apiserver := shared.pids()["kube-apiserver"]
	self0, api0 := selfCPU(b), pidCPU(b, apiserver)
	for i := 0; b.Loop(); i++ {
		objs := configMaps(fmt.Sprintf("bench-%d", i), 5000)
		if _, err := applyObjects(context.Background(), cfg, objs, nil); err != nil {
			b.Fatal(err)
		}
	}
	objects := float64(5001 * b.N)
	b.ReportMetric(objects/b.Elapsed().Seconds(), "objects/s")
	b.ReportMetric(float64((selfCPU(b)-self0).Microseconds())/objects, "self-cpu-µs/object")
	b.ReportMetric(float64((pidCPU(b, apiserver)-api0).Microseconds())/objects, "apiserver-cpu-µs/object")
}

// BenchmarkReapply5000ConfigMaps applies the same 5,000 ConfigMaps (and
// their Namespace) again each iteration, as `up --apply` on a resumed
// cluster does: every create finds the object, which is read and compared
// as kubectl apply compares it, and left as it is.
func BenchmarkReapply5000ConfigMaps(b *testing.B) {
	cfg := sharedControlPlane(b)
	apiserver := shared.pids()["kube-apiserver"]
	objs := configMaps("reapply", 5000)
	if _, err := applyObjects(context.Background(), cfg, objs, nil); err != nil {
		b.Fatal(err)
	}
	self0, api0 := selfCPU(b), pidCPU(b, apiserver)
	for b.Loop() {
		if _, err := applyObjects(context.Background(), cfg, objs, nil); err != nil {
			b.Fatal(err)
		}
	}
	objects := float64(5001 * b.N)
	b.ReportMetric(objects/b.Elapsed().Seconds(), "objects/s")
	b.ReportMetric(float64((selfCPU(b)-self0).Microseconds())/objects, "self-cpu-µs/object")
	b.ReportMetric(float64((pidCPU(b, apiserver)-api0).Microseconds())/objects, "apiserver-cpu-µs/object")
}

// selfCPU is the user and system time this process has used.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pidCPU is the user and system time of process pid, from /proc/PID/stat.
func pidCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatalf("CPU of PID %d: %v", pid, err)
	}
	// The fields after the command's closing parenthesis; utime and stime
	// are the 14th and 15th of the whole line, in clock ticks (100 a
	// second on Linux).
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		b.Fatalf("/proc/%d/stat: %q", pid, s)
	}
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// A kind the API server does not serve, with nothing in the input that
// defines kinds, fails as kubectl's apply does (without waiting for it).
func TestApplyObjectsUnservedKind(t *testing.T) {
	cfg := sharedControlPlane(t)
	rc := []manifest.Object{{File: "rc.yaml", Line: 1, Obj: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "node.k8s.io/v1beta1", "kind": "RuntimeClass", "metadata": map[string]any{"name": "windows-2019"}, "handler": "docker",
	}}}}
	_, err := applyObjects(context.Background(), cfg, rc, nil)
	if err == nil || !strings.Contains(err.Error(), `rc.yaml:1: RuntimeClass windows-2019: unknown kind: no matches for kind "RuntimeClass" in version "node.k8s.io/v1beta1"`) {
		t.Errorf("applying a v1beta1 RuntimeClass: %v", err)
	}
}
