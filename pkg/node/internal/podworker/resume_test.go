package podworker

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// An adopted container's probes start afresh but keep what they last
// said: a started container is not probed for startup again, and Ready
// holds until the readiness probe's own results change it.
func TestResumeKeepsProbeResults(t *testing.T) {
	spec := corev1.Container{Name: "web", StartupProbe: &corev1.Probe{}, ReadinessProbe: &corev1.Probe{}}
	c := newCtr(spec, false)
	c.status.Started, c.status.Ready = ptr.To(true), true
	c.probes = newProbeStates(&c.spec, time.Now())
	keepProbeResults(c)
	if !c.probes.startup.ok || !c.probes.readiness.ok {
		t.Errorf("probes after resume: startup ok %v, readiness ok %v; want both kept", c.probes.startup.ok, c.probes.readiness.ok)
	}
	c.status.Ready = false
	c.probes = newProbeStates(&c.spec, time.Now())
	keepProbeResults(c)
	if c.probes.readiness.ok {
		t.Error("a container not Ready became ready by the resume")
	}
}
