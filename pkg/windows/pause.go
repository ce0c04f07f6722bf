package windows

// Pause (sandbox) images (IMG-5).
const (
	// PauseImageSeed004 is the oldest pause image the seeds name
	// (seed 004, mcr.microsoft.com/k8s/core/pause).
	PauseImageSeed004 = "mcr.microsoft.com/k8s/core/pause:1.2.0"
	// PauseImageSeed000 is Microsoft's pause image in seed 000 (1.17–1.20
	// era); it carries wincat, which kubectl port-forward needs from 1.15.
	PauseImageSeed000 = "mcr.microsoft.com/oss/kubernetes/pause:1.4.1"
	// PauseImageUpstream36 is the upstream multi-OS pause image seed 002
	// recommends for 1.27.
	PauseImageUpstream36 = "registry.k8s.io/pause:3.6"
	// PauseImageMicrosoft36 is Microsoft's Authenticode-signed build of the
	// same sources, recommended where signed binaries are required.
	PauseImageMicrosoft36 = "mcr.microsoft.com/oss/kubernetes/pause:3.6"
)

// kubeletPauseTags is the pause tag kubeadm and the kubelet defaulted to per
// Kubernetes minor (first minor of each tag).
var kubeletPauseTags = []struct {
	minor int
	tag   string
}{
	{21, "3.4.1"},
	{22, "3.5"},
	{23, "3.6"},
	{24, "3.7"},
	{25, "3.8"},
	{26, "3.9"},
	{31, "3.10"},
	{34, "3.10.1"},
	{36, "3.10.2"},
}

// DefaultPauseImage is registry.k8s.io/pause at the tag Kubernetes
// 1.<k8sMinor> uses by default, or "" before 1.21 (when the upstream pause
// image was not yet built for Windows).
func DefaultPauseImage(k8sMinor int) string {
	tag := ""
	for _, row := range kubeletPauseTags {
		if row.minor <= k8sMinor {
			tag = row.tag
		}
	}
	if tag == "" {
		return ""
	}
	return "registry.k8s.io/pause:" + tag
}

// PauseImages implements IMG-5: the pause images suitable for Windows nodes
// of Kubernetes 1.<k8sMinor>, the recommended one first. Up to 1.14 that is
// seed 004's image; 1.15–1.20 seed 000's 1.4.1 (with wincat for
// port-forward); from 1.21 the upstream multi-OS image: 3.6 (seed 002's
// recommendation, which still runs on every supported build, including 2025
// through its ltsc2022 entry), Microsoft's signed 3.6, then the release's
// own default tag.
func PauseImages(k8sMinor int) []string {
	switch {
	case k8sMinor <= 14:
		return []string{PauseImageSeed004}
	case k8sMinor <= 20:
		return []string{PauseImageSeed000}
	case k8sMinor <= 22:
		return []string{DefaultPauseImage(k8sMinor), PauseImageSeed000}
	}
	out := []string{PauseImageUpstream36, PauseImageMicrosoft36}
	if def := DefaultPauseImage(k8sMinor); def != PauseImageUpstream36 {
		out = append(out, def)
	}
	return out
}

// RecommendedPauseImage is the first of PauseImages.
func RecommendedPauseImage(k8sMinor int) string {
	return PauseImages(k8sMinor)[0]
}
