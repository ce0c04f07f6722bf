// Package upstreamversion makes the upstream Kubernetes components report the
// release they were built from, however winkube itself was built.
//
// component-base/version keeps the version in unexported variables that the
// Kubernetes release build fills with -ldflags -X. winkube is built with plain
// go build / go run / go install, so without this package kube-apiserver would
// report "v0.0.0-master+$Format:%H$" and clients that gate features on the
// server version (kubectl, Helm, client-go discovery) would misbehave.
package upstreamversion

import (
	"fmt"
	"sync/atomic"
	_ "unsafe" // for go:linkname

	"k8s.io/apimachinery/pkg/util/version"
	_ "k8s.io/component-base/version" // the package whose variables are linked below

	"github.com/winkube/winkube/pkg/kubeversion"
)

const (
	// UpstreamVersion is the k8s.io/kubernetes release pinned in go.mod
	// (kubeversion's test holds the two together; the controlplane tests
	// check /version against it).
	UpstreamVersion = kubeversion.Default
	// UpstreamBuildDate is the commit time of the UpstreamVersion tag, as the Go
	// module proxy reports it.
	UpstreamBuildDate = "2026-07-22T18:07:38Z"
	// UpstreamCommit would be the tag's commit; the module zip does not carry it,
	// so say so rather than invent a hash.
	UpstreamCommit = "unknown"
)

//go:linkname gitVersion k8s.io/component-base/version.gitVersion
var gitVersion string

//go:linkname gitMajor k8s.io/component-base/version.gitMajor
var gitMajor string

//go:linkname gitMinor k8s.io/component-base/version.gitMinor
var gitMinor string

//go:linkname gitCommit k8s.io/component-base/version.gitCommit
var gitCommit string

//go:linkname gitTreeState k8s.io/component-base/version.gitTreeState
var gitTreeState string

//go:linkname buildDate k8s.io/component-base/version.buildDate
var buildDate string

// dynamicGitVersion is what version.Get() actually returns as GitVersion; it
// was stored from gitVersion at init, before Set could run.
//
//go:linkname dynamicGitVersion k8s.io/component-base/version.dynamicGitVersion
var dynamicGitVersion atomic.Value

// Set stamps UpstreamVersion into component-base/version. Call it before an
// upstream command is constructed; it is meant for the component child
// processes, which run exactly one upstream command each.
func Set() {
	v := version.MustParseSemantic(UpstreamVersion)
	gitVersion = UpstreamVersion
	gitMajor = fmt.Sprint(v.Major())
	gitMinor = fmt.Sprint(v.Minor())
	gitCommit = UpstreamCommit
	gitTreeState = "clean"
	buildDate = UpstreamBuildDate
	dynamicGitVersion.Store(UpstreamVersion)
}
