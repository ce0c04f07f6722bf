package windows

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/util/format"
)

// RootUser is the account the Windows kubelet treats as root.
const RootUser = "ContainerAdministrator"

// VerifyNonRoot is the Windows kubelet's runAsNonRoot check before it
// creates a container (k8s.io/kubernetes pkg/kubelet/kuberuntime/
// security_context_windows.go verifyRunAsNonRoot). Windows has no uid 0,
// so ContainerAdministrator (compared without case) stands for root: an
// explicit runAsUserName of that name fails, and without one the image's
// default user does. The kubelet shows the error as
// CreateContainerConfigError.
func VerifyNonRoot(pod *corev1.Pod, c *corev1.Container, imageUser string) error {
	if !effectiveRunAsNonRoot(pod, c) {
		return nil
	}
	if user := RunAsUserName(pod, c); user != "" {
		if strings.EqualFold(user, RootUser) {
			return fmt.Errorf("container's runAsUserName (%s) which will be regarded as root identity and will break non-root policy (pod: %q, container: %s)", user, format.Pod(pod), c.Name)
		}
		return nil
	}
	if strings.EqualFold(imageUser, RootUser) {
		return fmt.Errorf("container's runAsUser (%s) which will be regarded as root identity and will break non-root policy (pod: %q, container: %s)", imageUser, format.Pod(pod), c.Name)
	}
	return nil
}

// effectiveRunAsNonRoot is runAsNonRoot with the container's value winning
// over the pod's.
func effectiveRunAsNonRoot(pod *corev1.Pod, c *corev1.Container) bool {
	if c.SecurityContext != nil && c.SecurityContext.RunAsNonRoot != nil {
		return *c.SecurityContext.RunAsNonRoot
	}
	sc := pod.Spec.SecurityContext
	return sc != nil && sc.RunAsNonRoot != nil && *sc.RunAsNonRoot
}

// ImageUser is the default user of a Windows base image as far as
// the emulation knows it: Server Core and Server images (and the images
// built on them, whose tags say windowsservercore) run as
// ContainerAdministrator, Nano Server as ContainerUser, the e2e test
// images as their Dockerfiles say. Other images give
// "", which the kubelet does not check, as it skips an image without a
// user.
func ImageUser(ref string) string {
	repo, tag := ref, ""
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		repo, tag = ref[:i], ref[i+1:]
	}
	switch {
	case strings.Contains(repo, "nanoserver") || strings.Contains(tag, "nanoserver"),
		// The e2e nonroot image's Windows variant says USER ContainerUser.
		strings.HasSuffix(repo, "/e2e-test-images/nonroot"):
		return "ContainerUser"
	case strings.HasPrefix(repo, "registry.k8s.io/e2e-test-images/"):
		// The other e2e images' Windows variants are built on the e2e
		// busybox image, whose Dockerfile_windows ends with USER
		// ContainerAdministrator, and keep it.
		return RootUser
	case strings.Contains(repo, "servercore") || strings.Contains(tag, "windowsservercore"),
		repo == "mcr.microsoft.com/windows/server", repo == "mcr.microsoft.com/windows":
		return RootUser
	}
	return ""
}

// builtinWindowsUsers are the accounts every Windows container image has:
// the two container accounts and the service identities (a gMSA pod runs as
// NETWORK SERVICE). Compared without case, as Windows does.
var builtinWindowsUsers = []string{
	RootUser, "ContainerUser",
	`NT AUTHORITY\SYSTEM`, `NT AUTHORITY\NETWORK SERVICE`, `NT AUTHORITY\LOCAL SERVICE`,
}

// BuiltinUser: every Windows container image has the account.
func BuiltinUser(user string) bool { return HasAccount(builtinWindowsUsers, user) }

// HasAccount reports whether list names user, as Windows compares
// account names: without case.
func HasAccount(list []string, user string) bool {
	for _, k := range list {
		if strings.EqualFold(strings.TrimSpace(k), user) {
			return true
		}
	}
	return false
}

// RunAsUserName is the container's runAsUserName, or else the pod's (KLT-7).
func RunAsUserName(pod *corev1.Pod, c *corev1.Container) string {
	var podOpts *corev1.WindowsSecurityContextOptions
	if pod.Spec.SecurityContext != nil {
		podOpts = pod.Spec.SecurityContext.WindowsOptions
	}
	return windowsContainerConfig(c, podOpts, 1).RunAsUserName
}
