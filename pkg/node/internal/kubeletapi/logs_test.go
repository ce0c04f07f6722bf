package kubeletapi

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/apis/annotations"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func statusPod(st corev1.ContainerStatus) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{
			annotations.WindowsResources: `{"app":{"cpuMaximum":1250,"memoryLimitInBytes":536870912}}`,
		}},
		Spec:   corev1.PodSpec{NodeName: "win2019-1", Containers: []corev1.Container{{Name: "app"}}},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{st}},
	}
}

var (
	t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	t1 = t0.Add(3 * time.Second)
)

func terminated(code int32, reason, id string) *corev1.ContainerStateTerminated {
	return &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, ContainerID: id,
		StartedAt: metav1.NewTime(t0), FinishedAt: metav1.NewTime(t1)}
}

// Which run's log is shown, and the errors when there is none, follow the
// kubelet.
func TestContainerLog(t *testing.T) {
	running := corev1.ContainerStatus{Name: "app", Image: "img", ContainerID: "containerd://1",
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(t0)}}}
	restarted := running
	restarted.LastTerminationState = corev1.ContainerState{Terminated: terminated(3, "Error", "containerd://0")}
	done := corev1.ContainerStatus{Name: "app", Image: "img", ContainerID: "containerd://1",
		State: corev1.ContainerState{Terminated: terminated(0, "Completed", "containerd://1")}}
	waiting := func(reason string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}
	}
	tests := []struct {
		name      string
		st        corev1.ContainerStatus
		container string
		previous  bool
		wantRun   time.Time
		wantErr   string
	}{
		{"running", running, "app", false, t0, ""},
		{"completed", done, "app", false, t0, ""},
		{"previous run", restarted, "app", true, t0, ""},
		{"no previous run", running, "app", true, time.Time{}, `previous terminated container "app" in pod "web" not found`},
		{"unknown container", running, "sidecar", false, time.Time{}, `container "sidecar" in pod "web" is not available`},
		{"pulling failed", waiting("ErrImagePull"), "app", false, time.Time{}, `container "app" in pod "web" is waiting to start: image can't be pulled`},
		{"pull back-off", waiting("ImagePullBackOff"), "app", false, time.Time{}, "is waiting to start: trying and failing to pull image"},
		{"create failed", waiting("CreateContainerError"), "app", false, time.Time{}, "is waiting to start: CreateContainerError"},
		{"never ran", corev1.ContainerStatus{Name: "app"}, "app", false, time.Time{}, "is waiting to start - no logs yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := containerLog(statusPod(tt.st), tt.container, tt.previous)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !r.started.Equal(tt.wantRun) {
				t.Fatalf("run %v, %v; want the run started %v", r.started, err, tt.wantRun)
			}
		})
	}
}

func TestParseLogQuery(t *testing.T) {
	r := httptest.NewRequest("GET", "/containerLogs/ns/p/c?follow=true&tailLines=2&timestamps=1&limitBytes=10&sinceTime=2026-11-22T12:00:03Z", nil)
	opts, follow, previous, err := parseLogQuery(r)
	if err != nil || !follow || previous || !opts.Timestamps || opts.TailLines != 2 || opts.LimitBytes != 10 || !opts.Since.Equal(t1) {
		t.Errorf("got %+v follow=%v previous=%v err=%v", opts, follow, previous, err)
	}
	for _, bad := range []string{"tailLines=-1", "follow=maybe", "sinceSeconds=0", "sinceTime=yesterday", "limitBytes=x"} {
		if _, _, _, err := parseLogQuery(httptest.NewRequest("GET", "/x?"+bad, nil)); err == nil || !strings.Contains(err.Error(), strings.Split(bad, "=")[0]) {
			t.Errorf("%s: err = %v, want one naming the parameter", bad, err)
		}
	}
}
