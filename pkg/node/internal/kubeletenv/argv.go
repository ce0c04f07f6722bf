package kubeletenv

import (
	"errors"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// ErrNoCommand is containerd's error for a container with neither a
// command nor an image entrypoint/cmd (CreateContainerError).
var ErrNoCommand = errors.New("no command specified")

// Argv is the process's argv. The kubelet expands $(VAR) in command and
// args against its own env list (kubeletEnv: KubeletEnv's result, not the
// image's env; kuberuntime_container.go generateContainerConfig with
// ExpandContainerCommandAndArgs). containerd then fills in from the image
// (WithProcessArgs in internal/cri/opts/spec.go): without a command the
// image's ENTRYPOINT is used (unless it is [""]), and without args too the
// image's CMD; a command always drops CMD.
func Argv(container *corev1.Container, img Image, kubeletEnv []string) ([]string, error) {
	command, args := kubecontainer.ExpandContainerCommandAndArgs(container, toEnvVars(kubeletEnv))
	if len(command) == 0 {
		if len(args) == 0 {
			args = append([]string{}, img.Cmd...)
		}
		if !(len(img.Entrypoint) == 1 && img.Entrypoint[0] == "") {
			command = append([]string{}, img.Entrypoint...)
		}
	}
	if len(command) == 0 && len(args) == 0 {
		return nil, ErrNoCommand
	}
	return append(command, args...), nil
}

// WorkingDir is the process's working directory: the container's
// workingDir, else the image's, else the root (containerd's default spec
// cwd "/" on Linux, C:\ on Windows).
func WorkingDir(container *corev1.Container, img Image) string {
	switch {
	case container.WorkingDir != "":
		return container.WorkingDir
	case img.WorkingDir != "":
		return img.WorkingDir
	case img.Windows:
		return `C:\`
	}
	return "/"
}

func toEnvVars(env []string) []kubecontainer.EnvVar {
	out := make([]kubecontainer.EnvVar, 0, len(env))
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		out = append(out, kubecontainer.EnvVar{Name: name, Value: val})
	}
	return out
}
