package controlplane

import (
	"os"
	"strings"
	"testing"
)

func TestDefault(t *testing.T) {
	o := Options{DataDir: "relative"}
	o.Default()
	if o.ServiceCIDR != "10.96.0.0/12" || o.ClusterCIDR != "10.244.0.0/16" || o.NodeCIDRMaskSize != 24 {
		t.Errorf("defaults: %+v", o)
	}
	if !strings.HasPrefix(o.DataDir, "/") || o.Executable == "" {
		t.Errorf("DataDir %q should be absolute and Executable %q set", o.DataDir, o.Executable)
	}
	if o.APIServerPort != 0 {
		t.Errorf("APIServerPort defaulted to %d; 0 must stay 0 (pick a free port)", o.APIServerPort)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("defaulted options invalid: %v", err)
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	o := Options{
		ServiceCIDR:      "10.0.0.0/8",
		ClusterCIDR:      "10.244.0.1/16",
		NodeCIDRMaskSize: 8,
		APIServerPort:    70000,
		Executable:       "/bin/true",
	}
	err := o.Validate()
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"DataDir is required", "APIServerPort 70000", "ClusterCIDR \"10.244.0.1/16\" has host bits set"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}

	o = Options{DataDir: "/d", Executable: "/bin/true", ServiceCIDR: "10.0.0.0/8", ClusterCIDR: "10.244.0.0/16", NodeCIDRMaskSize: 16}
	err = o.Validate()
	for _, want := range []string{"NodeCIDRMaskSize 16 must be longer than ClusterCIDR's /16", "ServiceCIDR 10.0.0.0/8 overlaps ClusterCIDR 10.244.0.0/16"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

func TestFirstServiceIP(t *testing.T) {
	if got := firstServiceIP("10.96.0.0/12").String(); got != "10.96.0.1" {
		t.Errorf("firstServiceIP = %s, want 10.96.0.1", got)
	}
}

func TestTail(t *testing.T) {
	path := t.TempDir() + "/log"
	var b strings.Builder
	for i := range 100 {
		b.WriteString(strings.Repeat("x", i%7) + "\n")
	}
	b.WriteString("last\n")
	if err := writeString(path, b.String()); err != nil {
		t.Fatal(err)
	}
	got := tail(path, 3)
	if lines := strings.Split(got, "\n"); len(lines) != 3 || lines[2] != "  last" {
		t.Errorf("tail = %q, want 3 indented lines ending in last", got)
	}
}

func writeString(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

func TestRunComponentRejectsUnknownName(t *testing.T) {
	err := RunComponent(t.Context(), "kube-proxy", nil)
	if err == nil || !strings.Contains(err.Error(), "kube-apiserver, kube-scheduler, kube-controller-manager") {
		t.Errorf("RunComponent(kube-proxy) = %v, want an error listing the known components", err)
	}
}
