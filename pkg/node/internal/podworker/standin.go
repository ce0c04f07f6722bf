package podworker

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/probe"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/emu/standin"
)

// Modes of annotations.UnknownProgram.
const (
	modeStandIn = annotations.ProgramStandIn
	modeIdle    = annotations.ProgramIdle
	modeExit    = annotations.ProgramExit
)

// unknownProgramMode reads the pod's annotations.UnknownProgram with the
// parser lint and the webhook use (WK-1); an unknown value is an error
// naming the annotation, which the container shows as
// CreateContainerConfigError until the annotation is fixed.
func unknownProgramMode(pod *corev1.Pod) (mode string, code int32, err error) {
	p, err := annotations.UnknownProgramOf(pod.Annotations)
	return p.Mode, p.Code, err
}

// cannotFollow is the launch of a container whose program winkube cannot
// follow (what says which): by annotations.UnknownProgram a stand-in that
// listens on the container's ports (for a container that runs until
// deleted; one that runs to completion exits as the run-seconds and
// exit-code annotations say), an idle container, or an exit with a code.
// Why is said once, in an Emulated event.
func cannotFollow(pod *corev1.Pod, c *ctr, l *launchSpec, what string) (*launchSpec, error) {
	mode, code, err := unknownProgramMode(pod)
	if err != nil {
		return nil, err
	}
	l.steered = true
	switch {
	case mode == modeExit:
		l.exitCode = &code
		l.why = fmt.Sprintf("winkube does not run %s, so the container exits with code %d as its pod's annotation %s says", what, code, annotations.UnknownProgram)
	case mode == modeStandIn && runsUntilDeleted(pod, c):
		cfg := standin.Config{Image: c.spec.Image, Why: what, Ports: standInPorts(&c.spec)}
		l.standIn = standin.Main(cfg)
		l.why = fmt.Sprintf("winkube does not run %s; a stand-in runs in its place and listens on %s (annotation %s: %s or %s CODE instead)",
			what, standin.PortList(cfg.Ports), annotations.UnknownProgram, modeIdle, modeExit)
	default:
		l.why = fmt.Sprintf("winkube does not run %s, so the container runs as its pod's annotations %s and %s say", what, annotations.RunSeconds, annotations.ExitCode)
	}
	return l, nil
}

// standInPorts are the ports a stand-in serves: the container's declared
// ports and those its probes reach (named ports resolved as the prober
// resolves them), each once.
func standInPorts(c *corev1.Container) []standin.Port {
	seen := map[standin.Port]bool{}
	var out []standin.Port
	add := func(p standin.Port) {
		if p.Protocol == "" {
			p.Protocol = string(corev1.ProtocolTCP)
		}
		if p.Number > 0 && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range c.Ports {
		add(standin.Port{Number: int(p.ContainerPort), Protocol: string(p.Protocol)})
	}
	for _, pr := range []*corev1.Probe{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
		if pr == nil {
			continue
		}
		switch {
		case pr.HTTPGet != nil:
			if n, err := probe.ResolveContainerPort(pr.HTTPGet.Port, c); err == nil {
				add(standin.Port{Number: n})
			}
		case pr.TCPSocket != nil:
			if n, err := probe.ResolveContainerPort(pr.TCPSocket.Port, c); err == nil {
				add(standin.Port{Number: n})
			}
		case pr.GRPC != nil:
			add(standin.Port{Number: int(pr.GRPC.Port)})
		}
	}
	return out
}
