package node

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// rule: IMG-4: the Windows base images publish no latest tag, so an
// untagged servercore fails to pull with containerd's resolver error
// ("<ref>: not found", remotes/docker/resolver.go), ErrImagePull and then
// ImagePullBackOff, the failure Windows users meet when they leave out the
// tag.
func TestMissingTagFailsPull(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	const image = "mcr.microsoft.com/windows/servercore"
	createPod(t, ns, simplePod("untagged", "win2019-1", image))
	waitPod(t, ns, "untagged", 30*time.Second, "ImagePullBackOff", func(p *corev1.Pod) bool {
		return waitingReason(p, "main") == "ImagePullBackOff"
	})
	const ref = image + ":latest"
	want := `rpc error: code = NotFound desc = failed to pull and unpack image "` + ref + `": failed to resolve reference "` + ref + `": ` + ref + `: not found`
	ev := waitEvent(t, ns, "untagged", "Failed", `Failed to pull image "`+image+`"`, 10*time.Second)
	if !strings.HasSuffix(ev.Message, want) {
		t.Errorf("pull failure event = %q, want it to end with %q", ev.Message, want)
	}
}

// rule: IMG-4: upstream's node conformance test pulls from
// invalid.registry.k8s.io and expects the pod to stay Pending with an image
// pull failure; the name does not resolve.
func TestInvalidRegistryFailsPull(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	const image = "invalid.registry.k8s.io/invalid/alpine:3.1"
	pod := simplePod("invalid", "linux-1", image)
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	createPod(t, ns, pod)
	p := waitPod(t, ns, "invalid", 30*time.Second, "ImagePullBackOff", func(p *corev1.Pod) bool {
		return waitingReason(p, "main") == "ImagePullBackOff"
	})
	if p.Status.Phase != corev1.PodPending {
		t.Errorf("phase = %s, want Pending", p.Status.Phase)
	}
	ev := waitEvent(t, ns, "invalid", "Failed", `Failed to pull image "`+image+`"`, 10*time.Second)
	if !strings.Contains(ev.Message, "dial tcp: lookup invalid.registry.k8s.io: no such host") {
		t.Errorf("pull failure event = %q, want the DNS failure", ev.Message)
	}
}

// rule: KLT-7: runAsUserName names an account the process logs on as. An
// account the image does not have fails the logon when containerd starts
// the task (hcsshim's hcs::System::CreateProcess, ERROR_LOGON_FAILURE), so
// the container ends with StartError and exit code 128 and restarts like
// any start failure; an account the pod declares with winkube.io/image-users
// and the built-in ContainerUser start.
func TestUnknownRunAsUserNameFailsStart(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	const nano = "mcr.microsoft.com/windows/nanoserver:1809"
	for name, user := range map[string]string{"stranger": "appuser", "declared": "appuser", "builtin": "containeruser"} {
		pod := simplePod(name, "win2019-1", nano)
		pod.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To(user)}}
		if name == "declared" {
			pod.Annotations = map[string]string{AnnotationImageUsers: "svc, AppUser"}
		}
		createPod(t, ns, pod)
	}
	for _, name := range []string{"declared", "builtin"} {
		waitPod(t, ns, name, 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning && podReady(p) })
	}
	p := waitPod(t, ns, "stranger", 60*time.Second, "CrashLoopBackOff", func(p *corev1.Pod) bool {
		return waitingReason(p, "main") == "CrashLoopBackOff"
	})
	last := p.Status.ContainerStatuses[0].LastTerminationState.Terminated
	const logon = "hcs::System::CreateProcess"
	if last == nil || last.ExitCode != 128 || last.Reason != "StartError" || !strings.Contains(last.Message, logon) ||
		!strings.Contains(last.Message, "The user name or password is incorrect.") {
		t.Errorf("last state = %+v, want exit 128, StartError with the logon failure", last)
	}
	ev := waitEvent(t, ns, "stranger", "Failed", "Error: failed to start containerd task", 10*time.Second)
	if !strings.Contains(ev.Message, logon+" main: The user name or password is incorrect.") {
		t.Errorf("start failure event = %q", ev.Message)
	}
}

// rule: IMG-3: Docker Hub's library namespace holds only the official
// images, so "webserver:404" (upstream's never-pulling image) fails on
// every node, Linux ones too, with the registry's pull-access error.
func TestUnknownLibraryRepositoryFailsPull(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	createPod(t, ns, simplePod("nosuchrepo", "linux-1", "webserver:404"))
	waitPod(t, ns, "nosuchrepo", 30*time.Second, "ImagePullBackOff", func(p *corev1.Pod) bool {
		return waitingReason(p, "main") == "ImagePullBackOff"
	})
	const ref = "docker.io/library/webserver:404"
	want := `failed to resolve reference "` + ref + `": pull access denied, repository does not exist or may require authorization`
	ev := waitEvent(t, ns, "nosuchrepo", "Failed", `Failed to pull image "webserver:404"`, 10*time.Second)
	if !strings.Contains(ev.Message, want) {
		t.Errorf("pull failure event = %q, want %q in it", ev.Message, want)
	}
}
