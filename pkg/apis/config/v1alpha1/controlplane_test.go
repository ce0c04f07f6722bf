package v1alpha1

import (
	"strings"
	"testing"
)

func TestControlPlaneSectionAcceptsScalars(t *testing.T) {
	c, err := Decode([]byte(`apiVersion: winkube.io/v1alpha1
kind: Cluster
controlPlane:
  kube-controller-manager: {kube-api-qps: 200, concurrent-gc-syncs: "50"}
  kube-apiserver: {max-requests-inflight: "800", profiling: false}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := c.ControlPlaneFlags()
	if got["kube-controller-manager"]["kube-api-qps"] != "200" || got["kube-controller-manager"]["concurrent-gc-syncs"] != "50" ||
		got["kube-apiserver"]["max-requests-inflight"] != "800" || got["kube-apiserver"]["profiling"] != "false" {
		t.Errorf("ControlPlaneFlags = %v", got)
	}
	if DefaultCluster().ControlPlaneFlags() != nil {
		t.Error("a config without controlPlane must set no flags")
	}
}

func TestControlPlaneSectionErrorsNameTheField(t *testing.T) {
	_, err := Decode([]byte(`apiVersion: winkube.io/v1alpha1
kind: Cluster
controlPlane:
  kube-proxy: {v: "4"}
  kube-scheduler: {"--kube-api-qps": "100"}
`))
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{`controlPlane[kube-proxy]: Unsupported value: "kube-proxy"`, `controlPlane[kube-scheduler][--kube-api-qps]`, "without leading dashes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	_, err = Decode([]byte("apiVersion: winkube.io/v1alpha1\nkind: Cluster\ncontrolPlane:\n  kube-apiserver: {feature-gates: [A, B]}\n"))
	if err == nil || !strings.Contains(err.Error(), `flag "feature-gates"`) {
		t.Errorf("a list value: error %v, want one naming flag feature-gates", err)
	}
}
