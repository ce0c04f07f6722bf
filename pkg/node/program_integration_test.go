package node

import (
	"bytes"
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream/spdy"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/utils/ptr"
)

const busybox = "registry.k8s.io/e2e-test-images/busybox:1.37.0-1"

// logsOf reads a container's log from its node's kubelet.
func logsOf(t *testing.T, ns, pod, node, container string) string {
	t.Helper()
	_, body := get(t, kubeletClient(t), "https://"+node+":10250/containerLogs/"+ns+"/"+pod+"/"+container)
	return body
}

// A Linux container's shell script sees its environment (env, envFrom with
// a prefix, the downward API), its mounted ConfigMap, its identity and
// writes a termination message, as on a real node.
func TestContainerRunsItsScript(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"data-1": "value-1", "greeting": "hello"}}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := simplePod("script", "linux-1", busybox)
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](1001), RunAsGroup: ptr.To[int64](2002)}
	pod.Spec.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}}}
	c := &pod.Spec.Containers[0]
	c.Command = []string{"sh", "-c", `env | grep -E '^(CONFIG_|POD_NAME)' | sort; cat /etc/cfg/greeting; echo; id; echo bye > /dev/termination-log; exit 3`}
	c.EnvFrom = []corev1.EnvFromSource{{Prefix: "CONFIG_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}}
	c.Env = []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/cfg"}}
	c.TerminationMessagePath = "/dev/termination-log"
	createPod(t, ns, pod)
	p := waitPod(t, ns, "script", 60*time.Second, "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	term := p.Status.ContainerStatuses[0].State.Terminated
	if term == nil || term.ExitCode != 3 || term.Message != "bye\n" {
		t.Errorf("terminated: %+v", p.Status.ContainerStatuses[0].State)
	}
	want := "CONFIG_data-1=value-1\nCONFIG_greeting=hello\nPOD_NAME=script\nhello\nuid=1001 gid=2002 groups=2002\n"
	if got := logsOf(t, ns, "script", "linux-1", "main"); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
}

// A ConfigMap key the container needs but the ConfigMap lacks keeps it
// waiting with CreateContainerConfigError, in the kubelet's words.
func TestMissingConfigMapKeyFailsConfig(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("nokey", "linux-1", busybox)
	pod.Spec.Containers[0].Command = []string{"sh", "-c", "env"}
	pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "absent"}, Key: "k"}}}}
	createPod(t, ns, pod)
	p := waitPod(t, ns, "nokey", 30*time.Second, "CreateContainerConfigError", func(p *corev1.Pod) bool {
		return waitingReason(p, "main") == "CreateContainerConfigError"
	})
	if msg := p.Status.ContainerStatuses[0].State.Waiting.Message; msg != `configmap "absent" not found` {
		t.Errorf("message %q", msg)
	}
}

// kubectl exec over SPDY, as kube-apiserver speaks to a kubelet: output,
// stdin, the remote exit code, and the runtime's refusal of a program the
// image lacks; on Windows cmd.exe and whoami.
func TestExec(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	linux := simplePod("lin", "linux-1", busybox)
	linux.Spec.Containers[0].Command = []string{"sh", "-c", "echo ready > /tmp/state; sleep 3600"}
	createPod(t, ns, linux)
	win := simplePod("win", "win2022-1", "mcr.microsoft.com/windows/nanoserver:ltsc2022")
	win.Spec.Containers[0].Command = []string{"cmd", "/c", "ping -t localhost >nul"}
	createPod(t, ns, win)
	for _, name := range []string{"lin", "win"} {
		waitPod(t, ns, name, 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	}
	tests := []struct {
		pod, node string
		cmd       []string
		stdin     string
		want      string
		wantErr   string
	}{
		{"lin", "linux-1", []string{"echo", "hi"}, "", "hi\n", ""},
		{"lin", "linux-1", []string{"cat", "/tmp/state"}, "", "ready\n", ""},
		{"lin", "linux-1", []string{"sh", "-c", "read x; echo got $x; exit 7"}, "hi\n", "got hi\n", "command terminated with exit code 7"},
		{"lin", "linux-1", []string{"nosuch"}, "", "", `exec: "nosuch": executable file not found in $PATH`},
		{"win", "win2022-1", []string{"cmd", "/c", "echo %COMPUTERNAME%"}, "", "WIN\r\n", ""},
		{"win", "win2022-1", []string{"whoami"}, "", "user manager\\containeruser\r\n", ""},
	}
	for _, tt := range tests {
		out, err := execIn(t, ns, tt.pod, tt.node, tt.cmd, tt.stdin)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: err = %v, want %q", tt.cmd, err, tt.wantErr)
			}
		} else if err != nil {
			t.Errorf("%v: %v", tt.cmd, err)
		}
		if strings.ReplaceAll(out, "\r\n", "\n") != strings.ReplaceAll(tt.want, "\r\n", "\n") {
			t.Errorf("%v: output %q, want %q", tt.cmd, out, tt.want)
		}
	}
}

// execIn runs cmd in the pod's main container through the node's kubelet
// API, over SPDY.
func execIn(t testing.TB, ns, pod, node string, cmd []string, stdin string) (string, error) {
	t.Helper()
	return execOn(t, agent, ns, pod, node, cmd, stdin)
}

// execOn is execIn on a node of agent a.
func execOn(t testing.TB, a *Agent, ns, pod, node string, cmd []string, stdin string) (string, error) {
	t.Helper()
	rt, err := spdy.NewRoundTripperWithConfig(spdy.RoundTripperConfig{UpgradeTransport: kubeletClientOf(t, a).Transport})
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"output": {"1"}, "error": {"1"}, "command": cmd}
	if stdin != "" {
		q.Set("input", "1")
	}
	u := &url.URL{Scheme: "https", Host: node + ":10250", Path: "/exec/" + ns + "/" + pod + "/main", RawQuery: q.Encode()}
	ex, err := remotecommand.NewSPDYExecutorForTransports(rt, rt, "POST", u)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	opts := remotecommand.StreamOptions{Stdout: &out, Stderr: &errb}
	if stdin != "" {
		opts.Stdin = strings.NewReader(stdin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = ex.StreamWithContext(ctx, opts)
	return out.String() + errb.String(), err
}

// BenchmarkExecRoundTrip measures `exec true` in a running busybox
// container through the kubelet API over SPDY, from request to exit
// status, and reports the 50th and 99th percentiles and the CPU per exec.
// Run it with -run '^$' -bench ExecRoundTrip.
func BenchmarkExecRoundTrip(b *testing.B) {
	if client == nil {
		b.Skip("needs the control plane (not in -short mode)")
	}
	t := b
	ns := newNamespace(t)
	pod := simplePod("bench", "linux-1", busybox)
	pod.Spec.Containers[0].Command = []string{"sh", "-c", "sleep 3600"}
	createPod(t, ns, pod)
	waitPod(t, ns, "bench", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	cpu0 := processCPU(b)
	for range b.N {
		began := time.Now()
		if _, err := execIn(t, ns, "bench", "linux-1", []string{"true"}, ""); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(began))
	}
	cpu := processCPU(b) - cpu0
	b.StopTimer()
	slices.Sort(took)
	// CPU of this process (client and kubelet API alike) per exec: steadier
	// than the percentiles on a loaded machine.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// Volumes as containers see them: an emptyDir an init container filled,
// the node's own hosts file through a hostPath (FileOrCreate), and a write
// to a read-only mount failing in busybox's words.
func TestVolumesSeenByPrograms(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("vols", "linux-1", busybox)
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	fileOrCreate := corev1.HostPathFileOrCreate
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "hosts", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/etc/hosts", Type: &fileOrCreate}}},
	}
	pod.Spec.InitContainers = []corev1.Container{{Name: "fill", Image: busybox, Command: []string{"sh", "-c", "echo from-init > /cache/word"},
		VolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}}}}
	c := &pod.Spec.Containers[0]
	c.Command = []string{"sh", "-c", "cat /cache/word; grep -c localhost /etc/hosts-original; echo x > /ro/f"}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}, {Name: "hosts", MountPath: "/etc/hosts-original"},
		{Name: "cache", MountPath: "/ro", ReadOnly: true}}
	createPod(t, ns, pod)
	p := waitPod(t, ns, "vols", 60*time.Second, "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	if term := p.Status.ContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != 1 {
		t.Errorf("state %+v, want exit code 1 from the refused write", p.Status.ContainerStatuses[0].State)
	}
	want := "from-init\n2\nsh: can't create /ro/f: Read-only file system\n"
	if got := logsOf(t, ns, "vols", "linux-1", "main"); got != want {
		t.Errorf("log %q, want %q", got, want)
	}
}

// The log of a running container has what it printed so far, right after
// it started (upstream's websocket log test reads it at once).
func TestLogOfRunningContainer(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	for _, node := range []string{"linux-1", "win2019-2"} {
		pod := simplePod("alive-"+node, node, busybox)
		pod.Spec.Containers[0].Command = []string{"/bin/sh", "-c", "echo container is alive; sleep 10000"}
		createPod(t, ns, pod)
		waitPod(t, ns, pod.Name, 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
		if got := logsOf(t, ns, pod.Name, node, "main"); got != "container is alive\n" {
			t.Errorf("%s: log %q", node, got)
		}
	}
}

// fixedSize is a terminal size queue that reports one size, then waits
// for the session's end (the client's window never changes again).
type fixedSize struct {
	sent chan struct{}
	done <-chan struct{}
}

func (f fixedSize) Next() *remotecommand.TerminalSize {
	select {
	case f.sent <- struct{}{}:
		return &remotecommand.TerminalSize{Width: 132, Height: 50}
	default:
		<-f.done
		return nil
	}
}

// kubectl exec -t: the program's terminal has the client's window size.
func TestExecTTYSize(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("tty", "linux-1", busybox)
	pod.Spec.Containers[0].Command = []string{"sleep", "3600"}
	createPod(t, ns, pod)
	waitPod(t, ns, "tty", 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	rt, err := spdy.NewRoundTripperWithConfig(spdy.RoundTripperConfig{UpgradeTransport: kubeletClient(t).Transport})
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"output": {"1"}, "tty": {"1"}, "command": {"stty", "size"}}
	u := &url.URL{Scheme: "https", Host: "linux-1:10250", Path: "/exec/" + ns + "/tty/main", RawQuery: q.Encode()}
	ex, err := remotecommand.NewSPDYExecutorForTransports(rt, rt, "POST", u)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &out, Tty: true, TerminalSizeQueue: fixedSize{sent: make(chan struct{}, 1), done: ctx.Done()}})
	if err != nil || out.String() != "50 132\n" {
		t.Errorf("stty size over exec -t: %q (%v)", out.String(), err)
	}
}
