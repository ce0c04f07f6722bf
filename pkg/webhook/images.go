package webhook

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/imageinfo"
)

// podImage is one init or regular container's image and what is known of
// it. Ephemeral containers are left out: they join a running pod and do
// not decide where it is placed.
type podImage struct {
	path string // e.g. spec.containers[0].image
	ref  string
	ans  imageinfo.Answer
}

// known reports whether the answer says anything about the image: an
// unknown image constrains nothing.
func (pi *podImage) known() bool { return pi.ans.Source != imageinfo.SourceUnknown }

// podImages lists the spec's init and regular containers' images.
func podImages(spec *corev1.PodSpec, path *field.Path) []podImage {
	out := make([]podImage, 0, len(spec.InitContainers)+len(spec.Containers))
	for i, c := range spec.InitContainers {
		out = append(out, podImage{path: path.Child("initContainers").Index(i).Child("image").String(), ref: c.Image})
	}
	for i, c := range spec.Containers {
		out = append(out, podImage{path: path.Child("containers").Index(i).Child("image").String(), ref: c.Image})
	}
	return out
}

// resolution is the outcome of resolving a pod's images.
type resolution struct {
	images   []podImage
	warnings []string
	// failed is set when a registry look-up failed (Answer.Err).
	failed bool
}

// resolve answers every image concurrently within the registry timeout.
// An image whose answer does not come in time gets the catalog's answer
// with the deadline as its error, so a slow registry never holds the
// decision longer than the timeout.
func (h *Handler) resolve(ctx context.Context, pod *corev1.Pod, spec *corev1.PodSpec, path *field.Path) resolution {
	res := resolution{images: podImages(spec, path)}
	if len(res.images) == 0 {
		return res
	}
	if h.catalog != nil {
		// The catalog does no I/O: no deadline, no goroutines.
		for i := range res.images {
			res.images[i].ans = h.catalog.answer(res.images[i].ref)
		}
		res.note(h)
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, h.s.registryTimeout)
	defer cancel()
	secrets := h.pullSecrets(ctx, pod, &res)
	refs := map[string][]int{}
	for i, pi := range res.images {
		refs[pi.ref] = append(refs[pi.ref], i)
	}
	type answer struct {
		ref string
		ans imageinfo.Answer
	}
	answers := make(chan answer, len(refs)) // buffered: late answers never block
	for ref := range refs {
		go func(ref string) {
			answers <- answer{ref, h.resolveOne(ctx, ref, secrets)}
		}(ref)
	}
	got := map[string]imageinfo.Answer{}
	for len(got) < len(refs) {
		select {
		case a := <-answers:
			got[a.ref] = a.ans
		case <-ctx.Done():
			for ref := range refs {
				if _, ok := got[ref]; !ok {
					a := imageinfo.CatalogAnswer(ref)
					a.Err = fmt.Errorf("registry look-up of %s: %w", ref, ctx.Err())
					got[ref] = a
				}
			}
		}
	}
	for ref, idx := range refs {
		for _, i := range idx {
			res.images[i].ans = got[ref]
		}
	}
	res.note(h)
	return res
}

// resolveOne asks the resolver, turning a panic into an error answer.
func (h *Handler) resolveOne(ctx context.Context, ref string, secrets [][]byte) (ans imageinfo.Answer) {
	defer func() {
		if p := recover(); p != nil {
			ans = imageinfo.CatalogAnswer(ref)
			ans.Err = fmt.Errorf("resolver panic: %v", p)
		}
	}()
	return h.s.resolver.Resolve(ctx, imageinfo.Request{Ref: ref, PullSecrets: secrets})
}

// pullSecrets reads the pod's pull secrets; a failure is a warning and the
// look-ups go on with what was read (anonymous at worst).
func (h *Handler) pullSecrets(ctx context.Context, pod *corev1.Pod, res *resolution) [][]byte {
	if h.secrets == nil || pod == nil {
		return nil
	}
	secrets, err := h.secrets(ctx, pod)
	if err != nil {
		res.warnings = append(res.warnings, fmt.Sprintf("winkube: %v; registry look-ups used the secrets that could be read", err))
	}
	return secrets
}

// note records the metrics and the warnings for registry errors and
// unknown images.
func (res *resolution) note(h *Handler) {
	seen := map[string]bool{}
	var failed, unknown []string
	for _, pi := range res.images {
		if seen[pi.ref] {
			continue
		}
		seen[pi.ref] = true
		h.metrics.answers.WithLabelValues(string(pi.ans.Source)).Inc()
		if pi.ans.Err != nil {
			h.metrics.registryErrors.Inc()
			res.failed = true
			h.s.logf("webhook: %s: %v", pi.ref, pi.ans.Err)
			failed = append(failed, fmt.Sprintf("%s (%v)", pi.ref, pi.ans.Err))
		}
		if !pi.known() {
			unknown = append(unknown, pi.ref)
		}
	}
	sort.Strings(failed)
	sort.Strings(unknown)
	if len(failed) > 0 {
		what := "placed from winkube's catalog instead"
		if h.s.allowOnError {
			what = "admitted unchanged"
		}
		res.warnings = append(res.warnings, fmt.Sprintf("winkube: the registry did not answer for %s; %s", strings.Join(failed, ", "), what))
	}
	if len(unknown) > 0 {
		res.warnings = append(res.warnings, fmt.Sprintf("winkube (IMG-3): the OS and Windows build of %s are unknown, so they do not decide placement; pin the OS in nodeSelector", strings.Join(unknown, ", ")))
	}
}

// imageOSes intersects the OSes the known images offer: nil when no image
// is known, empty when they share none (LIM-1).
func imageOSes(images []podImage) map[string]bool {
	var common map[string]bool
	for i := range images {
		pi := &images[i]
		if !pi.known() {
			continue
		}
		oses := map[string]bool{}
		for _, os := range pi.ans.Image.OSes() {
			if os == "linux" || os == "windows" {
				oses[os] = true
			}
		}
		if common == nil {
			common = oses
			continue
		}
		for os := range common {
			if !oses[os] {
				delete(common, os)
			}
		}
	}
	return common
}

// catalogMemo remembers the catalog's answers: the catalog never changes,
// and parsing tags is most of a warm decision's work. It is bounded: when
// full it starts over.
type catalogMemo struct {
	mu      sync.Mutex
	answers map[string]imageinfo.Answer
}

const catalogMemoSize = 4096

func (m *catalogMemo) answer(ref string) imageinfo.Answer {
	m.mu.Lock()
	a, ok := m.answers[ref]
	m.mu.Unlock()
	if ok {
		return a
	}
	a = imageinfo.CatalogAnswer(ref)
	m.mu.Lock()
	if len(m.answers) >= catalogMemoSize {
		m.answers = map[string]imageinfo.Answer{}
	}
	m.answers[ref] = a
	m.mu.Unlock()
	return a
}
