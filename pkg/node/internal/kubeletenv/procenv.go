package kubeletenv

import (
	"context"
	"strings"
	"unique"

	corev1 "k8s.io/api/core/v1"
)

// DefaultLinuxPath is the PATH containerd's default spec carries
// (oci.WithDefaultPathEnv).
const DefaultLinuxPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Environment is a container's environment at two levels.
type Environment struct {
	// Kubelet is the kubelet's list (KubeletEnv): what $(VAR) in command,
	// args and subPathExpr expands against.
	Kubelet []string
	// Process is the first process's environ, in order, as the runtime
	// builds it (LinuxProcessEnv or WindowsProcessEnv).
	Process []string
}

// Env computes both levels for a container of pod on node.
func Env(ctx context.Context, objs Objects, pod *corev1.Pod, container *corev1.Container, node Node, img Image, podIPs []string) (Environment, error) {
	kube, err := KubeletEnv(ctx, objs, pod, container, node, podIPs)
	if err != nil {
		return Environment{}, err
	}
	hostname, err := SandboxHostname(pod, node)
	if err != nil {
		return Environment{}, err
	}
	id, err := ContainerIdentity(pod, container, img, node.Windows)
	if err != nil {
		return Environment{}, err
	}
	if node.Windows {
		return Environment{Kubelet: kube, Process: WindowsProcessEnv(kube, img, hostname, id.Account, cpuCount(node))}, nil
	}
	return Environment{Kubelet: kube, Process: LinuxProcessEnv(kube, img, hostname, id.Home)}, nil
}

// LinuxProcessEnv builds environ the way containerd and runc do.
// containerd (internal/cri/server/container_create.go buildLinuxSpec)
// starts from [PATH=default, HOSTNAME=<sandbox hostname>] and applies the
// image's Env followed by the kubelet's with replaceOrAppendEnvValues: a
// name already in the defaults is replaced in place, anything else is
// appended, so a name both the image and the kubelet set appears twice.
// runc (libcontainer prepareEnv) then keeps only the last occurrence of
// each name, at that occurrence's position, and appends HOME (the user's
// passwd home) when it is unset or empty.
func LinuxProcessEnv(kubelet []string, img Image, hostname, home string) []string {
	env := replaceOrAppend([]string{"PATH=" + DefaultLinuxPath, "HOSTNAME=" + hostname}, append(append([]string{}, img.Env...), kubelet...))
	env = keepLast(env)
	for i, kv := range env {
		if name, val, _ := strings.Cut(kv, "="); name == "HOME" {
			if val != "" {
				return env
			}
			env = append(env[:i], env[i+1:]...) // runc drops an empty HOME
			break
		}
	}
	if home == "" {
		home = "/"
	}
	return append(env, intern("HOME="+home))
}

// intern is the one shared copy of an environment entry many containers
// have alike (HOME=/root, the kubernetes service's variables), so that
// 10,000 containers do not keep 10,000 copies.
func intern(kv string) string { return unique.Make(kv).Value() }

// replaceOrAppend is containerd's oci replaceOrAppendEnvValues: only the
// names in defaults are replaced; an override without '=' unsets one.
func replaceOrAppend(defaults, overrides []string) []string {
	index := map[string]int{}
	out := append([]string{}, defaults...)
	for i, kv := range defaults {
		name, _, _ := strings.Cut(kv, "=")
		index[name] = i
	}
	for _, kv := range overrides {
		name, _, ok := strings.Cut(kv, "=")
		i, known := index[name]
		switch {
		case !ok && known:
			out[i] = ""
		case !ok:
		case known:
			out[i] = kv
		default:
			out = append(out, kv)
		}
	}
	kept := out[:0]
	for _, kv := range out {
		if kv != "" {
			kept = append(kept, kv)
		}
	}
	return kept
}

// keepLast drops all but the last occurrence of each name.
func keepLast(env []string) []string {
	seen := map[string]bool{}
	var rev []string
	for i := len(env) - 1; i >= 0; i-- {
		name, _, _ := strings.Cut(env[i], "=")
		if seen[name] {
			continue
		}
		seen[name] = true
		rev = append(rev, env[i])
	}
	out := make([]string, len(rev), len(rev)+1) // room for HOME
	for i, kv := range rev {
		out[len(rev)-1-i] = kv
	}
	return out
}
