package node

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// hostProcessPod is a HostProcess pod on win2019-1 running as SYSTEM on
// the host network, whose containers run cmds in order (the last is the
// main container, the others init containers).
func hostProcessPod(name, image string, cmds ...[]string) *corev1.Pod {
	pod := simplePod(name, "win2019-1", image)
	pod.Spec.HostNetwork = true
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{
		HostProcess: ptr.To(true), RunAsUserName: ptr.To(`NT AUTHORITY\SYSTEM`)}}
	for i, cmd := range cmds[:len(cmds)-1] {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, corev1.Container{Name: "init" + string(rune('a'+i)), Image: image, Command: cmd})
	}
	pod.Spec.Containers[0].Command = cmds[len(cmds)-1]
	return pod
}

func podDone(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// HostProcess containers see the node's disk: a file one writes at C:\ is
// there for the next container of the pod and for another HostProcess pod
// on the node, but not for an ordinary container, whose C:\ is its own.
func TestHostProcessSharesNodeDisk(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	file := "/testfile-" + strings.ReplaceAll(ns, "-", "") + ".txt"
	createPod(t, ns, hostProcessPod("writer", busybox,
		[]string{"powershell", "-c", "Set-content", "-Path", file, "-V", "test"},
		[]string{"powershell", "-c", "ls", file}))
	p := waitPod(t, ns, "writer", 60*time.Second, "done", podDone)
	if p.Status.Phase != corev1.PodSucceeded {
		t.Fatalf("writer %s: %v\n%s", p.Status.Phase, statusOf(p), logsOf(t, ns, "writer", "win2019-1", "main"))
	}
	win := `C:` + strings.ReplaceAll(file, "/", `\`)
	createPod(t, ns, hostProcessPod("reader", busybox, []string{"cmd", "/c", "type " + win}))
	plain := simplePod("plain", "win2019-1", busybox)
	plain.Spec.RestartPolicy = corev1.RestartPolicyNever
	plain.Spec.Containers[0].Command = []string{"cmd", "/c", "type " + win}
	createPod(t, ns, plain)
	if p := waitPod(t, ns, "reader", 60*time.Second, "done", podDone); p.Status.Phase != corev1.PodSucceeded {
		t.Errorf("reader %s", p.Status.Phase)
	}
	if got := logsOf(t, ns, "reader", "win2019-1", "main"); got != "test\r\n" {
		t.Errorf("reader's log %q, want the file's content", got)
	}
	if p := waitPod(t, ns, "plain", 60*time.Second, "done", podDone); p.Status.Phase != corev1.PodFailed {
		t.Errorf("an ordinary container read the node's file: %s", p.Status.Phase)
	}
}

// rule: KLT-7: a HostProcess container logs on as a local group of the
// node, which an init container can add with net localgroup; hcsshim
// makes a temporary user named after the container, so whoami is no
// NT AUTHORITY account. A group the node does not have fails the logon.
func TestHostProcessRunsAsLocalGroup(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	group := "grp" + strings.ReplaceAll(ns, "-", "")[len(ns)-12:]
	pod := hostProcessPod("localgroup", busybox, []string{"cmd", "/C", "net", "localgroup", group, "/add"}, []string{"cmd", "/C", "whoami"})
	pod.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To(group)}}
	createPod(t, ns, pod)
	p := waitPod(t, ns, "localgroup", 60*time.Second, "done", podDone)
	if p.Status.Phase != corev1.PodSucceeded {
		t.Fatalf("pod %s: %v", p.Status.Phase, statusOf(p))
	}
	got := logsOf(t, ns, "localgroup", "win2019-1", "main")
	if !regexp.MustCompile(`^win2019-1\\[0-9a-f]{20}\r\n$`).MatchString(got) {
		t.Errorf("whoami printed %q, want win2019-1\\<container id prefix>", got)
	}
	stranger := hostProcessPod("stranger", busybox, []string{"cmd", "/C", "whoami"})
	stranger.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("nosuchgroup")}}
	createPod(t, ns, stranger)
	p = waitPod(t, ns, "stranger", 60*time.Second, "done", podDone)
	if term := p.Status.ContainerStatuses[0].State.Terminated; term == nil || term.Reason != "StartError" ||
		!strings.Contains(term.Message, "The user name or password is incorrect.") {
		t.Errorf("unknown group: %v", statusOf(p))
	}
}

// A HostProcess container finds its image at C:\hpc and runs agnhost's
// in-cluster client, which reads the pod's service account token from its
// mount. (Whether the call then reaches the API server is the network's
// business: this test cluster runs no kube-proxy on Windows nodes, so the
// Service address answers nothing there, TS-1; `winkube up` has one.)
func TestHostProcessInClusterClient(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	const agnhost = "registry.k8s.io/e2e-test-images/agnhost:2.59"
	createPod(t, ns, hostProcessPod("icc", agnhost, []string{"cmd", "/C", "copy", `c:\hpc\agnhost`, `c:\hpc\agnhost.exe`, "&&",
		`c:\hpc\agnhost.exe`, "inclusterclient", "--poll-interval=1"}))
	var log string
	waitFor(t, 30*time.Second, "a /healthz call", func(context.Context) (bool, error) {
		log = logsOf(t, ns, "icc", "win2019-1", "main")
		return strings.Contains(log, "authz_header="), nil
	})
	if !strings.HasPrefix(log, "        1 file(s) copied.\r\n") || !strings.Contains(log, "calling /healthz") || strings.Contains(log, "authz_header=<empty>") {
		t.Errorf("log:\n%s", log)
	}
}

// A HostProcess container sees its volumes at their mount paths and under
// its image's mount, $CONTAINER_SANDBOX_MOUNT_POINT, as containerd 1.7
// binds them.
func TestHostProcessVolumePaths(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := hostProcessPod("volumes", busybox, []string{"powershell", "-c",
		`Test-Path $env:CONTAINER_SANDBOX_MOUNT_POINT\etc\emptydir; Test-Path C:\etc\emptydir; Test-Path C:\hpc\etc\emptydir`})
	pod.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/etc/emptydir"}}
	createPod(t, ns, pod)
	if p := waitPod(t, ns, "volumes", 60*time.Second, "done", podDone); p.Status.Phase != corev1.PodSucceeded {
		t.Fatalf("pod %s: %v", p.Status.Phase, statusOf(p))
	}
	if got := logsOf(t, ns, "volumes", "win2019-1", "main"); got != "True\r\nTrue\r\nTrue\r\n" {
		t.Errorf("Test-Path printed %q", got)
	}
}
