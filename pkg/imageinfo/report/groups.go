package report

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/windows"
)

// labelPool names a winkube node's pool (the node agent sets it).
const labelPool = annotations.LabelPool

// NodeGroup is a set of nodes that run the same images: same pool (when
// winkube made them), OS, architecture, Windows build and runtime.
type NodeGroup struct {
	Pool    string        `json:"pool,omitempty"`
	OS      string        `json:"os"`
	Arch    string        `json:"arch"`
	Build   windows.Build `json:"-"`
	Runtime string        `json:"runtime"`
	Nodes   []string      `json:"nodes"`
}

// Name is the pool, or the platform when the nodes have no pool label.
func (g NodeGroup) Name() string {
	if g.Pool != "" {
		return g.Pool
	}
	return g.Platform()
}

// Platform renders "windows/amd64 10.0.20348" or "linux/arm64".
func (g NodeGroup) Platform() string {
	s := g.OS + "/" + g.Arch
	if !g.Build.IsZero() {
		s += " " + g.Build.Label()
	}
	return s
}

// Groups sorts nodes into groups that run the same images. The Windows
// build comes from the node.kubernetes.io/windows-build label (SCH-1), else
// from the kernel version the kubelet reports; the runtime from the
// runtime version ("docker://" is Docker, anything else containerd).
func Groups(nodes []corev1.Node) []NodeGroup {
	byKey := map[string]*NodeGroup{}
	var keys []string
	for _, n := range nodes {
		g := groupOf(n)
		key := strings.Join([]string{g.Pool, g.OS, g.Arch, g.Build.String(), g.Runtime}, "|")
		if existing, ok := byKey[key]; ok {
			existing.Nodes = append(existing.Nodes, n.Name)
			continue
		}
		g.Nodes = []string{n.Name}
		byKey[key] = &g
		keys = append(keys, key)
	}
	sort.Strings(keys)
	out := make([]NodeGroup, 0, len(keys))
	for _, k := range keys {
		g := byKey[k]
		sort.Strings(g.Nodes)
		out = append(out, *g)
	}
	return out
}

// groupOf reads the node's facts with windows.HostOf; the build drops its
// revision, which never decides whether an image runs (IMG-2).
func groupOf(n corev1.Node) NodeGroup {
	h := windows.HostOf(&n)
	return NodeGroup{Pool: n.Labels[labelPool], OS: h.OS, Arch: h.Arch, Build: h.Build.WithoutRevision(), Runtime: h.Runtime}
}
