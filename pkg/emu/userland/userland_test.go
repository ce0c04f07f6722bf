package userland

import (
	"fmt"
	"testing"
)

// The nonewprivs image runs nnp; busybox's ip is a Linux applet only.
func TestNNPAndIP(t *testing.T) {
	nnp := Of("registry.k8s.io/e2e-test-images/nonewprivs:1.3", false)
	if nnp["nnp"] == nil || nnp["ip"] == nil {
		t.Error("the nonewprivs image lacks nnp or ip")
	}
	if Of("registry.k8s.io/e2e-test-images/busybox:1.37.0-1", false)["nnp"] != nil {
		t.Error("busybox has nnp")
	}
	if Of("registry.k8s.io/e2e-test-images/busybox:1.37.0-1", true)["ip"] != nil {
		t.Error("a Windows busybox has ip")
	}
}

// The Windows e2e test images put netcat 1.12 NT and busybox's timeout in
// C:\bin, ahead of System32; Server Core's timeout is Windows' own.
func TestWindowsE2EImagesNcAndTimeout(t *testing.T) {
	e2e := Of("registry.k8s.io/e2e-test-images/busybox:1.37.0-1", true)
	if e2e["nc"] == nil || e2e["timeout"] == nil {
		t.Fatal("the Windows e2e busybox image lacks nc or timeout")
	}
	if fmt.Sprintf("%p", e2e["timeout"]) == fmt.Sprintf("%p", Of("mcr.microsoft.com/windows/servercore:ltsc2022", true)["timeout"]) {
		t.Error("the e2e image's timeout is Server Core's timeout.exe")
	}
}

// The e2e DNS probers' images have dig and getent: glibc-dns-testing
// (v1.36's) as jessie-dnsutils before it.
func TestDNSProberImagesHaveDigAndGetent(t *testing.T) {
	for _, ref := range []string{"registry.k8s.io/e2e-test-images/glibc-dns-testing:2.0.0", "registry.k8s.io/e2e-test-images/jessie-dnsutils:1.7"} {
		if tab := Of(ref, false); tab["dig"] == nil || tab["getent"] == nil || tab["sh"] == nil {
			t.Errorf("%s lacks dig, getent or sh", ref)
		}
	}
}

// windows-exporter's image offers windows_exporter.exe (its entrypoint)
// and, being a HostProcess image, the node's PowerShell its chart's init
// container runs; other images do not have the exporter.
func TestWindowsExporterImage(t *testing.T) {
	t2 := Of("ghcr.io/prometheus-community/windows-exporter:0.31.8", true)
	if t2["windows_exporter"] == nil || t2["powershell"] == nil {
		t.Error("the windows-exporter image lacks windows_exporter.exe or powershell")
	}
	if Of("mcr.microsoft.com/windows/servercore:ltsc2022", true)["windows_exporter"] != nil {
		t.Error("Server Core has windows_exporter.exe")
	}
}

// redis's images have redis-cli beside redis-server; other images do not.
func TestRedisImagesHaveRedisCLI(t *testing.T) {
	for _, ref := range []string{"redis:7.2", "redis:7.2-alpine", "docker.io/bitnami/redis:7.2"} {
		if tab := Of(ref, false); tab["redis-cli"] == nil || tab["redis-server"] == nil {
			t.Errorf("%s lacks redis-cli or redis-server", ref)
		}
	}
	if Of("nginx:1.27", false)["redis-cli"] != nil {
		t.Error("nginx has redis-cli")
	}
}

// busybox's dumpers are in every busybox userland: Linux images and the
// Windows e2e images' busybox.exe (the ConfigMap binary-data conformance
// test runs hexdump -C there).
func TestBusyboxDumpers(t *testing.T) {
	for _, img := range []struct {
		ref string
		win bool
	}{{"registry.k8s.io/e2e-test-images/busybox:1.37.0-1", false}, {"alpine:3.20", false},
		{"registry.k8s.io/e2e-test-images/busybox:1.37.0-1", true}, {"registry.k8s.io/e2e-test-images/agnhost:2.53", true}} {
		progs := Of(img.ref, img.win)
		for _, name := range []string{"hexdump", "hd", "xxd", "od"} {
			if progs[name] == nil {
				t.Errorf("%s (windows %v) has no %s", img.ref, img.win, name)
			}
		}
	}
	if Of("mcr.microsoft.com/windows/nanoserver:ltsc2022", true)["hexdump"] != nil {
		t.Error("Nano Server has no busybox")
	}
}

// The CSI charts' images offer their programs on both OSes: the
// HostProcess smb image its smbplugin.exe, the sidecars theirs.
func TestCSIImagesOfferTheirPrograms(t *testing.T) {
	for ref, name := range map[string]string{
		"gcr.io/k8s-staging-sig-storage/smbplugin:canary-windows-hp":    "smbplugin",
		"registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.17.0": "csi-node-driver-registrar",
		"registry.k8s.io/sig-storage/livenessprobe:v2.18.0":             "livenessprobe",
		"registry.k8s.io/csi-secrets-store/driver:v1.6.0":               "secrets-store-csi",
	} {
		for _, win := range []bool{true, false} {
			if _, ok := Of(ref, win)[name]; !ok {
				t.Errorf("%s (windows %v) lacks %s", ref, win, name)
			}
		}
	}
	if _, ok := Of("registry.k8s.io/sig-storage/csi-provisioner:v6.3.0", false)["csi-provisioner"]; ok {
		t.Error("csi-provisioner is not emulated")
	}
}

// The Windows e2e images carry BIND's dig in C:\dig and their own
// hostname.exe in C:\bin, ahead of System32 (test/images/busybox's
// Dockerfile_windows); glibc-dns-testing is built on that image.
func TestWindowsE2EImagesDigAndHostname(t *testing.T) {
	for _, ref := range []string{"registry.k8s.io/e2e-test-images/glibc-dns-testing:2.0.0", "registry.k8s.io/e2e-test-images/agnhost:2.59"} {
		tab := Of(ref, true)
		if tab["dig"] == nil || tab["hostname"] == nil {
			t.Fatalf("%s on Windows lacks dig or hostname", ref)
		}
		if fmt.Sprintf("%p", tab["hostname"]) == fmt.Sprintf("%p", Of("mcr.microsoft.com/windows/servercore:ltsc2022", true)["hostname"]) {
			t.Errorf("%s: hostname is System32's, not the image's C:\\bin\\hostname.exe", ref)
		}
	}
}
