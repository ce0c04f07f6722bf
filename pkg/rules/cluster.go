package rules

var planRules = []Rule{
	{ID: "PLAN-1", Title: "three address spaces that must not overlap",
		Text: "A cluster needs a service subnet (default `10.96.0.0/12`, not routed), a cluster subnet for pods (default `10.244.0.0/16`, cut into a /24 or smaller per node) " +
			"and a DNS service IP inside the service subnet (default `10.96.0.10`). The cluster subnet must hold `nodes + nodes × maxPodsPerNode` addresses " +
			"(5 nodes of 100 pods need 505). None of them may overlap each other or the hosts' management network.",
		Commands: []string{Net, Doctor, Plan, Up}},
	{ID: "PLAN-2", Title: "preparing the Linux side",
		Text: "Linux nodes set `net.bridge.bridge-nf-call-iptables=1`; flannel is deployed with a `net-conf.json` using the cluster subnet (PLAN-1) and the VXLAN backend (NET-2), " +
			"its CNI config named `vxlan0`; Linux DaemonSets are patched with a node selector so they stay on Linux nodes.",
		Commands: []string{Net, Doctor, Plan, Up}},
	{ID: "PLAN-3", Title: "preparing the Windows side",
		Text: "A Windows node runs the kubelet, kube-proxy and a container runtime (kubectl is optional). The join script `start.ps1` takes `-ManagementIP` (required), " +
			"`-NetworkMode` (l2bridge by default, or overlay), `-ClusterCIDR` (`10.244.0.0/16`), `-ServiceCIDR` (`10.96.0.0/12`), `-KubeDnsServiceIP` (`10.96.0.10`), " +
			"`-InterfaceName` (`Ethernet`) and `-LogDir` (`C:\\k`).",
		Commands: []string{Plan}},
	{ID: "PLAN-4", Title: "kubelet and kube-proxy flags for a Windows node",
		Text: "The kubelet runs with `--hostname-override`, `--pod-infra-container-image`, `--resolv-conf=\"\"`, `--cluster-dns`, `--cluster-domain=cluster.local`, `--kubeconfig`, " +
			"`--cgroups-per-qos=false`, `--enforce-node-allocatable=\"\"`, `--network-plugin=cni` (before 1.24), `--cni-bin-dir`, `--cni-conf-dir`, `--register-with-taints`, " +
			"`--system-reserved` with at least 2Gi of memory, and `--windows-priorityclass`. kube-proxy runs with `--proxy-mode=kernelspace`, `--hostname-override`, `--kubeconfig` " +
			"and `--enable-dsr`; on overlay it adds `--feature-gates=WinOverlay=true`, `--network-name=vxlan0` and `--source-vip`, on l2bridge it uses `KUBE_NETWORK=cbr0`.",
		Commands: []string{Plan, Up}},
	{ID: "PLAN-5", Title: "running the node components as services",
		Text: "Register the kubelet and kube-proxy as Windows services, either with `sc.exe create <name> binPath= \"<exe> --service <args>\"` (spaces escaped) " +
			"or with nssm (`install`, then `set` for AppParameters, AppDirectory, AppEnvironmentExtra, DependOnService kubelet, AppStdout and AppStderr).",
		Commands: []string{Plan}},
	{ID: "PLAN-6", Title: "one RuntimeClass per Windows build",
		Text:     "Each Windows build gets a RuntimeClass with its handler, a `scheduling.nodeSelector` on OS, architecture and `windows-build`, and tolerations for the Windows taint.",
		Commands: []string{Lint, Plan}},
	{ID: "PLAN-7", Title: "proxy settings",
		Text:     "Behind an HTTP proxy, set `HTTP_PROXY` and `HTTPS_PROXY` for the whole machine on each Windows node.",
		Commands: []string{Doctor, Plan}},
}

var tsRules = []Rule{
	{ID: "TS-1", Title: "node not Ready or its processes missing",
		Text:     "A Windows node stays NotReady when the kubelet, kube-proxy or flanneld is not running.",
		Commands: []string{Net, Doctor}},
	{ID: "TS-2", Title: "pods without network",
		Text:     "When the node is a VM, its network adapter must allow MAC address spoofing, or pods get no connectivity.",
		Commands: []string{Doctor}},
	{ID: "TS-3", Title: "pods cannot ping outside",
		Text:     "ICMP to other networks does not work (LIM-17); for TCP and UDP failures, check the OutBoundNAT exception list (NET-6).",
		Commands: []string{Net, Doctor}},
	{ID: "TS-4", Title: "the node cannot reach its own NodePort",
		Text:     "Expected on Windows (LIM-16); test from another machine or from a pod.",
		Commands: []string{Net, Doctor}},
	{ID: "TS-5", Title: "HNS endpoints or vNICs disappear",
		Text:     "kube-proxy runs without a `--hostname-override` that equals the node name (KP-8).",
		Commands: []string{Net, Doctor}},
	{ID: "TS-6", Title: "a node rejoined under flannel cannot network",
		Text:     "Stale `SourceVip.json` and `SourceVipRequest.json` from the previous join are left on the node; remove them.",
		Commands: []string{Doctor}},
	{ID: "TS-7", Title: "flanneld waits for the network forever",
		Text:     "flanneld stuck at `Waiting for the Network to be created` usually recovers when it is restarted.",
		Commands: []string{Doctor}},
	{ID: "TS-8", Title: "subnet.env is missing",
		Text:     "Without `/run/flannel/subnet.env` (NET-8) the CNI plugin cannot set up pods; flannel has not finished starting on the node.",
		Commands: []string{Net, Doctor}},
	{ID: "TS-9", Title: "the node cannot reach a Service IP",
		Text:     "Expected on Windows (LIM-16); pods on the node can.",
		Commands: []string{Net, Doctor}},
	{ID: "TS-10", Title: "the kubelet cannot find the network adapter",
		Text:     "The HNS network `cbr0` or its vEthernet adapter is missing, or `-InterfaceName` names the wrong adapter.",
		Commands: []string{Doctor}},
	{ID: "TS-11", Title: "pods stuck in ContainerCreating or restarting",
		Text:     "Usually the pause image does not fit the host build (IMG-5).",
		Commands: []string{Doctor, Plan, Up}},
	{ID: "TS-12", Title: "names resolve wrongly",
		Text:     "Windows pods resolve names differently from Linux pods (DNS-1).",
		Commands: []string{Net, Doctor}},
	{ID: "TS-13", Title: "kubectl port-forward fails with wincat not found",
		Text:     "The pause image lacks `wincat` (IMG-5).",
		Commands: []string{Doctor}},
	{ID: "TS-14", Title: "installing behind a proxy",
		Text:     "Set the machine-wide proxy variables (PLAN-7).",
		Commands: []string{Doctor, Plan}},
}

var verRules = []Rule{
	{ID: "VER-1", Title: "Windows Server releases per Kubernetes version",
		Text: "Kubernetes 1.17 supports Windows Server 2019 and SAC 1809; 1.18 supports 2019, 1809, 1903 and 1909; 1.19 and 1.20 support 2019, 1909 and 2004; " +
			"1.27 supports LTSC 2019 and 2022 and SAC 20H2. The control plane always runs on Linux.",
		Commands: []string{Plan}},
	{ID: "VER-2", Title: "the target Kubernetes version predates a Windows feature the workload uses",
		Text: "Windows features arrived in these Kubernetes versions: production support for Windows and GMSA in 1.14, DSR and preserve-destination in 1.15, `runAsUserName` in 1.16, " +
			"the `windows-build` label in 1.17, session affinity in 1.19, stable containerd in 1.20 and GA HostProcess containers in 1.26.",
		Commands: []string{Lint, Net}},
}
