package agreement

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/webhook"
)

// ruleID finds rule IDs in the webhook's words.
var ruleID = regexp.MustCompile(`\b(API|LIM|SCH|IMG|VER|WK)-[0-9]+\b`)

// verdicts are the rule IDs each object got from one command.
type verdicts map[string]map[string]bool

func (v verdicts) add(key, rule string) {
	if v[key] == nil {
		v[key] = map[string]bool{}
	}
	v[key][rule] = true
}

// sorted lists the rules of key that pass keep.
func (v verdicts) sorted(key string, keep func(string) bool) []string {
	var out []string
	for r := range v[key] {
		if keep(r) {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// cluster is the default cluster of `winkube up`, as lint targets it.
func cluster(t *testing.T, minor int) *lint.Target {
	t.Helper()
	target, err := lint.TargetFromClusterAt(v1alpha1.DefaultCluster(), minor)
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// nodes are the target's nodes as their kubelets register them: lint's
// node objects (labels from kubelet.NodeLabels, the pools' taints) with
// the nodeInfo windows.HostOf reads.
func nodes(target *lint.Target) []*corev1.Node {
	var out []*corev1.Node
	for _, n := range target.Nodes {
		o := n.Obj.DeepCopy()
		o.Status.NodeInfo = corev1.NodeSystemInfo{OperatingSystem: n.OS, Architecture: n.Arch,
			ContainerRuntimeVersion: n.Runtime + "://1.7.20"}
		if n.IsWindows() {
			o.Status.NodeInfo.KernelVersion = n.Build.String()
		}
		out = append(out, o)
	}
	return out
}

// lintVerdicts lints one input against the target: every rule, and the
// rules of error findings (what will fail, not advice or a guess).
func lintVerdicts(target *lint.Target, objs []manifest.Object) (all, errs verdicts) {
	return lintVerdictsWith(target, objs, nil)
}

// lintVerdictsWith is lintVerdicts with lint reading images through
// images (nil: the catalog).
func lintVerdictsWith(target *lint.Target, objs []manifest.Object, images imageinfo.Resolver) (all, errs verdicts) {
	all, errs = verdicts{}, verdicts{}
	l := lint.New(target)
	if images != nil {
		l.UseResolver(context.Background(), images)
	}
	for _, f := range l.Lint(objs).Findings {
		key := objectKey(f.Kind, f.Namespace, f.Name)
		all.add(key, f.Rule)
		if f.Severity == rules.SeverityError {
			errs.add(key, f.Rule)
		}
	}
	return all, errs
}

// newWebhook is the admission handler in-process, knowing the target's
// nodes (and the input's RuntimeClasses) through a fake client. Every rule is reported, none denied, so
// each finding shows as a warning; placement refusals too (warn mode).
func newWebhook(t *testing.T, target *lint.Target, classes map[string]*nodev1.RuntimeClass) *webhook.Handler {
	t.Helper()
	return newWebhookWith(t, target, classes, nil)
}

// newWebhookWith is newWebhook reading images through images (nil: the
// catalog).
func newWebhookWith(t *testing.T, target *lint.Target, classes map[string]*nodev1.RuntimeClass, images imageinfo.Resolver) *webhook.Handler {
	t.Helper()
	var objs []runtime.Object
	for _, n := range nodes(target) {
		objs = append(objs, n)
	}
	for _, rc := range classes {
		objs = append(objs, rc)
	}
	warn := []string{"API", "LIM", "VER", "WK"}
	for _, r := range rules.All() {
		if f, _, _ := strings.Cut(r.ID, "-"); f == "API" || f == "LIM" || f == "VER" || f == "WK" {
			warn = append(warn, r.ID) // advice (info) rules need their exact ID
		}
	}
	h, err := webhook.NewHandler(webhook.Options{Client: fake.NewClientset(objs...), Enforce: []string{}, Warn: warn, Resolver: images,
		Mode: webhook.ModeWarn, KubernetesVersion: "1." + strconv.Itoa(target.Minor)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	waitReady(t, h)
	return h
}

// waitReady waits for the webhook's node and RuntimeClass caches.
func waitReady(t *testing.T, h *webhook.Handler) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !h.Ready() {
		if time.Now().After(deadline) {
			t.Fatal("the webhook's node cache did not fill in 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// admission is what the webhook says of one workload.
type admission struct {
	// validate are the rules of the validating decision.
	validate map[string]bool
	// refused is the rule a placement refusal names; placed the rules of
	// the placed-by annotation of the pod the template makes.
	refused string
	placed  map[string]bool
	// pod is that pod after the mutating decision's patch.
	pod *corev1.Pod
}

// admit runs the validating decision on the workload and the mutating
// one on a pod made from its template (Mutate sees only Pods).
func admit(t *testing.T, h *webhook.Handler, w *workload) admission {
	t.Helper()
	ctx := context.Background()
	a := admission{validate: map[string]bool{}, placed: map[string]bool{}}
	kind := admissionGVK(w.kind)
	req := &admissionv1.AdmissionRequest{UID: "1", Kind: kind, Namespace: "default", Operation: admissionv1.Create}
	req.Object.Raw = w.raw
	for _, s := range h.Validate(ctx, req).Warnings {
		for _, id := range ruleID.FindAllString(s, 1) {
			a.validate[id] = true
		}
	}
	pod := w.podOf("", 0)
	raw, _ := json.Marshal(pod)
	preq := &admissionv1.AdmissionRequest{UID: "2", Kind: admissionGVK("Pod"), Namespace: pod.Namespace, Operation: admissionv1.Create}
	preq.Object.Raw = raw
	resp := h.Mutate(ctx, preq)
	for _, s := range resp.Warnings {
		if id := ruleID.FindString(s); id == "IMG-2" || id == "IMG-4" || id == "SCH-5" || id == "LIM-1" {
			a.refused = id
		}
	}
	a.pod = pod
	if resp.Patch != nil {
		a.pod = patched(t, raw, resp.Patch)
		for _, id := range ruleID.FindAllString(a.pod.Annotations[annotations.PlacedBy], -1) {
			a.placed[id] = true
		}
	}
	return a
}

func patched(t *testing.T, raw, patch []byte) *corev1.Pod {
	t.Helper()
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply(raw)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{}
	if err := json.Unmarshal(out, pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

func admissionGVK(kind string) metav1.GroupVersionKind {
	group := map[string]string{"Deployment": "apps", "DaemonSet": "apps", "StatefulSet": "apps", "Job": "batch"}[kind]
	return metav1.GroupVersionKind{Group: group, Version: "v1", Kind: kind}
}
