package podworker

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/probe"
)

// probeState is one probe of a running container, as the kubelet's prober
// worker keeps it: when it runs next and how many results in a row agree.
type probeState struct {
	kind      string // "Liveness", "Readiness", "Startup"
	spec      *corev1.Probe
	next      time.Time
	successes int32
	failures  int32
	ok        bool // the current result
}

// probeStates are a container run's probes; a new run starts afresh.
type probeStates struct {
	startup, liveness, readiness *probeState
}

func newProbeStates(c *corev1.Container, started time.Time) probeStates {
	mk := func(kind string, p *corev1.Probe) *probeState {
		if p == nil {
			return nil
		}
		return &probeState{kind: kind, spec: p, next: started.Add(time.Duration(p.InitialDelaySeconds) * time.Second)}
	}
	return probeStates{
		startup:   mk("Startup", c.StartupProbe),
		liveness:  mk("Liveness", c.LivenessProbe),
		readiness: mk("Readiness", c.ReadinessProbe),
	}
}

// probe runs the probes of a running container that are due
// (pkg/kubelet/prober/worker.go): the startup probe first, then liveness
// and readiness. A failed liveness or startup probe kills the container
// for a restart; readiness decides Ready.
func (w *Worker) probe(pod *corev1.Pod, c *ctr, now time.Time) {
	ps := &c.probes
	started := ps.startup == nil || ps.startup.ok
	if !started {
		if w.runProbe(pod, c, ps.startup, now) && !ps.startup.ok && ps.startup.failures >= threshold(ps.startup.spec.FailureThreshold, 3) {
			w.killForProbe(pod, c, "startup", now)
			return
		}
		started = ps.startup.ok
		c.status.Started = &started
	}
	if !started {
		c.status.Ready = false
		return
	}
	if ps.liveness != nil && w.runProbe(pod, c, ps.liveness, now) && !ps.liveness.ok &&
		ps.liveness.failures >= threshold(ps.liveness.spec.FailureThreshold, 3) {
		w.killForProbe(pod, c, "liveness", now)
		return
	}
	switch {
	case c.init && !isSidecar(c):
	case ps.readiness == nil:
		c.status.Ready = !now.Before(c.readyAt)
	default:
		w.runProbe(pod, c, ps.readiness, now)
		c.status.Ready = ps.readiness.ok
	}
}

// runProbe runs one probe if it is due and reports whether it ran.
func (w *Worker) runProbe(pod *corev1.Pod, c *ctr, ps *probeState, now time.Time) bool {
	if now.Before(ps.next) {
		return false
	}
	ps.next = now.Add(time.Duration(max(ps.spec.PeriodSeconds, 1)) * time.Second)
	res, out := w.check(c, ps.spec)
	if res == probe.Warning {
		// pkg/kubelet/prober/prober.go: a warning is a success, said once
		// per probe run in an event.
		w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, "ProbeWarning", "%s probe warning: %s", ps.kind, out)
	}
	if res == probe.Success || res == probe.Warning {
		ps.successes++
		ps.failures = 0
		if ps.successes >= threshold(ps.spec.SuccessThreshold, 1) {
			ps.ok = true
		}
		return true
	}
	ps.failures++
	ps.successes = 0
	if ps.failures >= threshold(ps.spec.FailureThreshold, 3) {
		ps.ok = false
	}
	w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, "Unhealthy", "%s probe failed: %s", ps.kind, out)
	return true
}

func threshold(v, def int32) int32 {
	if v <= 0 {
		return def
	}
	return v
}

// check runs a probe's handler: exec probes in the container's OS, HTTP,
// TCP and gRPC probes over the pod network (probenet.go).
func (w *Worker) check(c *ctr, p *corev1.Probe) (probe.Result, string) {
	if res, out, handled := w.netProbe(c, p); handled {
		return res, out
	}
	if p.Exec == nil {
		return probe.Success, ""
	}
	timeout := time.Duration(max(p.TimeoutSeconds, 1)) * time.Second
	out, code, err := w.runIn(c, p.Exec.Command, timeout)
	switch {
	case err != nil:
		return probe.Failure, err.Error()
	case code != 0:
		return probe.Failure, out
	}
	return probe.Success, out
}

// killForProbe stops a container whose liveness or startup probe failed,
// so that it restarts (kuberuntime_manager.go computePodActions).
func (w *Worker) killForProbe(pod *corev1.Pod, c *ctr, which string, now time.Time) {
	ref := containerRef(pod, c)
	w.node.Recorder.Eventf(ref, corev1.EventTypeNormal, "Killing",
		"Container %s failed %s probe, will be restarted", c.spec.Name, which)
	w.exit(pod, c, w.node.Host.KilledExitCode(), now)
	w.scheduleRestart(pod, c, now)
}

// probeWake is the next probe due for a running container.
func (c *ctr) probeWake() time.Time {
	var next time.Time
	for _, ps := range []*probeState{c.probes.startup, c.probes.liveness, c.probes.readiness} {
		if ps != nil && (next.IsZero() || ps.next.Before(next)) {
			next = ps.next
		}
	}
	return next
}

var _ = fmt.Sprintf
