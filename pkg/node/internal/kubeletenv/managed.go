package kubeletenv

import (
	"context"
	"io/fs"

	corev1 "k8s.io/api/core/v1"
	volumeutil "k8s.io/kubernetes/pkg/volume/util"
)

// Container paths of the files the kubelet and the runtime manage.
const (
	LinuxHostsPath   = "/etc/hosts"
	WindowsHostsPath = `C:\Windows\System32\drivers\etc\hosts`
	ResolvConfPath   = "/etc/resolv.conf"
	HostnamePath     = "/etc/hostname"
)

// ManagedFile is a single file bind-mounted into the container.
type ManagedFile struct {
	Path     string // container path
	Data     []byte
	Mode     fs.FileMode
	ReadOnly bool
}

// ManagedFiles are the files mounted besides the pod's volumes:
//   - the hosts file (kubelet, makeMounts): /etc/hosts, and on Windows
//     C:\Windows\System32\drivers\etc\hosts — the Windows kubelet manages
//     it too, except for pods with a hostProcess container; only once the
//     pod has an IP or uses the host network, and not when a volume is
//     mounted on that path;
//   - /etc/hostname and /etc/resolv.conf (containerd, Linux only), unless
//     a volume is mounted there; read-only with readOnlyRootFilesystem;
//   - the termination message file (terminationMessagePath, kubelet
//     kuberuntime makeMounts): empty, 0666, fresh per container start.
func ManagedFiles(ctx context.Context, pod *corev1.Pod, container *corev1.Container, node Node, podIPs []string) ([]ManagedFile, error) {
	mounted := map[string]bool{}
	for _, vm := range container.VolumeMounts {
		mounted[vm.MountPath] = true
	}
	var out []ManagedFile
	hostsPath := LinuxHostsPath
	if node.Windows {
		hostsPath = WindowsHostsPath
	}
	if (len(podIPs) > 0 || pod.Spec.HostNetwork) && !mounted[hostsPath] && !(node.Windows && hasHostProcess(pod)) {
		data, err := hostsContent(pod, node, podIPs)
		if err != nil {
			return nil, err
		}
		out = append(out, ManagedFile{Path: hostsPath, Data: data, Mode: 0644})
	}
	if !node.Windows {
		ro := readOnlyRoot(container)
		if !mounted[HostnamePath] {
			h, err := SandboxHostname(pod, node)
			if err != nil {
				return nil, err
			}
			out = append(out, ManagedFile{Path: HostnamePath, Data: []byte(h + "\n"), Mode: 0644, ReadOnly: ro})
		}
		if !mounted[ResolvConfPath] {
			data, err := ResolvConf(ctx, pod, node)
			if err != nil {
				return nil, err
			}
			out = append(out, ManagedFile{Path: ResolvConfPath, Data: data, Mode: 0644, ReadOnly: ro})
		}
	}
	if p := container.TerminationMessagePath; p != "" {
		goos := "linux"
		if node.Windows {
			goos = "windows"
		}
		out = append(out, ManagedFile{Path: volumeutil.MakeAbsolutePath(goos, p), Data: []byte{}, Mode: 0666})
	}
	return out, nil
}

func hostsContent(pod *corev1.Pod, node Node, podIPs []string) ([]byte, error) {
	if pod.Spec.HostNetwork {
		nodeHosts := node.HostsFile
		if nodeHosts == nil {
			nodeHosts = DefaultNodeHosts(node.Name)
		}
		return HostNetworkHostsFile(pod, nodeHosts), nil
	}
	hostname, domain, err := PodHostname(pod, node.ClusterDomain)
	if err != nil {
		return nil, err
	}
	return HostsFile(pod, podIPs, hostname, domain), nil
}

func hasHostProcess(pod *corev1.Pod) bool {
	isHP := func(sc *corev1.WindowsSecurityContextOptions) bool {
		return sc != nil && sc.HostProcess != nil && *sc.HostProcess
	}
	if psc := pod.Spec.SecurityContext; psc != nil && isHP(psc.WindowsOptions) {
		return true
	}
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			if c.SecurityContext != nil && isHP(c.SecurityContext.WindowsOptions) {
				return true
			}
		}
	}
	return false
}

func readOnlyRoot(c *corev1.Container) bool {
	return c.SecurityContext != nil && isTrue(c.SecurityContext.ReadOnlyRootFilesystem)
}
