package doctor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/rules"
)

// checkNodeShell lists the checks only the Windows node's shell (or its
// Hyper-V host) can answer: one info finding per rule with the PowerShell
// to run, filled with the cluster's own values, and what to look for.
func checkNodeShell(a *audit) []Finding {
	wins := a.windowsNodes()
	if len(wins) == 0 {
		return nil
	}
	var objs []Object
	for _, n := range wins {
		objs = append(objs, nodeObject(n.Name))
	}
	c := a.model.Cluster
	networks := strings.Join(a.hnsNetworks(), " or ")
	shell := []Finding{
		{
			Finding: rules.New("TS-2", "",
				"pods without network on a Windows VM: the VM's network adapter must allow MAC address spoofing, or the Hyper-V switch drops the pods' traffic").
				WithFix("MacAddressSpoofing must be On; if not: Set-VMNetworkAdapter -VMName <node VM> -MacAddressSpoofing On (other hypervisors: allow forged transmits / promiscuous mode)"),
			Command: "# on the Hyper-V host:\nGet-VMNetworkAdapter -VMName <node VM> | Format-List VMName, MacAddressSpoofing",
		},
		{
			Finding: rules.New("TS-10", "",
				fmt.Sprintf("the kubelet or kube-proxy cannot find the network: the HNS network %s and its vEthernet adapter must exist", networks)).
				WithFix(fmt.Sprintf("an HNS network named %s and an adapter 'vEthernet (<interface>)'; if missing, restart flanneld and check start.ps1's -InterfaceName is the node's real adapter (Get-NetAdapter)", networks)),
			Command: "Get-HnsNetwork | Format-Table Name, Type, ManagementIP\nGet-NetAdapter | Where-Object Name -like 'vEthernet*'",
		},
		{
			Finding: rules.New("TS-6", "",
				"a node that rejoined a flannel overlay cluster keeps a stale source VIP: kube-proxy reuses SourceVip.json from the old subnet").
				WithFix("the IP in SourceVip.json must be inside the node's current pod CIDR (kubectl get node <node> -o jsonpath='{.spec.podCIDR}'); if not, delete both files and restart kube-proxy"),
			Command: "Get-Content C:\\k\\SourceVip.json, C:\\k\\SourceVipRequest.json -ErrorAction SilentlyContinue",
		},
		{
			Finding: rules.New("NET-6", "",
				fmt.Sprintf("pods cannot reach outside addresses (TS-3): the CNI config's OutBoundNAT ExceptionList must hold the cluster CIDR %s and the service CIDR %s (and on l2bridge the management subnet), and nothing the pods reach through SNAT", c.ClusterCIDR, c.ServiceCIDR)).
				WithFix(fmt.Sprintf("make ExceptionList exactly %s, %s (plus the management subnet on l2bridge) and restart flanneld", c.ClusterCIDR, c.ServiceCIDR)),
			Command: "Get-Content C:\\etc\\cni\\net.d\\*.conf* | Select-String -Context 0,6 ExceptionList",
		},
		{
			Finding: rules.New("TS-13", "",
				"kubectl port-forward to pods on Windows nodes fails with \"wincat not found\" when the pause image has no wincat.exe").
				WithFix("use a pause image that ships wincat: registry.k8s.io/pause:3.6 or later, or mcr.microsoft.com/oss/kubernetes/pause:1.4.1 or later"),
			Command: "Select-String -Path 'C:\\Program Files\\containerd\\config.toml' -Pattern sandbox_image",
		},
		{
			Finding: rules.New("TS-14", "",
				"a node behind an HTTP proxy cannot pull images or reach the API server unless the proxy is set at machine scope").
				WithFix(fmt.Sprintf("behind a proxy set HTTP_PROXY and HTTPS_PROXY with [Environment]::SetEnvironmentVariable(..., 'Machine'), put %s and %s in NO_PROXY, and restart containerd and kubelet", c.ClusterCIDR, c.ServiceCIDR)),
			Command: "[Environment]::GetEnvironmentVariable('HTTP_PROXY','Machine'); [Environment]::GetEnvironmentVariable('HTTPS_PROXY','Machine'); [Environment]::GetEnvironmentVariable('NO_PROXY','Machine')",
		},
	}
	for i := range shell {
		shell[i].Objects = objs
		shell[i].Evidence = "the API does not show this; run the command on each node"
	}
	return shell
}

// hnsNetworks are the HNS network names the model expects on the Windows
// nodes (vxlan0, cbr0, flannel.4096).
func (a *audit) hnsNetworks() []string {
	set := map[string]bool{}
	for _, n := range a.model.Nodes {
		for _, net := range n.HNS.Networks {
			set[net.Name] = true
		}
		if n.Proxy.NetworkName != "" {
			set[n.Proxy.NetworkName] = true
		}
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"vxlan0 (overlay) or cbr0 (l2bridge)"}
	}
	return out
}
