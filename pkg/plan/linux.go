package plan

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/winkube/winkube/pkg/addons"
	"github.com/winkube/winkube/pkg/kubeversion"
)

// fullVersion is the Kubernetes version with a v and a patch, as image
// tags spell it (1.27 → v1.27.0).
func fullVersion(v string) string {
	parsed, err := kubeversion.Parse(v)
	if err != nil {
		return v // New has refused it already (KubernetesMinor)
	}
	return parsed.Full()
}

// addonObjects are the kube-system add-ons `winkube up` installs, for the
// plan's Kubernetes version, whose k8s-app label is one of apps.
func (p *Plan) addonObjects(apps ...string) []addons.Object {
	want := map[string]bool{}
	for _, a := range apps {
		want[a] = true
	}
	var out []addons.Object
	for _, o := range addons.ObjectsForVersion(p.Cluster, fullVersion(p.KubernetesVersion)) {
		if want[o.GetLabels()["k8s-app"]] {
			out = append(out, o)
		}
	}
	return out
}

// pinPatch is PLAN-2's strategic merge patch, as JSON for the command line.
const pinPatch = `{"spec":{"template":{"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}}}`

func (p *Plan) linuxFiles() ([]File, error) {
	flannel, err := manifest(header("#", "PLAN-2, NET-2, PLAN-1",
		"flannel for Linux nodes: net-conf.json holds the cluster subnet (PLAN-1) and the backend",
		"Windows flannel interoperates with (NET-2: vxlan, VNI 4096, port 4789; host-gw on l2bridge);",
		"cni-conf.json names the network "+addons.NetworkName(p.Mode)+"; the DaemonSet runs on kubernetes.io/os: linux only.",
		"Apply on the control plane: kubectl apply -f kube-flannel.yaml"), p.addonObjects("flannel"))
	if err != nil {
		return nil, err
	}
	patch := header("#", "PLAN-2",
		"Strategic merge patch that pins a Linux DaemonSet to Linux nodes, so it is never scheduled on a",
		"Windows node. pin-linux-daemonsets.sh applies it to every kube-system DaemonSet without an OS selector; by hand:",
		"kubectl -n kube-system patch daemonset kube-proxy --type strategic --patch-file node-selector-patch.yaml") +
		"spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: linux\n"
	pin := "#!/bin/sh\n" + header("#", "PLAN-2",
		"Pins every kube-system DaemonSet that has no kubernetes.io/os node selector to Linux nodes",
		"(kube-proxy from kubeadm, a flannel installed from upstream's manifest, ...). DaemonSets already",
		"selecting an OS, like the Windows ones in ../windows/hostprocess, are left alone.") +
		"set -eu\n" +
		"PATCH='" + pinPatch + "'\n" +
		"kubectl -n kube-system get daemonsets \\\n" +
		"  -o jsonpath='{range .items[*]}{.metadata.name}{\" \"}{.spec.template.spec.nodeSelector.kubernetes\\.io/os}{\"\\n\"}{end}' |\n" +
		"while read -r name os; do\n" +
		"  [ -z \"$os\" ] || continue\n" +
		"  kubectl -n kube-system patch daemonset \"$name\" --type strategic --patch \"$PATCH\"\n" +
		"done\n"
	sysctl := "#!/bin/sh\n" + header("#", "PLAN-2",
		"Run on every Linux node: bridged IPv4 traffic must pass iptables for flannel.") +
		"set -eu\n" +
		"sudo modprobe br_netfilter\n" +
		"sudo sysctl net.bridge.bridge-nf-call-iptables=1\n" +
		"echo net.bridge.bridge-nf-call-iptables=1 | sudo tee /etc/sysctl.d/99-flannel.conf\n"
	return []File{
		{Path: "linux/kube-flannel.yaml", Content: flannel},
		{Path: "linux/node-selector-patch.yaml", Content: patch},
		{Path: "linux/pin-linux-daemonsets.sh", Content: pin},
		{Path: "linux/sysctl.sh", Content: sysctl},
	}, nil
}

// hostProcessFiles are the kubeadm route's DaemonSets: flanneld and
// kube-proxy in HostProcess pods on every Windows node.
func (p *Plan) hostProcessFiles() ([]File, error) {
	flannel, err := manifest(header("#", "NET-2, SCH-3",
		"flanneld on every Windows node as a HostProcess pod (kubeadm route); it reads net-conf.json from the",
		"kube-flannel-cfg ConfigMap of ../../linux/kube-flannel.yaml, so apply that first.",
		"Apply once per cluster: kubectl apply -f kube-flannel-windows.yaml"), p.addonObjects("flannel-windows"))
	if err != nil {
		return nil, err
	}
	proxy, err := manifest(header("#", "PLAN-4, KP-1, KP-2, KP-8, SCH-3",
		"kube-proxy in kernelspace mode on every Windows node as a HostProcess pod (kubeadm route):",
		"--hostname-override is the node's own name (KP-8), the HNS network comes from --network-name or",
		"KUBE_NETWORK (KP-1), feature gates only where the Kubernetes version still needs them (KP-2).",
		"Apply once per cluster: kubectl apply -f kube-proxy-windows.yaml"), withoutLinuxKubeProxy(p.addonObjects("kube-proxy", "kube-proxy-windows")))
	if err != nil {
		return nil, err
	}
	return []File{
		{Path: "windows/hostprocess/kube-flannel-windows.yaml", Content: flannel},
		{Path: "windows/hostprocess/kube-proxy-windows.yaml", Content: proxy},
	}, nil
}

// withoutLinuxKubeProxy drops the Linux kube-proxy DaemonSet: a real
// cluster has kubeadm's; only its account and role binding come along for
// the Windows one.
func withoutLinuxKubeProxy(objs []addons.Object) []addons.Object {
	var out []addons.Object
	for _, o := range objs {
		if _, ok := o.(*appsv1.DaemonSet); ok && o.GetName() == addons.KubeProxyDaemonSet {
			continue
		}
		out = append(out, o)
	}
	return out
}
