package windows

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestWindowsTaint(t *testing.T) {
	// rule: SCH-3
	taint, tol := WindowsTaint(), WindowsToleration()
	if taint.Key != "os" || taint.Value != "windows" || taint.Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("taint = %+v", taint)
	}
	if tol.Key != taint.Key || tol.Value != taint.Value || tol.Effect != taint.Effect || tol.Operator != corev1.TolerationOpEqual {
		t.Error("toleration does not tolerate the taint")
	}
}
