package doctor

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// sandboxImageRE finds the pause image in a FailedCreatePodSandBox message
// (containerd: failed to get sandbox image "..."; Docker: failed pulling
// image "...").
var sandboxImageRE = regexp.MustCompile(`(?:sandbox image|failed pulling image) "([^"]+)"`)

// checkSandboxes: TS-11, pods that stay ContainerCreating because their
// sandbox does not start; a pause image without an entry for the node's
// Windows build (IMG-5) is the case the seeds name.
func checkSandboxes(a *audit) []Finding {
	latest := map[string]*corev1.Event{}
	for _, e := range a.s.Events {
		if e.Reason != "FailedCreatePodSandBox" || e.InvolvedObject.Kind != "Pod" {
			continue
		}
		key := e.InvolvedObject.Namespace + "/" + e.InvolvedObject.Name
		if old, ok := latest[key]; !ok || eventTime(e).After(eventTime(old)) {
			latest[key] = e
		}
	}
	keys := make([]string, 0, len(latest))
	for k := range latest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Finding
	for _, k := range keys {
		p, ok := a.pods[k]
		if !ok || p.Status.Phase != corev1.PodPending || a.nodes[p.Spec.NodeName] == nil {
			continue // gone, or its sandbox started since
		}
		out = append(out, a.sandboxFinding(p, a.nodes[p.Spec.NodeName], latest[k]))
	}
	return out
}

func (a *audit) sandboxFinding(p *corev1.Pod, n *corev1.Node, e *corev1.Event) Finding {
	f := Finding{
		Finding: rules.New("TS-11", "", fmt.Sprintf("pod %s/%s stays ContainerCreating on %s: its sandbox does not start", p.Namespace, p.Name, describeNode(n))).
			WithFix(fmt.Sprintf("kubectl -n %s describe pod %s and fix what the event names", p.Namespace, p.Name)),
		Objects:  []Object{podObject(p), nodeObject(n.Name)},
		Evidence: fmt.Sprintf("event FailedCreatePodSandBox (x%d): %s", max(e.Count, 1), e.Message),
	}
	if !platformFailure(e.Message) || !isWindowsNode(n) {
		return f
	}
	img := ""
	if m := sandboxImageRE.FindStringSubmatch(e.Message); m != nil {
		img = m[1]
	}
	f.Finding = rules.New("TS-11", "pause-image",
		fmt.Sprintf("pod %s/%s stays ContainerCreating on %s: the pause (sandbox) image %s has no entry for the node's Windows build, so no pod there can start", p.Namespace, p.Name, describeNode(n), img)).
		WithFix(a.pauseFix(p, n))
	if img != "" {
		f.Evidence += fmt.Sprintf("; %s offers %s", img, platforms(a.s.image(img)))
	}
	return f
}

// pauseFix names a pause image that runs on the node's build (IMG-5).
func (a *audit) pauseFix(p *corev1.Pod, n *corev1.Node) string {
	var fix string
	if good := pauseFor(n, a.s.K8sMinor); good != "" {
		fix = fmt.Sprintf("set the node's sandbox image to %s (containerd config.toml sandbox_image, or kubelet --pod-infra-container-image; winkube: the node pool's pauseImage)", good)
	} else {
		fix = "set the node's sandbox image to a pause image with an entry for its Windows build (containerd config.toml sandbox_image, or kubelet --pod-infra-container-image)"
	}
	if v := p.Annotations[annotations.SandboxImage]; v != "" {
		fix += fmt.Sprintf("; this pod overrides it with the annotation %s=%s: remove it", annotations.SandboxImage, v)
	}
	return fix
}

// pauseFor is the first IMG-5 pause image that pulls and starts on n.
func pauseFor(n *corev1.Node, minor int) string {
	if minor == 0 {
		minor = kubeversion.DefaultMinor
	}
	host := windows.HostOf(n)
	for _, ref := range windows.PauseImages(minor) {
		pause := imageinfo.Lookup(ref).Offer()
		pause.Sandbox = true
		if windows.ImageOnHost(pause, host).Runs {
			return ref
		}
	}
	return ""
}

// platformFailure: the runtime's words for an image that does not fit the
// host (IMG-4): no entry to pull, or HCS refusing the build.
func platformFailure(msg string) bool {
	_, ok := windows.FailureStage(msg)
	return ok
}

// platforms renders an image's platforms: "linux/amd64, windows/amd64:10.0.17763".
func platforms(img imageinfo.Image) string {
	var parts []string
	for _, p := range img.Platforms {
		parts = append(parts, p.String())
	}
	s := strings.Join(parts, ", ")
	if !img.Known {
		s += " (not in winkube's catalog: a guess)"
	}
	return s
}

// eventTime is when an event last happened, whichever field its source
// filled.
func eventTime(e *corev1.Event) time.Time {
	for _, t := range []time.Time{e.LastTimestamp.Time, e.EventTime.Time, e.FirstTimestamp.Time} {
		if !t.IsZero() {
			return t
		}
	}
	return e.CreationTimestamp.Time
}
