package kubeletenv

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	volumeutil "k8s.io/kubernetes/pkg/volume/util"
	volumevalidation "k8s.io/kubernetes/pkg/volume/validation"
)

// Mount is one volumeMount as the kubelet hands it to the runtime.
type Mount struct {
	Volume string // the pod volume's name
	Kind   string // VolumeKind of that volume
	// Path is the path in the container: mountPath, made absolute the
	// kubelet's way when it is not (Linux: "/"+path; Windows: "c:\"+path,
	// "c:"+path for a rooted one; a Windows path starting with / or \ is
	// already absolute and is kept as given).
	Path string
	// SubPath is subPath, or subPathExpr expanded; relative, never "..".
	SubPath string
	// ReadOnly is readOnly, or forced by the volume type: configMap,
	// secret, downwardAPI and projected volumes are always read-only
	// (their plugins report the ReadOnly attribute).
	ReadOnly bool
}

// Mounts is makeMounts (kubelet_pods.go) for the container's volumeMounts.
// kubeletEnv is KubeletEnv's list: subPathExpr expands only $(VAR) against
// it, and a reference to an unset or empty variable fails. The errors are
// the kubelet's CreateContainerConfigError messages.
func Mounts(pod *corev1.Pod, container *corev1.Container, kubeletEnv []string, windows bool) ([]Mount, error) {
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Spec.Volumes {
		vols[v.Name] = v
	}
	env := toEnvVars(kubeletEnv)
	var out []Mount
	for _, vm := range container.VolumeMounts {
		vol, ok := vols[vm.Name]
		if !ok {
			return nil, fmt.Errorf("cannot find volume %q to mount into container %q", vm.Name, container.Name)
		}
		sub, err := subPath(vm, env, windows)
		if err != nil {
			return nil, err
		}
		kind := VolumeKind(vol)
		out = append(out, Mount{
			Volume:   vm.Name,
			Kind:     kind,
			Path:     containerPath(vm.MountPath, windows),
			SubPath:  sub,
			ReadOnly: vm.ReadOnly || alwaysReadOnly(kind),
		})
	}
	return out, nil
}

func subPath(vm corev1.VolumeMount, env []kubecontainer.EnvVar, windows bool) (string, error) {
	sub := vm.SubPath
	if vm.SubPathExpr != "" {
		var err error
		if sub, err = kubecontainer.ExpandContainerVolumeMounts(vm, env); err != nil {
			return "", err
		}
	}
	if sub == "" {
		return "", nil
	}
	if isAbs(sub, windows) {
		return "", fmt.Errorf("error SubPath `%s` must not be an absolute path", sub)
	}
	check := sub
	if windows {
		check = strings.ReplaceAll(sub, `\`, "/") // filepath.ToSlash on a Windows kubelet
	}
	if err := volumevalidation.ValidatePathNoBacksteps(check); err != nil {
		return "", fmt.Errorf("unable to provision SubPath `%s`: %w", sub, err)
	}
	return sub, nil
}

// isAbs is pkg/util/filesystem.IsAbs for the node's OS: on Windows a
// drive path, a UNC path, or anything starting with / or \.
func isAbs(p string, windows bool) bool {
	if !windows {
		return strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, `\`) || strings.HasPrefix(p, "/") {
		return true
	}
	return len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// containerPath is the mount's container path (makeMounts): UNC and
// absolute paths are kept, others made absolute with MakeAbsolutePath.
func containerPath(p string, windows bool) string {
	goos := "linux"
	if windows {
		goos = "windows"
		if volumeutil.IsWindowsUNCPath(goos, p) || isAbs(p, true) {
			return p
		}
	} else if isAbs(p, false) {
		return p
	}
	return volumeutil.MakeAbsolutePath(goos, p)
}

func alwaysReadOnly(kind string) bool {
	return FromAPIObjects(kind) || kind == KindImage
}
