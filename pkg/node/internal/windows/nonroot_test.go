package windows

import "testing"

// The user a Windows image runs as without runAsUserName, as its
// Dockerfile's USER says (Server Core: ContainerAdministrator; Nano Server
// and the e2e nonroot image: ContainerUser; the other e2e images inherit
// the e2e busybox image's ContainerAdministrator).
func TestWindowsImageUser(t *testing.T) {
	for ref, want := range map[string]string{
		"mcr.microsoft.com/windows/servercore:ltsc2022":                       "ContainerAdministrator",
		"mcr.microsoft.com/windows/nanoserver:ltsc2022":                       "ContainerUser",
		"registry.k8s.io/e2e-test-images/nonroot:1.4":                         "ContainerUser",
		"registry.k8s.io/e2e-test-images/agnhost:2.63.0":                      "ContainerAdministrator",
		"registry.k8s.io/e2e-test-images/busybox:1.37.0-1":                    "ContainerAdministrator",
		"registry.k8s.io/pause:3.10.2":                                        "",
		"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022": "ContainerAdministrator",
	} {
		if got := ImageUser(ref); got != want {
			t.Errorf("%s: %q, want %q", ref, got, want)
		}
	}
}
