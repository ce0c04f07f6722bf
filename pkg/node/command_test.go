package node

import (
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func commandPod(policy corev1.RestartPolicy, c corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "client", Namespace: "e2e", UID: "u-1"},
		Spec:       corev1.PodSpec{NodeName: "linux-1", RestartPolicy: policy, Containers: []corev1.Container{c}},
		Status:     corev1.PodStatus{PodIP: "10.244.1.5"},
	}
}

func texts(p program) []string {
	var out []string
	for _, l := range p.output {
		out = append(out, l.text)
	}
	return out
}

// The commands upstream's e2e tests give their pods (test/e2e/common/node
// and test/e2e/windows), and what a real runtime makes of them.
func TestContainerProgram(t *testing.T) {
	busybox := "registry.k8s.io/e2e-test-images/busybox:1.36.1-1"
	agnhost := "registry.k8s.io/e2e-test-images/agnhost:2.53"
	nano := "mcr.microsoft.com/windows/nanoserver:ltsc2022"
	tests := []struct {
		name    string
		c       corev1.Container
		forever bool
		secs    float64
		code    int32
		out     []string
	}{
		{"false", corev1.Container{Image: busybox, Command: []string{"/bin/false"}}, false, 0, 1, nil},
		{"true", corev1.Container{Image: busybox, Command: []string{"/bin/true"}}, false, 0, 0, nil},
		{"sh exit 2", corev1.Container{Image: busybox, Command: []string{"sh", "-c", "exit 2"}}, false, 0, 2, nil},
		{"sleep", corev1.Container{Image: busybox, Command: []string{"sleep", "600"}}, false, 600, 0, nil},
		{"echo then sleep", corev1.Container{Image: busybox, Command: []string{"/bin/sh", "-c", "echo 'hello world'; sleep 3 && echo done > /dev/null"}}, false, 3, 0, []string{"hello world"}},
		{"|| short-circuit", corev1.Container{Image: busybox, Command: []string{"sh", "-c", "false || echo recovered"}}, false, 0, 0, []string{"recovered"}},
		{"agnhost default pause", corev1.Container{Image: agnhost}, true, 0, 0, nil},
		{"agnhost netexec", corev1.Container{Image: agnhost, Args: []string{"netexec", "--http-port=8080"}}, true, 0, 0, nil},
		{"nginx default", corev1.Container{Image: "nginx:1.27"}, true, 0, 0, nil},
		{"sleep infinity", corev1.Container{Image: busybox, Command: []string{"sh", "-c", "trap exit TERM; sleep infinity"}}, true, 0, 0, nil},
		{"while true", corev1.Container{Image: busybox, Command: []string{"sh", "-c", "while true; do sleep 1; done"}}, true, 0, 0, nil},
		{"busybox default sh", corev1.Container{Image: busybox}, false, 0, 0, nil},
		{"env var", corev1.Container{Image: busybox, Command: []string{"sh", "-c", "echo $POD_NAME in ${POD_NS}"},
			Env: []corev1.EnvVar{
				{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
				{Name: "POD_NS", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
			}}, false, 0, 0, []string{"client in e2e"}},
		{"$(VAR) in args", corev1.Container{Image: busybox, Command: []string{"echo"}, Args: []string{"test-$(FOO)"},
			Env: []corev1.EnvVar{{Name: "FOO", Value: "value"}}}, false, 0, 0, []string{"test-value"}},
		{"env", corev1.Container{Image: busybox, Command: []string{"env"}, Env: []corev1.EnvVar{{Name: "FOO", Value: "bar"}}},
			false, 0, 0, []string{"HOSTNAME=client", "FOO=bar"}},
		{"cmd /c", corev1.Container{Image: nano, Command: []string{"cmd", "/c", "echo hello & ping -n 3 127.0.0.1 > nul & exit /b 3"}}, false, 2, 3, []string{"hello"}},
		{"cmd ping -t", corev1.Container{Image: nano, Command: []string{"cmd.exe", "/c", "ping -t localhost"}}, true, 0, 0, nil},
		{"powershell", corev1.Container{Image: "mcr.microsoft.com/powershell:lts", Command: []string{"powershell.exe", "-Command", "Write-Host 'from pwsh'; Start-Sleep -Seconds 5; exit 4"}}, false, 5, 4, []string{"from pwsh"}},
		{"servercore listener", corev1.Container{Image: nano, Command: []string{"powershell", "-command", "while ($true) { Start-Sleep 1 }"}}, true, 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.Name = "c"
			p := containerProgram(commandPod(corev1.RestartPolicyNever, tt.c), tt.c)
			if !p.known {
				t.Fatalf("not understood: %s", p.why)
			}
			if p.forever != tt.forever || p.seconds != tt.secs || p.exitCode != tt.code || !reflect.DeepEqual(texts(p), tt.out) {
				t.Errorf("got forever=%v %vs exit %d output %q; want forever=%v %vs exit %d output %q",
					p.forever, p.seconds, p.exitCode, texts(p), tt.forever, tt.secs, tt.code, tt.out)
			}
		})
	}
}

// Commands the emulation cannot follow are named, not guessed.
func TestContainerProgramUnknown(t *testing.T) {
	for _, c := range []corev1.Container{
		{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "cat /etc/hosts | grep localhost"}},
		{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "echo $HOME"}},
		{Name: "c", Image: "example.com/app:1"},
		{Name: "c", Image: "busybox", Command: []string{"/app/server"}},
		{Name: "c", Image: "registry.k8s.io/e2e-test-images/agnhost:2.53", Args: []string{"mounttest", "--fs_type=/x"}},
	} {
		if p := containerProgram(commandPod(corev1.RestartPolicyNever, c), c); p.known || p.why == "" {
			t.Errorf("%v %v: got %+v, want unknown with a reason", c.Command, c.Args, p)
		}
	}
}

// The annotations override the command; an unknown command keeps their
// defaults (2 s, exit 0 under restartPolicy Never).
func TestExitPlan(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	fails := corev1.Container{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "sleep 5; exit 7"}}
	at, code := exitPlan(commandPod(corev1.RestartPolicyNever, fails), &ctr{spec: fails}, start)
	if !at.Equal(start.Add(5*time.Second)) || code != 7 {
		t.Errorf("command: exit at %v code %d, want +5s code 7", at.Sub(start), code)
	}
	annotated := commandPod(corev1.RestartPolicyNever, fails)
	annotated.Annotations = map[string]string{AnnotationExitCode: "0"}
	if at, code = exitPlan(annotated, &ctr{spec: fails}, start); !at.Equal(start.Add(2*time.Second)) || code != 0 {
		t.Errorf("annotated: exit at %v code %d, want the annotations' +2s code 0", at.Sub(start), code)
	}
	unknown := corev1.Container{Name: "c", Image: "example.com/app:1"}
	if at, _ = exitPlan(commandPod(corev1.RestartPolicyAlways, unknown), &ctr{spec: unknown}, start); !at.IsZero() {
		t.Errorf("unknown command under Always: exits at %v, want never", at.Sub(start))
	}
	server := corev1.Container{Name: "c", Image: "registry.k8s.io/e2e-test-images/agnhost:2.53"}
	if at, _ = exitPlan(commandPod(corev1.RestartPolicyNever, server), &ctr{spec: server}, start); !at.IsZero() {
		t.Errorf("agnhost pause under Never: exits at %v, want never", at.Sub(start))
	}
}

// A running container's log shows what its command printed so far.
func TestProgramLines(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := corev1.Container{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "echo first; sleep 10; echo second"}}
	pod := commandPod(corev1.RestartPolicyNever, c)
	defer func(f func() time.Time) { logNow = f }(logNow)
	logNow = func() time.Time { return start.Add(time.Second) }
	if got := programLines(pod, c, run{started: start}); len(got) != 1 || got[0].text != "first" {
		t.Errorf("after 1 s: %+v, want only \"first\"", got)
	}
	got := programLines(pod, c, run{started: start, finished: start.Add(10 * time.Second)})
	if len(got) != 2 || got[1].text != "second" || !got[1].at.Equal(start.Add(10*time.Second)) {
		t.Errorf("finished: %+v, want \"second\" at +10s", got)
	}
	unknown := corev1.Container{Name: "c", Image: "example.com/app:1"}
	if got := programLines(pod, unknown, run{started: start}); len(got) != 1 || !strings.Contains(got[0].text, "not in winkube's catalog") {
		t.Errorf("unknown: %+v, want one line saying why", got)
	}
}

// A restartPolicy Never pod whose command fails ends Failed with the
// command's exit code; one whose command serves forever is stopped at its
// activeDeadlineSeconds with the kubelet's reason and message
// (pkg/kubelet/active_deadline.go).
func TestCommandExitAndDeadline(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	fails := simplePod("fails", "linux-1", "busybox")
	fails.Spec.RestartPolicy = corev1.RestartPolicyNever
	fails.Spec.Containers[0].Command = []string{"sh", "-c", "echo failing; exit 2"}
	createPod(t, ns, fails)
	serves := simplePod("serves", "win2022-1", "registry.k8s.io/e2e-test-images/agnhost:2.53")
	serves.Spec.RestartPolicy = corev1.RestartPolicyNever
	serves.Spec.ActiveDeadlineSeconds = ptrInt64(3)
	createPod(t, ns, serves)

	p := waitPod(t, ns, "fails", 30*time.Second, "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	if term := p.Status.ContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != 2 || term.Reason != "Error" {
		t.Errorf("fails: terminated = %+v, want exit 2 reason Error", term)
	}
	p = waitPod(t, ns, "serves", 30*time.Second, "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	if p.Status.Reason != "DeadlineExceeded" || p.Status.Message != "Pod was active on the node longer than the specified deadline" {
		t.Errorf("serves: reason %q message %q, want DeadlineExceeded", p.Status.Reason, p.Status.Message)
	}
	waitEvent(t, ns, "serves", "DeadlineExceeded", "longer than the specified deadline", 10*time.Second)
}

func ptrInt64(v int64) *int64 { return &v }
