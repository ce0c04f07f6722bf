package podworker

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
	winos "github.com/winkube/winkube/pkg/node/internal/windows"
	"github.com/winkube/winkube/pkg/windows"
)

// runAsWindowsUser is the account a container's first process logs on as,
// and whether the image has it. A HostProcess container logs on to the
// node: as one of its service accounts, or as a local group of the node,
// for which hcsshim makes a temporary user named after the container
// (account is then what whoami prints).
func (n *Node) runAsWindowsUser(pod *corev1.Pod, c *corev1.Container, id string) (user string, known bool, account string) {
	user = winos.RunAsUserName(pod, c)
	if user == "" {
		return "", true, ""
	}
	if windows.IsHostProcessPod(&pod.Spec) {
		if n.Groups.Has(user) {
			return user, true, strings.ToLower(n.Name) + `\` + id[:min(len(id), 20)]
		}
		return user, winos.BuiltinUser(user), ""
	}
	declared := strings.Split(pod.Annotations[annotations.ImageUsers], ",")
	return user, winos.HasAccount(declared, user) || winos.BuiltinUser(user), ""
}
