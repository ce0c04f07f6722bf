package userland

import "testing"

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
