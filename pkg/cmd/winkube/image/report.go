package image

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/windows"
)

// labelPool names a winkube node's pool (the node agent sets it).
const labelPool = "winkube.io/pool"

// Report is what the command says about one image.
type Report struct {
	Image  string           `json:"image"`
	Source imageinfo.Source `json:"source"`
	Index  bool             `json:"index"`
	Known  bool             `json:"known"`
	Error  string           `json:"error,omitempty"`
	// Missing says why the image cannot be pulled at all (a tag the
	// repository does not publish, a registry name that does not resolve).
	Missing   string           `json:"missing,omitempty"`
	Platforms []PlatformReport `json:"platforms"`
	// Pools is set when a cluster was read: which node groups run the image.
	Pools []PoolFit `json:"pools,omitempty"`
}

// PlatformReport is one platform of an image.
type PlatformReport struct {
	OS           string   `json:"os"`
	Architecture string   `json:"architecture"`
	OSVersion    string   `json:"osVersion,omitempty"`
	OSFeatures   []string `json:"osFeatures,omitempty"`
	// Release names the Windows release of OSVersion (IMG-1).
	Release string `json:"release,omitempty"`
}

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

// PoolFit says whether one node group runs an image (IMG-2, IMG-4).
type PoolFit struct {
	Pool     string   `json:"pool"`
	Platform string   `json:"platform"`
	Runtime  string   `json:"runtime"`
	Nodes    []string `json:"nodes"`
	Runs     bool     `json:"runs"`
	// Entry is the platform the runtime would pull, when it pulls one.
	Entry string `json:"entry,omitempty"`
	// Reason says why the image does not run there.
	Reason string `json:"reason,omitempty"`
}

// describe resolves every ref and, when groups is not nil, fits each image
// to each group.
func describe(ctx context.Context, r imageinfo.Resolver, refs []string, secrets [][]byte, groups []NodeGroup) []Report {
	out := make([]Report, 0, len(refs))
	for _, ref := range refs {
		a := r.Resolve(ctx, imageinfo.Request{Ref: ref, PullSecrets: secrets})
		rep := Report{Image: a.Image.Ref(), Source: a.Source, Index: a.Image.Index, Known: a.Image.Known && a.Source != imageinfo.SourceUnknown}
		if a.Err != nil {
			rep.Error = a.Err.Error()
		}
		if m := registry.Missing(a.Err); m != nil {
			a.Image.Missing = m
		}
		if a.Image.Missing != nil {
			rep.Missing, rep.Known = a.Image.Missing.Error(), false
		}
		for _, p := range a.Image.Platforms {
			rep.Platforms = append(rep.Platforms, PlatformReport{OS: p.OS, Architecture: p.Architecture,
				OSVersion: p.OSVersion, OSFeatures: p.OSFeatures, Release: releaseOf(p)})
		}
		if a.Source != imageinfo.SourceUnknown {
			for _, g := range groups {
				rep.Pools = append(rep.Pools, fit(a.Image, g))
			}
		}
		out = append(out, rep)
	}
	return out
}

// fit applies IMG-4 (what the runtime pulls) and IMG-2 (whether it starts)
// for one node group.
func fit(img imageinfo.Image, g NodeGroup) PoolFit {
	f := PoolFit{Pool: g.Name(), Platform: g.Platform(), Runtime: g.Runtime, Nodes: g.Nodes}
	p, err := imageinfo.PullPlatform(img, g.Runtime, g.OS, g.Arch, g.Build)
	if err != nil {
		f.Reason = err.Error()
		// MatchHost words an OS or architecture mismatch, and containerd's
		// build mismatch, more precisely; Docker's build filter is its own.
		_, m := imageinfo.MatchHost(img, g.OS, g.Arch, g.Build)
		if m != nil && (!errors.Is(m, imageinfo.ErrOSVersionMismatch) || g.Runtime != imageinfo.RuntimeDocker) {
			f.Reason = m.Error()
		}
		return f
	}
	f.Entry = p.String()
	if !imageinfo.StartsOn(p, g.Build) {
		f.Reason = fmt.Sprintf("pulls %s, then the container fails to start: %q (HCS 0xc0370101)", p, imageinfo.ErrOSVersionMismatch.Error())
		return f
	}
	f.Runs = true
	return f
}

// releaseOf names the Windows release of an entry's os.version.
func releaseOf(p imageinfo.Platform) string {
	if !strings.EqualFold(p.OS, "windows") || p.OSVersion == "" {
		return ""
	}
	b, err := windows.ParseBuild(p.OSVersion)
	if err != nil {
		return "unreadable os.version"
	}
	r, ok := windows.ReleaseByBuild(b.Build)
	if !ok {
		return "unknown build " + b.Label()
	}
	name := "Windows Server " + r.Name()
	if r.LTSC {
		name += " (LTSC)"
	}
	return name
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

func groupOf(n corev1.Node) NodeGroup {
	info := n.Status.NodeInfo
	g := NodeGroup{
		Pool:    n.Labels[labelPool],
		OS:      firstNonEmpty(n.Labels[windows.LabelOS], info.OperatingSystem, "linux"),
		Arch:    firstNonEmpty(n.Labels[windows.LabelArch], info.Architecture, "amd64"),
		Runtime: imageinfo.RuntimeContainerd,
	}
	if strings.HasPrefix(info.ContainerRuntimeVersion, "docker://") {
		g.Runtime = imageinfo.RuntimeDocker
	}
	if g.OS == "windows" {
		if b, err := windows.ParseBuild(n.Labels[windows.LabelWindowsBuild]); err == nil {
			g.Build = b
		} else if b, err := windows.ParseBuild(info.KernelVersion); err == nil {
			g.Build = b.WithoutRevision()
		}
	}
	return g
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
