package node

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/windows"
)

// windowsRootUser is the account the Windows kubelet treats as root.
const windowsRootUser = "ContainerAdministrator"

// verifyWindowsNonRoot is the Windows kubelet's runAsNonRoot check before it
// creates a container (k8s.io/kubernetes pkg/kubelet/kuberuntime/
// security_context_windows.go verifyRunAsNonRoot). Windows has no uid 0,
// so ContainerAdministrator (compared without case) stands for root: an
// explicit runAsUserName of that name fails, and without one the image's
// default user does. The kubelet shows the error as
// CreateContainerConfigError.
func verifyWindowsNonRoot(pod *corev1.Pod, c *corev1.Container, imageUser string) error {
	if !effectiveRunAsNonRoot(pod, c) {
		return nil
	}
	if user := runAsUserName(pod, c); user != "" {
		if strings.EqualFold(user, windowsRootUser) {
			return fmt.Errorf("container's runAsUserName (%s) which will be regarded as root identity and will break non-root policy (pod: %q, container: %s)", user, podDesc(pod), c.Name)
		}
		return nil
	}
	if strings.EqualFold(imageUser, windowsRootUser) {
		return fmt.Errorf("container's runAsUser (%s) which will be regarded as root identity and will break non-root policy (pod: %q, container: %s)", imageUser, podDesc(pod), c.Name)
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

// windowsImageUser is the default user of a Windows base image as far as
// the emulation knows it: Server Core and Server images (and the images
// built on them, whose tags say windowsservercore) run as
// ContainerAdministrator, Nano Server as ContainerUser. Other images give
// "", which the kubelet does not check, as it skips an image without a
// user.
func windowsImageUser(ref string) string {
	repo, tag := ref, ""
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		repo, tag = ref[:i], ref[i+1:]
	}
	switch {
	case strings.Contains(repo, "nanoserver") || strings.Contains(tag, "nanoserver"),
		// The e2e nonroot image's Windows variant says USER ContainerUser.
		strings.HasSuffix(repo, "/e2e-test-images/nonroot"):
		return "ContainerUser"
	case strings.Contains(repo, "servercore") || strings.Contains(tag, "windowsservercore"),
		repo == "mcr.microsoft.com/windows/server", repo == "mcr.microsoft.com/windows":
		return windowsRootUser
	}
	return ""
}

// AnnotationImageUsers lists, comma-separated, the Windows accounts an image
// adds to the base image's (annotations.ImageUsers).
const AnnotationImageUsers = annotations.ImageUsers

// builtinWindowsUsers are the accounts every Windows container image has:
// the two container accounts and the service identities (a gMSA pod runs as
// NETWORK SERVICE). Compared without case, as Windows does.
var builtinWindowsUsers = []string{
	windowsRootUser, "ContainerUser",
	`NT AUTHORITY\SYSTEM`, `NT AUTHORITY\NETWORK SERVICE`, `NT AUTHORITY\LOCAL SERVICE`,
}

// runAsWindowsUser is the account a container's first process logs on as,
// and whether the image has it. A HostProcess container logs on to the
// node: as one of its service accounts, or as a local group of the node,
// for which hcsshim makes a temporary user named after the container
// (account is then what whoami prints).
func (n *emuNode) runAsWindowsUser(pod *corev1.Pod, c *corev1.Container, id string) (user string, known bool, account string) {
	user = runAsUserName(pod, c)
	if user == "" {
		return "", true, ""
	}
	if windows.IsHostProcessPod(&pod.Spec) {
		if n.groups.Has(user) {
			return user, true, strings.ToLower(n.spec.name) + `\` + id[:min(len(id), 20)]
		}
		return user, builtinWindowsUser(user), ""
	}
	declared := strings.Split(pod.Annotations[AnnotationImageUsers], ",")
	return user, hasAccount(declared, user) || builtinWindowsUser(user), ""
}

func builtinWindowsUser(user string) bool { return hasAccount(builtinWindowsUsers, user) }

// hasAccount reports whether list names user, as Windows compares
// account names: without case.
func hasAccount(list []string, user string) bool {
	for _, k := range list {
		if strings.EqualFold(strings.TrimSpace(k), user) {
			return true
		}
	}
	return false
}

// runAsUserName is the container's runAsUserName, or else the pod's (KLT-7).
func runAsUserName(pod *corev1.Pod, c *corev1.Container) string {
	var podOpts *corev1.WindowsSecurityContextOptions
	if pod.Spec.SecurityContext != nil {
		podOpts = pod.Spec.SecurityContext.WindowsOptions
	}
	return windowsContainerConfig(c, podOpts, 1).RunAsUserName
}
