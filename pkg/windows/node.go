package windows

import (
	corev1 "k8s.io/api/core/v1"
)

// Node labels (SCH-1).
const (
	LabelOS           = "kubernetes.io/os"
	LabelArch         = "kubernetes.io/arch"
	LabelWindowsBuild = "node.kubernetes.io/windows-build"
	// Deprecated labels older clusters also set.
	LabelOSBeta   = "beta.kubernetes.io/os"
	LabelArchBeta = "beta.kubernetes.io/arch"
)

// WindowsTaint is the taint the upstream Windows scheduling guide
// recommends for Windows nodes (SCH-3), registered with
// --register-with-taints=os=windows:NoSchedule. The cluster config's
// default taint for Windows pools is this one.
func WindowsTaint() corev1.Taint {
	return corev1.Taint{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}
}

// WindowsToleration tolerates WindowsTaint (SCH-3).
func WindowsToleration() corev1.Toleration {
	return corev1.Toleration{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}
}
