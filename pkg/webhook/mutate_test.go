package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
)

var ctx = context.Background()

// A 2022 image with no selector lands on the 2022 node: OS selector, a
// windows-build term (the cluster also has 2019 nodes), the toleration of
// the Windows taint and spec.os, each recorded in the annotation. The pod
// has no nodeSelector, affinity, tolerations or annotations: the patch
// must create them.
// rule: IMG-2, SCH-3, SCH-5, SCH-2
func TestPlacesWindows2022Image(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	req := podRequest(t, `
apiVersion: v1
kind: Pod
metadata: {name: iis}
spec:
  containers:
  - name: iis
    image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
`)
	pod := patched(t, req, h.Mutate(ctx, req))
	if got := pod.Spec.NodeSelector[corev1.LabelOSStable]; got != "windows" {
		t.Errorf("nodeSelector kubernetes.io/os = %q, want windows", got)
	}
	terms := requiredTerms(pod.Spec.Affinity)
	want := []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
		Key: corev1.LabelWindowsBuild, Operator: corev1.NodeSelectorOpIn, Values: []string{build2022}}}}}
	if !reflect.DeepEqual(terms, want) {
		t.Errorf("required node affinity = %+v, want %+v", terms, want)
	}
	wantTol := []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	if !reflect.DeepEqual(pod.Spec.Tolerations, wantTol) {
		t.Errorf("tolerations = %+v, want %+v", pod.Spec.Tolerations, wantTol)
	}
	if pod.Spec.OS == nil || pod.Spec.OS.Name != corev1.Windows {
		t.Errorf("spec.os = %+v, want windows", pod.Spec.OS)
	}
	note := pod.Annotations[PlacedByAnnotation]
	for _, w := range []string{"IMG-2", "SCH-3", "SCH-5", build2022, "windowsservercore-ltsc2022"} {
		if !strings.Contains(note, w) {
			t.Errorf("annotation %q does not mention %s", note, w)
		}
	}
}

// A second pass (reinvocation) over the placed pod changes nothing.
// rule: IMG-2
func TestPlacementIsIdempotent(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	req := podRequest(t, `
metadata: {name: a}
spec:
  containers: [{name: a, image: "mcr.microsoft.com/windows/nanoserver:ltsc2022"}]
`)
	pod := patched(t, req, h.Mutate(ctx, req))
	again := podRequest(t, mustYAML(t, pod))
	if resp := h.Mutate(ctx, again); resp.Patch != nil {
		t.Errorf("second pass patched again: %s", resp.Patch)
	}
}

// An image with entries for both builds needs no build term; a 2019
// image is kept on the 2019 node.
// rule: IMG-2, IMG-3
func TestPlacesByBuilds(t *testing.T) {
	resolver := fixedResolver{
		"example.com/app:multi": windowsIndex("example.com/app", build2019, build2022),
	}
	h := newTestHandler(t, Options{Resolver: resolver}, mixedNodes())
	for _, tc := range []struct {
		image  string
		builds []string
	}{
		{"example.com/app:multi", nil},
		{"mcr.microsoft.com/windows/servercore:ltsc2019", []string{build2019}},
	} {
		req := podRequest(t, `
metadata: {name: a}
spec:
  containers: [{name: a, image: "`+tc.image+`"}]
`)
		pod := patched(t, req, h.Mutate(ctx, req))
		var got []string
		for _, term := range requiredTerms(pod.Spec.Affinity) {
			for _, e := range term.MatchExpressions {
				got = append(got, e.Values...)
			}
		}
		if !reflect.DeepEqual(got, tc.builds) {
			t.Errorf("%s: windows-build affinity = %v, want %v", tc.image, got, tc.builds)
		}
		if pod.Spec.NodeSelector[corev1.LabelOSStable] != "windows" {
			t.Errorf("%s: not pinned to windows: %v", tc.image, pod.Spec.NodeSelector)
		}
	}
}

// A Linux image is pinned to Linux and gets no Windows toleration.
// rule: SCH-5
func TestPlacesLinuxImage(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	req := podRequest(t, `
metadata: {name: web}
spec:
  containers: [{name: web, image: nginx:1.27}]
`)
	pod := patched(t, req, h.Mutate(ctx, req))
	if pod.Spec.NodeSelector[corev1.LabelOSStable] != "linux" || len(pod.Spec.Tolerations) != 0 || pod.Spec.Affinity != nil {
		t.Errorf("placement = selector %v, tolerations %v, affinity %v; want linux only", pod.Spec.NodeSelector, pod.Spec.Tolerations, pod.Spec.Affinity)
	}
	if pod.Spec.OS == nil || pod.Spec.OS.Name != corev1.Linux {
		t.Errorf("spec.os = %+v, want linux", pod.Spec.OS)
	}
}

// What the pod sets stays: its selector, its tolerations, its own
// affinity term, into which the build requirement is ANDed.
// rule: IMG-2, SCH-3
func TestKeepsWhatThePodSets(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	req := podRequest(t, `
metadata: {name: a, annotations: {team: web}}
spec:
  nodeSelector: {disk: ssd}
  tolerations: [{key: dedicated, operator: Exists}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: zone, operator: In, values: [a]}]
        - matchFields: [{key: metadata.name, operator: In, values: [win2022-1]}]
  containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}]
`)
	// The disk=ssd selector matches no node here, so no node narrows the
	// pod; label the 2019 and 2022 nodes to make it match both.
	nodes := mixedNodes()
	for _, n := range nodes {
		n.Labels["disk"], n.Labels["zone"] = "ssd", "a"
	}
	h.cluster = knownCluster(36, nodes)
	pod := patched(t, req, h.Mutate(ctx, req))
	if pod.Spec.NodeSelector["disk"] != "ssd" || pod.Spec.NodeSelector[corev1.LabelOSStable] != "windows" {
		t.Errorf("nodeSelector = %v", pod.Spec.NodeSelector)
	}
	if pod.Annotations["team"] != "web" || pod.Annotations[PlacedByAnnotation] == "" {
		t.Errorf("annotations = %v", pod.Annotations)
	}
	if len(pod.Spec.Tolerations) != 2 || pod.Spec.Tolerations[0].Key != "dedicated" {
		t.Errorf("tolerations = %+v, want the pod's then os=windows", pod.Spec.Tolerations)
	}
	terms := requiredTerms(pod.Spec.Affinity)
	if len(terms) != 2 {
		t.Fatalf("terms = %+v", terms)
	}
	build := corev1.NodeSelectorRequirement{Key: corev1.LabelWindowsBuild, Operator: corev1.NodeSelectorOpIn, Values: []string{build2022}}
	if got := terms[0].MatchExpressions; len(got) != 2 || got[0].Key != "zone" || !reflect.DeepEqual(got[1], build) {
		t.Errorf("term 0 = %+v, want zone AND windows-build", got)
	}
	if got := terms[1]; len(got.MatchFields) != 1 || len(got.MatchExpressions) != 1 || !reflect.DeepEqual(got.MatchExpressions[0], build) {
		t.Errorf("term 1 = %+v, want metadata.name AND windows-build", got)
	}
}

// A pod whose own selector pins a build its image cannot run is refused
// with the IMG-2 message; in warn mode it is admitted with a warning and
// left alone.
// rule: IMG-2
func TestRefusesContradictingBuildSelector(t *testing.T) {
	manifest := `
metadata: {name: a}
spec:
  nodeSelector: {node.kubernetes.io/windows-build: "10.0.17763"}
  containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}]
`
	for _, nodes := range [][]*corev1.Node{mixedNodes(), nil} {
		h := newTestHandler(t, Options{}, nodes)
		mustDeny(t, h.Mutate(ctx, podRequest(t, manifest)), "IMG-2", "spec.nodeSelector[node.kubernetes.io/windows-build]=10.0.17763", "ltsc2022", "10.0.17763")
	}
	h := newTestHandler(t, Options{Mode: ModeWarn}, mixedNodes())
	resp := h.Mutate(ctx, podRequest(t, manifest))
	if !resp.Allowed || resp.Patch != nil || !warningWith(resp, "IMG-2") {
		t.Errorf("warn mode: allowed=%v patch=%s warnings=%q; want allowed, unchanged, IMG-2 warning", resp.Allowed, resp.Patch, resp.Warnings)
	}
}

// The pod's OS selector, its nodeName and its RuntimeClass's scheduling
// contradict a Windows 2022 image.
// rule: IMG-4, IMG-2, SCH-4
func TestRefusesContradictingPlacement(t *testing.T) {
	rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "windows-2019"}, Handler: "runhcs-wcow-process",
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{corev1.LabelOSStable: "windows", corev1.LabelWindowsBuild: build2019}}}
	h := newTestHandler(t, Options{}, mixedNodes(), rc)
	image := `containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}]`
	for _, tc := range []struct {
		spec string
		want []string
	}{
		{"nodeSelector: {kubernetes.io/os: linux}", []string{"IMG-4", "spec.nodeSelector[kubernetes.io/os]=linux", "no match for platform in manifest"}},
		{"nodeName: linux-1", []string{"IMG-4", "spec.nodeName=linux-1", "linux-1 (linux)"}},
		{"nodeName: win2019-1", []string{"IMG-2", "win2019-1 (windows 10.0.17763)"}},
		{"runtimeClassName: windows-2019", []string{"IMG-2", "RuntimeClass windows-2019"}},
		{"nodeSelector: {kubernetes.io/os: windows}\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: node.kubernetes.io/windows-build, operator: In, values: [\"10.0.17763\"]}]}]}}}",
			[]string{"IMG-2", "windows-build In (10.0.17763)"}},
	} {
		req := podRequest(t, "metadata: {name: a}\nspec:\n  "+tc.spec+"\n  "+image)
		mustDeny(t, h.Mutate(ctx, req), tc.want...)
	}
}

// A pod whose images need different OSes is refused.
// rule: LIM-1
func TestRefusesMixedOSImages(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	req := podRequest(t, `
metadata: {name: a}
spec:
  initContainers: [{name: setup, image: busybox}]
  containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}]
`)
	mustDeny(t, h.Mutate(ctx, req), "LIM-1", "Windows and Linux containers cannot share a pod", "spec.initContainers[0].image")
}

// An image nobody knows places nothing and is named in a warning.
// rule: IMG-3
func TestUnknownImageIsNotPlaced(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	resp := h.Mutate(ctx, podRequest(t, `
metadata: {name: a}
spec:
  containers: [{name: a, image: "registry.example.com/team/app:v3"}]
`))
	if !resp.Allowed || resp.Patch != nil || !warningWith(resp, "registry.example.com/team/app:v3") {
		t.Errorf("allowed=%v patch=%s warnings=%q; want allowed unchanged with a warning naming the image", resp.Allowed, resp.Patch, resp.Warnings)
	}
}

// An image no node of the cluster runs gets no placement, which would
// only move the failure: the pod is admitted as it is, with the rule it
// meets where it lands, as lint names it (the Linux node, for want of an
// OS selector), and the image's own verdict.
// rule: SCH-5
func TestImageThatRunsNowhereIsNotPlaced(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	resp := h.Mutate(ctx, podRequest(t, `
metadata: {name: a}
spec:
  containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2016"}]
`))
	if !resp.Allowed || resp.Patch != nil {
		t.Fatalf("allowed=%v patch=%s; want admitted unchanged", resp.Allowed, resp.Patch)
	}
	if len(resp.Warnings) != 1 || !warningWith(resp, "winkube (SCH-5): spec.containers[0].image mcr.microsoft.com/windows/servercore:ltsc2016 runs on no node of the cluster, so the pod was not placed; it fails on linux-1 (linux)") ||
		!warningWith(resp, "no match for platform in manifest") {
		t.Errorf("warnings = %q", resp.Warnings)
	}
}

// A HostProcess pod runs on the host, whatever its build: pinned to
// Windows and tolerated, with no build term.
// rule: API-6, IMG-2, SCH-3
func TestHostProcessPodGetsNoBuildTerm(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	req := podRequest(t, `
metadata: {name: kube-proxy}
spec:
  hostNetwork: true
  securityContext: {windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\SYSTEM"}}
  containers: [{name: kube-proxy, image: "sigwindowstools/kube-proxy:v1.36.3-flannel-hostprocess"}]
`)
	pod := patched(t, req, h.Mutate(ctx, req))
	if pod.Spec.NodeSelector[corev1.LabelOSStable] != "windows" || pod.Spec.Affinity != nil || len(pod.Spec.Tolerations) != 1 {
		t.Errorf("selector %v affinity %+v tolerations %+v; want windows, none, the Windows toleration", pod.Spec.NodeSelector, pod.Spec.Affinity, pod.Spec.Tolerations)
	}
}

// spec.os.name is not set when it would make the API server refuse the
// pod: runAsUser cannot be set for a windows pod.
// rule: API-2, SCH-2
func TestSpecOSNotSetWhenItBreaksValidation(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	req := podRequest(t, `
metadata: {name: a}
spec:
  securityContext: {runAsUser: 1000}
  containers: [{name: a, image: "mcr.microsoft.com/windows/nanoserver:ltsc2022"}]
`)
	resp := h.Mutate(ctx, req)
	pod := patched(t, req, resp)
	if pod.Spec.OS != nil || pod.Spec.NodeSelector[corev1.LabelOSStable] != "windows" {
		t.Errorf("spec.os = %+v, selector %v; want no os, windows selector", pod.Spec.OS, pod.Spec.NodeSelector)
	}
	if !warningWith(resp, "runAsUser") {
		t.Errorf("warnings %q do not say why spec.os was not set", resp.Warnings)
	}
}

// Without node knowledge the OS, the toleration and spec.os are still
// added; the build term needs the nodes.
// rule: SCH-3, SCH-5
func TestPlacesWithoutNodes(t *testing.T) {
	h := newTestHandler(t, Options{WindowsTaint: "node-role/windows:NoExecute"}, nil)
	req := podRequest(t, `
metadata: {name: a}
spec:
  containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}]
`)
	pod := patched(t, req, h.Mutate(ctx, req))
	want := []corev1.Toleration{{Key: "node-role/windows", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
	if pod.Spec.Affinity != nil || !reflect.DeepEqual(pod.Spec.Tolerations, want) || pod.Spec.NodeSelector[corev1.LabelOSStable] != "windows" {
		t.Errorf("affinity %+v tolerations %+v selector %v", pod.Spec.Affinity, pod.Spec.Tolerations, pod.Spec.NodeSelector)
	}
}

// errorResolver fails every look-up and falls back to the catalog, as a
// registry resolver does when the registry is down.
type errorResolver struct{}

func (errorResolver) Resolve(_ context.Context, req imageinfo.Request) imageinfo.Answer {
	a := imageinfo.CatalogAnswer(req.Ref)
	a.Err = errors.New("dial tcp: connection refused")
	return a
}

// slowResolver answers after the decision's budget, ignoring it.
type slowResolver struct{ release chan struct{} }

func (r slowResolver) Resolve(_ context.Context, req imageinfo.Request) imageinfo.Answer {
	<-r.release
	return imageinfo.Answer{Source: imageinfo.SourceUnknown}
}

// A failing registry: the catalog places the pod (with a warning), or
// with --on-registry-error=allow the pod is admitted unchanged. A registry
// slower than the timeout is a failure too.
func TestRegistryErrors(t *testing.T) {
	manifest := `
metadata: {name: a}
spec:
  containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}]
`
	h := newTestHandler(t, Options{Resolver: errorResolver{}}, mixedNodes())
	req := podRequest(t, manifest)
	resp := h.Mutate(ctx, req)
	if pod := patched(t, req, resp); pod.Spec.NodeSelector[corev1.LabelOSStable] != "windows" || !warningWith(resp, "connection refused") {
		t.Errorf("catalog fallback: selector %v warnings %q", pod.Spec.NodeSelector, resp.Warnings)
	}

	h = newTestHandler(t, Options{Resolver: errorResolver{}, OnRegistryError: OnRegistryErrorAllow}, mixedNodes())
	if resp := h.Mutate(ctx, podRequest(t, manifest)); !resp.Allowed || resp.Patch != nil || !warningWith(resp, "admitted unchanged") {
		t.Errorf("allow: allowed=%v patch=%s warnings=%q", resp.Allowed, resp.Patch, resp.Warnings)
	}

	slow := slowResolver{release: make(chan struct{})}
	defer close(slow.release)
	h = newTestHandler(t, Options{Resolver: slow, RegistryTimeout: 20 * time.Millisecond}, mixedNodes())
	req = podRequest(t, manifest)
	resp = h.Mutate(ctx, req)
	if pod := patched(t, req, resp); pod.Spec.NodeSelector[corev1.LabelOSStable] != "windows" || !warningWith(resp, "deadline exceeded") {
		t.Errorf("slow registry: selector %v warnings %q", pod.Spec.NodeSelector, resp.Warnings)
	}
}

// Only pod creation is placed.
func TestMutateIgnoresOtherRequests(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	req := podRequest(t, `{metadata: {name: a}, spec: {containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}]}}`)
	req.Operation = admissionv1.Update
	if resp := h.Mutate(ctx, req); !resp.Allowed || resp.Patch != nil {
		t.Errorf("update: allowed=%v patch=%s", resp.Allowed, resp.Patch)
	}
}

func mustYAML(t *testing.T, pod *corev1.Pod) string {
	t.Helper()
	b, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
