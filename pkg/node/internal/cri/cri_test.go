package cri

import (
	"errors"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/windows"
)

var (
	containerd2019 = Runtime{Name: Containerd, OS: "windows", Arch: "amd64", Build: windows.Build{Major: 10, Build: 17763}}
	docker2019     = Runtime{Name: Docker, OS: "windows", Arch: "amd64", Build: windows.Build{Major: 10, Build: 17763}}
)

// rule: IMG-4: a tag the repository does not publish and a registry that
// does not resolve fail the pull in each runtime's words.
func TestPullOfMissingImage(t *testing.T) {
	cases := []struct {
		rt          Runtime
		image, want string
	}{
		{containerd2019, "mcr.microsoft.com/windows/nanoserver",
			`rpc error: code = NotFound desc = failed to pull and unpack image "mcr.microsoft.com/windows/nanoserver:latest": failed to resolve reference "mcr.microsoft.com/windows/nanoserver:latest": mcr.microsoft.com/windows/nanoserver:latest: not found`},
		{docker2019, "mcr.microsoft.com/windows/nanoserver",
			`rpc error: code = Unknown desc = Error response from daemon: manifest for mcr.microsoft.com/windows/nanoserver:latest not found: manifest unknown: manifest unknown`},
		{containerd2019, "invalid.registry.k8s.io/invalid/alpine:3.1",
			`rpc error: code = Unknown desc = failed to pull and unpack image "invalid.registry.k8s.io/invalid/alpine:3.1": failed to resolve reference "invalid.registry.k8s.io/invalid/alpine:3.1": failed to do request: Head "https://invalid.registry.k8s.io/v2/invalid/alpine/manifests/3.1": dial tcp: lookup invalid.registry.k8s.io: no such host`},
		{docker2019, "registry.invalid:5000/app:1",
			`rpc error: code = Unknown desc = Error response from daemon: Get "https://registry.invalid:5000/v2/": dial tcp: lookup registry.invalid: no such host`},
	}
	for _, tc := range cases {
		_, err := tc.rt.Pull(tc.image)
		var pe *PullError
		if !errors.As(err, &pe) || err.Error() != tc.want {
			t.Errorf("%s Pull(%s) = %v\nwant %s", tc.rt.Name, tc.image, err, tc.want)
		}
	}
	if _, err := containerd2019.Pull("mcr.microsoft.com/windows/nanoserver:ltsc2019"); err != nil {
		t.Errorf("nanoserver:ltsc2019: %v", err)
	}
}

// rule: IMG-5: a sandbox image that does not exist leaves the pod without a
// sandbox, with containerd's resolver error after the kubelet's prefix.
func TestSandboxOfMissingPauseImage(t *testing.T) {
	err := containerd2019.RunSandbox("mcr.microsoft.com/windows/nanoserver:nosuchtag", "sb", "")
	want := `rpc error: code = Unknown desc = failed to get sandbox image "mcr.microsoft.com/windows/nanoserver:nosuchtag": failed to pull image "mcr.microsoft.com/windows/nanoserver:nosuchtag": failed to pull and unpack image "mcr.microsoft.com/windows/nanoserver:nosuchtag": failed to resolve reference`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("RunSandbox = %v, want prefix %s", err, want)
	}
}

// rule: KLT-11: a RuntimeClass handler the runtime has no runtime for
// fails the sandbox in containerd's or cri-dockerd's words; the default
// handlers and the empty one start it.
func TestSandboxRuntimeHandler(t *testing.T) {
	pause := "registry.k8s.io/pause:3.10"
	linux := Runtime{Name: Containerd, OS: "linux", Arch: "amd64"}
	for _, tc := range []struct {
		rt            Runtime
		pause         string
		handler, want string
	}{
		{containerd2019, "mcr.microsoft.com/oss/kubernetes/pause:3.6", "docker", `rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "docker" is configured`},
		{containerd2019, "mcr.microsoft.com/oss/kubernetes/pause:3.6", "runhcs-wcow-hypervisor", `rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "runhcs-wcow-hypervisor" is configured`},
		{containerd2019, "mcr.microsoft.com/oss/kubernetes/pause:3.6", "runhcs-wcow-process", ""},
		{containerd2019, "mcr.microsoft.com/oss/kubernetes/pause:3.6", "", ""},
		{docker2019, "mcr.microsoft.com/oss/kubernetes/pause:3.6", "docker", ""},
		{docker2019, "mcr.microsoft.com/oss/kubernetes/pause:3.6", "runhcs-wcow-process", `rpc error: code = Unknown desc = RuntimeHandler "runhcs-wcow-process" not supported`},
		{linux, pause, "runc", ""},
		{linux, pause, "kata", `rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "kata" is configured`},
	} {
		err := tc.rt.RunSandbox(tc.pause, "sb", tc.handler)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s/%s RunSandbox(handler %q) = %q, want %q", tc.rt.Name, tc.rt.OS, tc.handler, got, tc.want)
		}
	}
}

// rule: KLT-7: an account the image lacks fails the logon of the first
// process; known accounts, Linux hosts and an unset user start.
func TestCreateProcessLogon(t *testing.T) {
	err := containerd2019.CreateProcess("abc", "appuser", false)
	want := `failed to start containerd task "abc": hcs::System::CreateProcess abc: The user name or password is incorrect.: unknown`
	var se *StartError
	if !errors.As(err, &se) || err.Error() != want {
		t.Errorf("containerd CreateProcess = %v, want %s", err, want)
	}
	if err := docker2019.CreateProcess("abc", "appuser", false); err == nil || !strings.Contains(err.Error(), "(0x52e)") {
		t.Errorf("docker CreateProcess = %v, want the 0x52e logon failure", err)
	}
	linux := Runtime{Name: Containerd, OS: "linux", Arch: "amd64"}
	for _, tc := range []struct {
		rt    Runtime
		user  string
		known bool
	}{{containerd2019, "appuser", true}, {containerd2019, "", false}, {linux, "appuser", false}} {
		if err := tc.rt.CreateProcess("abc", tc.user, tc.known); err != nil {
			t.Errorf("CreateProcess(%q, known=%v) on %s = %v, want nil", tc.user, tc.known, tc.rt.OS, err)
		}
	}
}
