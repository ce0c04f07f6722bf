package upstreamversion

import (
	"testing"

	"k8s.io/component-base/version"
)

func TestSet(t *testing.T) {
	Set()
	got := version.Get()
	if got.GitVersion != UpstreamVersion || got.Major != "1" || got.Minor != "36" {
		t.Errorf("version.Get() = %s (major %q, minor %q), want %s (major \"1\", minor \"36\")",
			got.GitVersion, got.Major, got.Minor, UpstreamVersion)
	}
	if got.GitTreeState != "clean" || got.BuildDate != UpstreamBuildDate {
		t.Errorf("tree state %q, build date %q; want clean, %s", got.GitTreeState, got.BuildDate, UpstreamBuildDate)
	}
}
