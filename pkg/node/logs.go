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
	// partial: the process ended without finishing the line (echo -n);
	// the log keeps it without a newline, as the CRI log's "P" tag does.
	partial bool
}

// containerLog checks, from the pod's status, that the container has a
// log to show, with the kubelet's errors (validateContainerLogStatus) so
// scripts that parse them behave as on a real node, and returns the run
// the log belongs to.
func containerLog(pod *corev1.Pod, name string, previous bool) (run, error) {
	st, ok := findStatus(pod, name)
	if !ok {
		return run{}, fmt.Errorf("container %q in pod %q is not available", name, pod.Name)
	}
	return loggedRun(pod.Name, st, previous)
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
		b.WriteString(l.text)
		if !l.partial {
			b.WriteByte('\n')
		}
	}
	out := b.String()
	if o.limitBytes > 0 && len(out) > o.limitBytes {
		out = out[:o.limitBytes]
	}
	return out
}
