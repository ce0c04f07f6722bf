package plan

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/addons"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// Paths on the Windows node, as seed 004 lays them out.
const (
	kDir            = `C:\k`
	seedKubeconfig  = kDir + `\config`
	cniBinDir       = kDir + `\cni`
	cniConfDir      = kDir + `\cni\config`
	containerdPipe  = "npipe:////./pipe/containerd-containerd"
	sourceVIPVar    = "$SourceVip"
	priorityClass   = "ABOVE_NORMAL_PRIORITY_CLASS"
	kubeadmConf     = `C:\etc\kubernetes\kubelet.conf`
	kubeadmBootConf = `C:\etc\kubernetes\bootstrap-kubelet.conf`
	kubeadmKubeletC = `C:\var\lib\kubelet\config.yaml`
)

// Kubernetes minors where kubelet flags went away.
const (
	dockershimFlagsRemoved = 24 // --network-plugin, --cni-bin-dir, --cni-conf-dir
	podInfraFlagRemoved    = 35 // --pod-infra-container-image
)

// flag is one command-line flag; an empty value is meaningful (PLAN-4's
// --resolv-conf="").
type flag struct{ name, value string }

// text is the flag as the seeds write it: --resolv-conf="".
func (f flag) text() string {
	if f.value == "" {
		return "--" + f.name + `=""`
	}
	return "--" + f.name + "=" + f.value
}

// serviceArg is the flag inside an sc.exe binPath or nssm AppParameters:
// an empty value stays empty (--resolv-conf=) so no quote needs escaping,
// and a value with spaces is quoted as sc.exe wants it (PLAN-5).
func (f flag) serviceArg() string {
	v := f.value
	if strings.Contains(v, " ") {
		v = `\"` + v + `\"`
	}
	return "--" + f.name + "=" + v
}

func joinArgs(flags []flag, render func(flag) string) string {
	parts := make([]string, len(flags))
	for i, f := range flags {
		parts[i] = render(f)
	}
	return strings.Join(parts, " ")
}

// kubeletFlags are PLAN-4's kubelet flags for a node, for the seed's
// kubeconfig in C:\k (kubeadm adds its own kubeconfig flags).
func (p *Plan) kubeletFlags(n Node, kubeconfig []flag) []flag {
	c := p.Cluster
	pool := n.pool
	fs := []flag{{"hostname-override", n.Name}, {"node-ip", n.ManagementIP}}
	fs = append(fs, kubeconfig...)
	fs = append(fs,
		flag{"cluster-dns", c.Network.DNSServiceIP},
		flag{"cluster-domain", addons.ClusterDomain},
		flag{"resolv-conf", ""},
		flag{"cgroups-per-qos", "false"},
		flag{"enforce-node-allocatable", ""},
	)
	if p.Minor < podInfraFlagRemoved {
		fs = append(fs, flag{"pod-infra-container-image", n.PauseImage})
	}
	fs = append(fs, runtimeFlags(pool.Runtime, p.Minor)...)
	if len(pool.Taints) > 0 {
		fs = append(fs, flag{"register-with-taints", taintList(pool.Taints)})
	}
	if l := labelList(pool.Labels); l != "" {
		fs = append(fs, flag{"node-labels", l})
	}
	if r := resourceList(pool.SystemReserved); r != "" {
		fs = append(fs, flag{"system-reserved", r})
	}
	if r := resourceList(pool.KubeReserved); r != "" {
		fs = append(fs, flag{"kube-reserved", r})
	}
	if e := evictionList(pool.EvictionHard); e != "" {
		fs = append(fs, flag{"eviction-hard", e})
	}
	return append(fs, flag{"max-pods", fmt.Sprint(pool.MaxPods)}, flag{"windows-priorityclass", priorityClass})
}

// runtimeFlags connect the kubelet to its runtime: CNI through dockershim
// before 1.24, the containerd pipe otherwise.
func runtimeFlags(runtime string, minor int) []flag {
	if minor < dockershimFlagsRemoved {
		fs := []flag{{"network-plugin", "cni"}, {"cni-bin-dir", cniBinDir}, {"cni-conf-dir", cniConfDir}}
		if runtime == v1alpha1.RuntimeContainerd {
			fs = append(fs, flag{"container-runtime", "remote"}, flag{"container-runtime-endpoint", containerdPipe})
		}
		return fs
	}
	return []flag{{"container-runtime-endpoint", containerdPipe}}
}

func taintList(taints []corev1.Taint) string {
	parts := make([]string, len(taints))
	for i, t := range taints {
		parts[i] = t.Key + "=" + t.Value + ":" + string(t.Effect)
	}
	return strings.Join(parts, ",")
}

func labelList(labels map[string]string) string {
	var parts []string
	for k, v := range labels {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func resourceList(rl corev1.ResourceList) string {
	var parts []string
	for k, q := range rl {
		parts = append(parts, string(k)+"="+q.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func evictionList(ev map[string]string) string {
	var parts []string
	for k, v := range ev {
		parts = append(parts, k+"<"+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// kubeProxyFlags are the Windows kube-proxy flags of the kube-proxy-windows
// DaemonSet (addons.WindowsProxyArgs, PLAN-4, KP-1, KP-2) with the node's
// own name filled in (KP-8), the source VIP left to $SourceVip and the
// seed's kubeconfig.
func (p *Plan) kubeProxyFlags(n Node) []flag {
	var fs []flag
	for _, a := range addons.WindowsProxyArgs(&p.Cluster.Network, p.Minor) {
		a = strings.ReplaceAll(a, "$(NODE_NAME)", n.Name)
		a = strings.ReplaceAll(a, addons.SourceVIPPlaceholder, sourceVIPVar)
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		fs = append(fs, flag{name, value})
	}
	return append(fs, flag{"kubeconfig", seedKubeconfig})
}

// kubeProxyEnv is the environment kube-proxy needs: KUBE_NETWORK on
// l2bridge, where no --network-name is passed (KP-1).
func (p *Plan) kubeProxyEnv() []string {
	if p.Mode == v1alpha1.ModeL2Bridge {
		return []string{"KUBE_NETWORK=" + addons.NetworkName(p.Mode)}
	}
	return nil
}

// runtimeService is the Windows service of the node's container runtime.
func runtimeService(runtime string) string {
	if runtime == v1alpha1.RuntimeDocker {
		return "docker"
	}
	return "containerd"
}
