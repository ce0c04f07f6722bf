package windows

import (
	"errors"
	"strings"
	"testing"
)

func TestImageOnHost(t *testing.T) {
	win := func(v string) Platform { return Platform{OS: "windows", Architecture: "amd64", OSVersion: v} }
	linux := Platform{OS: "linux", Architecture: "amd64"}
	host2019 := func(runtime string) Host {
		return Host{OS: "windows", Arch: "amd64", Build: Build{10, 0, 17763, 0}, Runtime: runtime}
	}
	index := func(ps ...Platform) ImagePlatforms {
		return ImagePlatforms{Ref: "example/app:1", Index: true, Platforms: ps}
	}
	tests := []struct {
		name  string
		img   ImagePlatforms
		host  Host
		rule  string
		stage Stage
		words string
	}{
		// rule: IMG-2, IMG-4: containerd filters the index by build at pull.
		{"containerd, index without the build", index(win("10.0.20348.1")), host2019(RuntimeContainerd), "IMG-2", StagePull, "no match for platform in manifest: not found"},
		// rule: IMG-2, IMG-4: Docker drops only newer entries at pull.
		{"docker, only newer entries", index(win("10.0.20348.1")), host2019(RuntimeDocker), "IMG-2", StagePull, "no matching manifest for windows/amd64 10.0.17763 in the manifest list entries"},
		// rule: IMG-2, IMG-4: Docker pulls an older entry, HCS refuses it.
		{"docker, older entry", index(win("10.0.14393.1")), host2019(RuntimeDocker), "IMG-2", StageStart, ErrOSVersionMismatch.Error()},
		// rule: IMG-2, IMG-4: a single-platform image pulls and fails at start.
		{"single image", ImagePlatforms{Ref: "example/app:1", Platforms: []Platform{win("10.0.20348.1")}}, host2019(RuntimeContainerd), "IMG-2", StageStart, ErrOSVersionMismatch.Error()},
		// rule: IMG-4: no entry for the OS at all.
		{"linux image on windows", index(linux), host2019(RuntimeContainerd), "IMG-4", StagePull, "no match for platform in manifest: not found"},
		// rule: IMG-5: the sandbox image that does not fit stops the sandbox.
		{"pause image", ImagePlatforms{Ref: "pause:3.6", Index: true, Sandbox: true, Platforms: []Platform{win("10.0.20348.1")}}, host2019(RuntimeContainerd), "IMG-5", StageSandbox, "no match for platform in manifest: not found"},
		{"fits", index(linux, win("10.0.17763.1")), host2019(RuntimeContainerd), "", "", ""},
		{"unknown build", index(win("10.0.20348.1")), Host{OS: "windows", Arch: "amd64"}, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := ImageOnHost(tt.img, tt.host)
			if v.Runs != (tt.rule == "") || v.Rule != tt.rule || v.Stage != tt.stage || v.Words != tt.words {
				t.Fatalf("ImageOnHost = runs %v, rule %q, stage %q, words %q; want rule %q, stage %q, words %q",
					v.Runs, v.Rule, v.Stage, v.Words, tt.rule, tt.stage, tt.words)
			}
			if v.Runs {
				return
			}
			if !strings.Contains(v.Detail, "example/app:1") && !strings.Contains(v.Detail, "pause:3.6") {
				t.Errorf("detail %q does not name the image", v.Detail)
			}
			if tt.rule == "IMG-2" && !errors.Is(v.Err(), ErrOSVersionMismatch) {
				t.Errorf("%v is not ErrOSVersionMismatch", v.Err())
			}
			if (tt.stage == StagePull) != errors.Is(v.Err(), ErrNoMatchingPlatform) && tt.stage != StageSandbox {
				t.Errorf("errors.Is(%v, ErrNoMatchingPlatform) disagrees with stage %s", v.Err(), tt.stage)
			}
		})
	}
}

// rule: SCH-5: an image of the other OS on a node is SCH-5 for a pod
// that pins no OS and IMG-4 for one that pins the node's OS.
func TestRuleForPod(t *testing.T) {
	v := ImageOnHost(ImagePlatforms{Ref: "nginx", Index: true, Platforms: []Platform{{OS: "linux", Architecture: "amd64"}}},
		Host{OS: "windows", Arch: "amd64", Build: hostBuild2019()})
	if got := v.RuleForPod(false); got != "SCH-5" {
		t.Errorf("no OS pinned: %s, want SCH-5", got)
	}
	if got := v.RuleForPod(true); got != "IMG-4" {
		t.Errorf("OS pinned: %s, want IMG-4", got)
	}
}

// hostBuild2019 is Windows Server 2019's build.
func hostBuild2019() Build { return Build{10, 0, Build2019, 0} }

// A wrong OS says least about why an image fails in a cluster: the first
// failure stands until one for another cause comes, which then stays.
// rule: IMG-2, IMG-4
func TestMoreTelling(t *testing.T) {
	none := Verdict{Runs: true}
	os := Verdict{Rule: "IMG-4", Cause: CauseOS}
	build := Verdict{Rule: "IMG-2", Cause: CauseBuild}
	arch := Verdict{Rule: "IMG-4", Cause: CauseArch}
	for _, tc := range []struct {
		cur, next Verdict
		want      bool
	}{
		{none, os, true}, {none, none, false}, {os, build, true}, {os, os, false},
		{build, os, false}, {build, arch, false}, {os, none, false},
	} {
		if got := MoreTelling(tc.cur, tc.next); got != tc.want {
			t.Errorf("MoreTelling(%+v, %+v) = %v, want %v", tc.cur, tc.next, got, tc.want)
		}
	}
}

// The runtime's words say which IMG-4 failure happened: HCS refusing the
// build at start, or a pull that found no entry; other errors are neither.
//
// rule: IMG-4
func TestFailureStage(t *testing.T) {
	for msg, want := range map[string]Stage{
		"failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem app: The container operating system does not match the host operating system.: unknown": StageStart,
		`failed to pull and unpack image "docker.io/library/nginx:latest": no match for platform in manifest: not found`:                                                                StagePull,
		"no matching manifest for windows/amd64 10.0.17763 in the manifest list entries":                                                                                                StagePull,
		"back-off pulling image":   "",
		"exec: \"app\": not found": "",
	} {
		got, ok := FailureStage(msg)
		if got != want || ok != (want != "") {
			t.Errorf("FailureStage(%q) = %q, %v; want %q", msg, got, ok, want)
		}
	}
}
