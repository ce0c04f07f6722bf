// Package report is what `winkube image` tells about images: each image's
// platforms, the Windows release of each build (IMG-1), and which node
// groups of a cluster run it (IMG-2, IMG-4), as data and as text or JSON.
// The command only reads flags, the registry credentials and the cluster's
// nodes.
package report

import (
	"context"
	"strings"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/windows"
)

// Report is what `winkube image` says about one image: its platforms and,
// when a cluster was read, which node groups run it.
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
	// Rule is the rule that says it does not run (IMG-2, IMG-4), and
	// Stage where it fails on the group's runtime (pull, start).
	Rule  string `json:"rule,omitempty"`
	Stage string `json:"stage,omitempty"`
}

// Describe resolves every ref and, when groups is not nil, fits each image
// to each group.
func Describe(ctx context.Context, r imageinfo.Resolver, refs []string, secrets [][]byte, groups []NodeGroup) []Report {
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

// fit is the rule book's verdict (windows.ImageOnHost: IMG-4, what the
// runtime pulls; IMG-2, whether it starts) for one node group.
func fit(img imageinfo.Image, g NodeGroup) PoolFit {
	f := PoolFit{Pool: g.Name(), Platform: g.Platform(), Runtime: g.Runtime, Nodes: g.Nodes}
	v := img.OnHost(windows.Host{OS: g.OS, Arch: g.Arch, Build: g.Build, Runtime: g.Runtime})
	if v.Entry.OS != "" {
		f.Entry = v.Entry.String()
	}
	if !v.Runs {
		f.Reason, f.Rule, f.Stage = v.Detail, v.Rule, string(v.Stage)
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
