package node

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// unknownExporter is a pod of an image winkube does not know, started
// without a command, that declares port 9182 and probes /health there
// (windows-exporter's shape).
func unknownExporter(name string, mode string) *corev1.Pod {
	pod := simplePod(name, "linux-1", "ghcr.io/example/exporter:1.0")
	pod.Labels = map[string]string{"app": name}
	if mode != "" {
		pod.Annotations = map[string]string{AnnotationUnknownProgram: mode}
	}
	c := &pod.Spec.Containers[0]
	c.Command = nil
	c.Ports = []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9182}}
	c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString("metrics")}}, PeriodSeconds: 1}
	return pod
}

// A container whose program winkube cannot follow gets a stand-in that
// listens on its declared and probed port: its readiness probe reaches a
// real listener, and another pod's request gets the stand-in's answer; the
// Emulated event says so. With the annotation "idle" nothing listens (the
// probe passes as before); "exit 3" ends the container with code 3; an
// unknown mode is a CreateContainerConfigError naming the annotation.
func TestStandInForUnknownProgram(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	createPod(t, ns, unknownExporter("exporter", ""))
	ip := waitPod(t, ns, "exporter", 60*time.Second, "Ready", podReady).Status.PodIP
	createPod(t, ns, unknownExporter("idle", "idle"))
	idleIP := waitPod(t, ns, "idle", 60*time.Second, "Ready", podReady).Status.PodIP
	client := simplePod("client", "linux-1", busybox)
	client.Spec.Containers[0].Command = []string{"sleep", "3600"}
	createPod(t, ns, client)
	waitPod(t, ns, "client", 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })

	out, err := execIn(t, ns, "client", "linux-1", []string{"wget", "-qO-", "http://" + ip + ":9182/health"}, "")
	if err != nil || !strings.Contains(out, "winkube stand-in for ghcr.io/example/exporter:1.0") {
		t.Errorf("wget of the stand-in: %q (%v)", out, err)
	}
	if out, err := execIn(t, ns, "client", "linux-1", []string{"wget", "-qO-", "http://" + idleIP + ":9182/health"}, ""); err == nil {
		t.Errorf("an idle container answered: %q", out)
	}
	ev := waitEvent(t, ns, "exporter", "Emulated", "a stand-in runs in its place and listens on 9182/TCP", 10*time.Second)
	if !strings.Contains(ev.Message, "the default command of image ghcr.io/example/exporter:1.0") {
		t.Errorf("Emulated event: %q", ev.Message)
	}

	createPod(t, ns, unknownExporter("exits", "exit 3"))
	p := waitPod(t, ns, "exits", 60*time.Second, "terminated", func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		return len(cs) > 0 && (cs[0].State.Terminated != nil || cs[0].LastTerminationState.Terminated != nil)
	})
	cs := p.Status.ContainerStatuses[0]
	term := cs.State.Terminated
	if term == nil {
		term = cs.LastTerminationState.Terminated
	}
	if term.ExitCode != 3 {
		t.Errorf("exit 3: terminated with %d", term.ExitCode)
	}

	createPod(t, ns, unknownExporter("bad", "sometimes"))
	p = waitPod(t, ns, "bad", 30*time.Second, "CreateContainerConfigError", func(p *corev1.Pod) bool {
		return waitingReason(p, "main") == "CreateContainerConfigError"
	})
	if msg := p.Status.ContainerStatuses[0].State.Waiting.Message; !strings.Contains(msg, AnnotationUnknownProgram+`="sometimes"`) {
		t.Errorf("bad mode: %q", msg)
	}
}
