package plan

import (
	"fmt"
	"strings"
)

// readme is the top-level README.md: what to apply, in which order.
func (p *Plan) readme() File {
	var b strings.Builder
	b.WriteString(mdHeader("PLAN-1, PLAN-2, PLAN-3, PLAN-6"))
	fmt.Fprintf(&b, "# Join plan for cluster %s (Kubernetes %s, %s)\n\n", p.Name, p.KubernetesVersion, p.Mode)
	b.WriteString("1. On every Linux node: `sh linux/sysctl.sh` (PLAN-2).\n")
	b.WriteString("2. On the control plane: `kubectl apply -f linux/kube-flannel.yaml`, then `sh linux/pin-linux-daemonsets.sh` (PLAN-2, NET-2).\n")
	b.WriteString("3. On each Windows node, follow `windows/<node>/README.md` (PLAN-3, PLAN-4, PLAN-5).\n")
	if len(p.WindowsNodes) > 0 {
		b.WriteString("4. `kubectl apply -f runtimeclasses.yaml` (PLAN-6).\n")
	}
	b.WriteString("\nWindows nodes:\n\n")
	for _, n := range p.WindowsNodes {
		fmt.Fprintf(&b, "- `%s`: build %s, management IP %s, interface %s\n", n.Name, n.Build, n.ManagementIP, n.InterfaceName)
	}
	return File{Path: "README.md", Content: b.String()}
}

// nodeReadme says which files belong to which of the two join routes.
func (p *Plan) nodeReadme(n Node) string {
	var b strings.Builder
	b.WriteString(mdHeader("PLAN-3, PLAN-4, PLAN-5, PLAN-7, KP-8"))
	fmt.Fprintf(&b, "# %s\n\nBuild %s, management IP %s, interface %s, pause image %s.\n", n.Name, n.Build, n.ManagementIP, n.InterfaceName, n.PauseImage)
	b.WriteString("Run every script in an elevated PowerShell. Put kubelet.exe and kube-proxy.exe (and kubeadm.exe for route B) in `C:\\k`.\n\n")
	if p.Cluster.Proxy != nil {
		b.WriteString("Behind the proxy, run `proxy.ps1` first (PLAN-7).\n\n")
	}
	b.WriteString("## Route A: seed 004 (flannel start.ps1)\n\n")
	b.WriteString("1. Copy the cluster's kubeconfig to `C:\\k\\config`.\n")
	b.WriteString("2. Run `start-seed.ps1`: it downloads start.ps1 and runs it with this node's parameters (PLAN-3).\n")
	b.WriteString("3. Optionally run kubelet and kube-proxy as services: `register-services.ps1` (sc.exe) or `register-services-nssm.ps1` (nssm) (PLAN-5).\n")
	b.WriteString("   Their flags are `kubelet-flags.txt` and `kube-proxy-flags.txt` (PLAN-4).\n\n")
	b.WriteString("## Route B: kubeadm join with HostProcess DaemonSets\n\n")
	b.WriteString("1. Once per cluster: `kubectl apply -f ../hostprocess/kube-flannel-windows.yaml -f ../hostprocess/kube-proxy-windows.yaml`.\n")
	b.WriteString("2. Install containerd, then run `kubeadm-join.ps1 -Token <token> -CACertHash sha256:<hash>`: it registers the kubelet service\n")
	b.WriteString("   with the flags of `kubelet-flags.txt` and kubeadm's kubeconfig, and joins. flanneld and kube-proxy then run in HostProcess pods.\n")
	return b.String()
}
