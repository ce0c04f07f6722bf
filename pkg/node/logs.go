package node

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// logLine is one line of an emulated container's log.
type logLine struct {
	at   time.Time
	text string
}

// containerLog is what `kubectl logs` shows for one container of a pod on an
// emulated node. No program runs in an emulated container, so the log says
// what the node did with it: when it started, which limits the Windows
// runtime received, and how it ended. Everything comes from the pod's
// status, which the pod worker keeps, so the log survives agent restarts.
//
// The errors are the kubelet's (validateContainerLogStatus), so scripts that
// parse them behave as on a real node.
//
// It also returns the run the log belongs to, so a followed log can tell
// when that run ends or another starts.
func containerLog(pod *corev1.Pod, name string, previous bool) (run, []logLine, error) {
	st, ok := findStatus(pod, name)
	if !ok {
		return run{}, nil, fmt.Errorf("container %q in pod %q is not available", name, pod.Name)
	}
	r, err := loggedRun(pod.Name, st, previous)
	if err != nil {
		return run{}, nil, err
	}
	return r, runLines(pod, st, r), nil
}

// findStatus looks for the container among the init, regular and ephemeral
// container statuses, in the kubelet's order.
func findStatus(pod *corev1.Pod, name string) (corev1.ContainerStatus, bool) {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for _, st := range list {
			if st.Name == name {
				return st, true
			}
		}
	}
	return corev1.ContainerStatus{}, false
}

// run is one start of a container: running (finished zero) or terminated.
type run struct {
	started, finished time.Time
	exitCode          int32
	reason            string
}

// loggedRun picks the container run whose log the kubelet would show: the
// previous one when asked, else the running one, else the last that ended.
func loggedRun(podName string, st corev1.ContainerStatus, previous bool) (run, error) {
	last, state := st.LastTerminationState.Terminated, st.State
	switch {
	case previous:
		if last == nil || last.ContainerID == "" {
			return run{}, fmt.Errorf("previous terminated container %q in pod %q not found", st.Name, podName)
		}
		return terminatedRun(last), nil
	case state.Running != nil:
		return run{started: state.Running.StartedAt.Time}, nil
	case state.Terminated != nil && state.Terminated.ContainerID != "":
		return terminatedRun(state.Terminated), nil
	case last != nil && last.ContainerID != "":
		return terminatedRun(last), nil
	case state.Terminated != nil || last != nil:
		return run{}, fmt.Errorf("container %q in pod %q is terminated", st.Name, podName)
	case state.Waiting != nil:
		return run{}, fmt.Errorf("container %q in pod %q is waiting to start: %s", st.Name, podName, waitingWords(state.Waiting.Reason))
	}
	return run{}, fmt.Errorf("container %q in pod %q is waiting to start - no logs yet", st.Name, podName)
}

// waitingWords is how the kubelet explains the common waiting reasons.
func waitingWords(reason string) string {
	switch reason {
	case "ErrImagePull":
		return "image can't be pulled"
	case "ImagePullBackOff":
		return "trying and failing to pull image"
	}
	return reason
}

func terminatedRun(t *corev1.ContainerStateTerminated) run {
	return run{started: t.StartedAt.Time, finished: t.FinishedAt.Time, exitCode: t.ExitCode, reason: t.Reason}
}

// runLines writes the log of one run.
func runLines(pod *corev1.Pod, st corev1.ContainerStatus, r run) []logLine {
	lines := []logLine{{r.started, fmt.Sprintf("winkube: container %q started on emulated node %s from image %s (%s)",
		st.Name, pod.Spec.NodeName, st.Image, st.ContainerID)}}
	if cfg, ok := WindowsResources(pod)[st.Name]; ok {
		lines = append(lines, logLine{r.started, "winkube: the Windows runtime received " + cfg.String()})
	}
	lines = append(lines, logLine{r.started, "winkube: no program runs in an emulated container; exec, attach and port-forward are not available"})
	if spec, ok := findSpec(pod, st.Name); ok {
		lines = append(lines, programLines(pod, spec, r)...)
	}
	if !r.finished.IsZero() {
		lines = append(lines, logLine{r.finished, fmt.Sprintf("winkube: container %q exited with code %d (%s)", st.Name, r.exitCode, r.reason)})
	}
	return lines
}

// logNow is the clock of running containers' logs; tests replace it.
var logNow = time.Now

// programLines is what the container's command prints, as far as the
// emulation can read it, each line at the time the command prints it; a
// running container shows only the lines printed so far. A command the
// emulation cannot read is named, with what decides the run instead.
func programLines(pod *corev1.Pod, spec corev1.Container, r run) []logLine {
	if !isInitSpec(pod, spec.Name) && steeredByAnnotations(pod) {
		return []logLine{{r.started, fmt.Sprintf("winkube: run time and exit code come from the pod's annotations %s and %s", AnnotationRunSeconds, AnnotationExitCode)}}
	}
	p := containerProgram(pod, spec)
	if !p.known {
		return []logLine{{r.started, fmt.Sprintf("winkube: %s; the container runs as the annotations %s and %s say (without them: until deleted under restartPolicy Always, else 2 s and exit code 0)",
			p.why, AnnotationRunSeconds, AnnotationExitCode)}}
	}
	if p.idle && runsUntilDeleted(pod, &ctr{spec: spec, init: isInitSpec(pod, spec.Name)}) {
		return []logLine{{r.started, "winkube: this command starts a shell or interpreter with no script; on a real node it exits 0 at once (stdin is closed) and the kubelet restarts it, while the emulation keeps it running"}}
	}
	var out []logLine
	for _, l := range p.output {
		at := r.started.Add(seconds(l.after))
		if r.finished.IsZero() && at.After(logNow()) {
			break
		}
		out = append(out, logLine{at, l.text})
	}
	return out
}

// findSpec is the container of the pod spec with this name.
func findSpec(pod *corev1.Pod, name string) (corev1.Container, bool) {
	for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range list {
			if c.Name == name {
				return c, true
			}
		}
	}
	return corev1.Container{}, false
}

func isInitSpec(pod *corev1.Pod, name string) bool {
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// logOptions are the query parameters of the kubelet's containerLogs call
// that change what is written.
type logOptions struct {
	timestamps bool
	tailLines  int // -1: all
	limitBytes int // 0: no limit
	since      time.Time
}

// render applies the options and returns the text to send.
func (o logOptions) render(lines []logLine) string {
	var kept []logLine
	for _, l := range lines {
		if !l.at.Before(o.since) {
			kept = append(kept, l)
		}
	}
	if o.tailLines >= 0 && len(kept) > o.tailLines {
		kept = kept[len(kept)-o.tailLines:]
	}
	var b strings.Builder
	for _, l := range kept {
		if o.timestamps {
			b.WriteString(l.at.UTC().Format(time.RFC3339Nano) + " ")
		}
		b.WriteString(l.text + "\n")
	}
	out := b.String()
	if o.limitBytes > 0 && len(out) > o.limitBytes {
		out = out[:o.limitBytes]
	}
	return out
}
