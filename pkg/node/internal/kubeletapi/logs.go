package kubeletapi

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
)

// logs serves GET /containerLogs/{namespace}/{pod}/{container} with the
// kubelet's query parameters and status codes: what the container's
// process printed, from the run the kubelet would pick.
func (s *Server) logs(w http.ResponseWriter, r *http.Request) {
	node, _ := r.Context().Value(nodeKey{}).(string)
	ns, name, container := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	n := s.cfg.Node(node)
	var pod *corev1.Pod
	if n != nil {
		pod = n.Pod(ns, name)
	}
	if pod == nil {
		http.Error(w, fmt.Sprintf("pod %q does not exist", name), http.StatusNotFound)
		return
	}
	if !hasContainer(pod, container) {
		http.Error(w, fmt.Sprintf("container %q not found in pod %q", container, name), http.StatusNotFound)
		return
	}
	opts, follow, previous, err := parseLogQuery(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	running := n.Running(ns, name)
	pod = withOwnStatus(running, pod)
	if _, err := containerLog(pod, container, previous); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var log *ctrlog.Log
	if running != nil {
		log = running.Log(container, previous)
	}
	w.Header().Set("Content-Type", "text/plain")
	if log == nil {
		return
	}
	lines, closed, changed := log.Snapshot()
	text := opts.Render(lines)
	io.WriteString(w, text)
	// Stream as the kubelet does (chunked, flushed): a reader that gets
	// the last bytes together with EOF may drop them, and kube-apiserver's
	// WebSocket log stream is such a reader.
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if follow && !previous && !closed {
		streamLog(w, r, log, opts, len(lines), len(text), changed)
	}
}

// withOwnStatus is the pod with the status its node last wrote, which the
// agent's watch may not have seen yet.
func withOwnStatus(running Pod, pod *corev1.Pod) *corev1.Pod {
	if running == nil {
		return pod
	}
	st := running.Status()
	if st == nil {
		return pod
	}
	own := *pod
	own.Status = *st
	return &own
}

// streamLog streams the lines the log gains until the run ends, the client
// hangs up or limitBytes is reached. seen lines and sent bytes were
// already written; tailLines applied to those only, limitBytes to all.
func streamLog(w http.ResponseWriter, r *http.Request, log *ctrlog.Log, opts ctrlog.Options, seen, sent int, changed <-chan struct{}) {
	flusher, _ := w.(http.Flusher)
	more := ctrlog.Options{Timestamps: opts.Timestamps, TailLines: -1}
	for opts.LimitBytes == 0 || sent < opts.LimitBytes {
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		}
		var lines []ctrlog.Line
		var closed bool
		lines, closed, changed = log.Snapshot()
		if len(lines) > seen {
			more.LimitBytes = max(opts.LimitBytes-sent, 0)
			text := more.Render(lines[seen:])
			io.WriteString(w, text)
			seen, sent = len(lines), sent+len(text)
		}
		if closed {
			return
		}
	}
}

func hasContainer(pod *corev1.Pod, name string) bool {
	for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range list {
			if c.Name == name {
				return true
			}
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// parseLogQuery reads the kubelet's log query parameters.
func parseLogQuery(r *http.Request) (opts ctrlog.Options, follow, previous bool, err error) {
	q := r.URL.Query()
	opts.TailLines = -1
	bools := map[string]*bool{"follow": &follow, "previous": &previous, "timestamps": &opts.Timestamps}
	for key, dst := range bools {
		if v := q.Get(key); v != "" {
			if *dst, err = strconv.ParseBool(v); err != nil {
				return opts, false, false, fmt.Errorf("query parameter %s=%q: not a boolean", key, v)
			}
		}
	}
	ints := map[string]*int{"tailLines": &opts.TailLines, "limitBytes": &opts.LimitBytes}
	for key, dst := range ints {
		if v := q.Get(key); v != "" {
			if *dst, err = strconv.Atoi(v); err != nil || *dst < 0 {
				return opts, false, false, fmt.Errorf("query parameter %s=%q: not a number of zero or more", key, v)
			}
		}
	}
	if v := q.Get("sinceSeconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return opts, false, false, fmt.Errorf("query parameter sinceSeconds=%q: not a positive number", v)
		}
		opts.Since = time.Now().Add(-time.Duration(n) * time.Second)
	}
	if v := q.Get("sinceTime"); v != "" {
		if opts.Since, err = time.Parse(time.RFC3339, v); err != nil {
			return opts, false, false, fmt.Errorf("query parameter sinceTime=%q: not an RFC 3339 time", v)
		}
	}
	return opts, follow, previous, nil
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
