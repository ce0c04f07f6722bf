package rules

var netRules = []Rule{
	{ID: "NET-1", Title: "the HNS network modes",
		Text: "L2bridge (win-bridge, Azure-CNI, flannel host-gw; nodes need routes to each other's pod subnets), L2Tunnel (Azure-CNI only), " +
			"Overlay (win-overlay, flannel VXLAN; Windows Server 2019 needs KB4489899; alpha in the oldest guide, beta later), " +
			"Transparent (ovn-kubernetes, with GENEVE or STT tunnels) and NAT, which Kubernetes does not use.",
		Commands: []string{Net, Up}},
	{ID: "NET-2", Title: "flannel VXLAN settings Windows can join",
		Text: "For Windows and Linux nodes to share a VXLAN network, flannel's `net-conf.json` uses Backend `vxlan` with `VNI: 4096` and `Port: 4789`. " +
			"Flannel on Windows accepts a VNI of 4096 or more and port 4789 only, and refuses DirectRouting and GBP. " +
			"The CNI network is named `vxlan0` in the join guide, or `flannel.<VNI>`.",
		Commands: []string{Net, Doctor, Plan, Up}},
	{ID: "NET-3", Title: "flannel host-gw on Windows",
		Text: "host-gw uses an L2Bridge network called `cbr0` whose gateway is the node subnet's `.1` and whose host endpoint is `.2`. " +
			"The node's public IP must be the IP of its interface.",
		Commands: []string{Net, Up}},
	{ID: "NET-4", Title: "the win-bridge CNI plugin",
		Text:     "win-bridge needs an L2Bridge or L2Tunnel network and uses the subnet's base address plus 2 as gateway. Its `ipMasqNetwork` string becomes an OutBoundNAT exception.",
		Commands: []string{Net}},
	{ID: "NET-5", Title: "the win-overlay CNI plugin",
		Text: "win-overlay needs an Overlay network and IPv4. With `ipMasq: true` it adds OutBoundNAT with the HNS subnet as exception. " +
			"Each endpoint's MAC is the two-byte `endpointMacPrefix` (default `0E-2A`) followed by the four octets of its IPv4 address in hex.",
		Commands: []string{Net}},
	{ID: "NET-6", Title: "the OutBoundNAT exception list",
		Text: "Traffic to addresses in the `ExceptionList` leaves the node without SNAT. The list must contain the cluster CIDR, the service CIDR and, for l2bridge, the management subnet; " +
			"it must not contain outside addresses the pods reach through SNAT.",
		Commands: []string{Net, Doctor, Up}},
	{ID: "NET-7", Title: "IP address management",
		Text:     "Pod addresses come from host-local, from azure-vnet-ipam (with Azure-CNI only), or from HNS itself when no IPAM is configured.",
		Commands: []string{Net}},
	{ID: "NET-8", Title: "flannel's subnet.env",
		Text: "flannel writes `FLANNEL_NETWORK`, `FLANNEL_SUBNET` (the node subnet's first address with its prefix length, e.g. `10.244.4.1/24`), " +
			"`FLANNEL_MTU` and `FLANNEL_IPMASQ` to `/run/flannel/subnet.env`; the CNI plugin reads them.",
		Commands: []string{Net, Doctor, Plan}},
	{ID: "NET-9", Title: "traffic flows that work on Windows",
		Text:     "Over TCP and UDP: pod to pod by IP and by name, pod to Service by cluster IP, by short name and by full name, pod to outside addresses by IP and by DNS name, node to pod and pod to node.",
		Commands: []string{Net}},
	{ID: "NET-10", Title: "Service types on Windows",
		Text:     "Windows nodes support ClusterIP, NodePort, LoadBalancer, ExternalName and headless Services, and the Service environment variables in pods.",
		Commands: []string{Up}},
	{ID: "NET-11", Title: "node to pod over flannel VXLAN",
		Text:     "With flannel VXLAN (0.12 or later) a Windows node reaches only the pods on itself, not pods on other nodes.",
		Commands: []string{Net}},
	{ID: "NET-12", Title: "no CNI CHECK in the Windows plugins",
		Text: "win-bridge and win-overlay do not implement the CHECK operation of CNI 0.4.0.",
	},
}

var kpRules = []Rule{
	{ID: "KP-1", Title: "the HNS network kube-proxy uses",
		Text:     "kube-proxy takes the HNS network name from `--network-name`, otherwise from the `KUBE_NETWORK` environment variable (`cbr0` for l2bridge, `vxlan0` for overlay in the join guide), and fails to start when neither is set.",
		Commands: []string{Net, Doctor, Plan, Up}},
	{ID: "KP-2", Title: "DSR and overlay need feature gates",
		Text: "`--enable-dsr` requires the `WinDSR` feature gate (alpha 1.14 to 1.32, beta 1.33, GA 1.34). Overlay networking requires `WinOverlay` " +
			"(alpha 1.14 to 1.19, beta 1.20 to 1.33, GA 1.34) and `--source-vip`.",
		Commands: []string{Net, Doctor, Plan, Up}},
	{ID: "KP-3", Title: "the load balancers kube-proxy programs",
		Text: "For every Service port kube-proxy creates HNS load balancers: one for the cluster IP (flagged DSR with `--enable-dsr`), one for the NodePort (no VIP; external and local-routed), " +
			"one per external IP and one per LoadBalancer ingress IP. The internal port is the target port; the protocols are TCP (6), UDP (17) and SCTP (132). " +
			"A port without endpoints gets no load balancer.",
		Commands: []string{Net, Up}},
	{ID: "KP-4", Title: "remote endpoints",
		Text: "Every backend on another node becomes a remote HNS endpoint whose MAC is `02-11-` followed by the four octets of its IPv4 address in hex. " +
			"On overlay networks it also uses the source VIP and the remote node's provider address.",
		Commands: []string{Net}},
	{ID: "KP-5", Title: "the Windows build of some nodes lacks the Service feature",
		Text: "Service features need a minimum Windows build: session affinity (`sessionAffinity: ClientIP`) needs Windows Server 2022; DSR needs 2019; " +
			"preserving the destination address (annotation `preserve-destination: \"true\"` with DSR) needs 1903; dual-stack needs 2019; keeping the client IP " +
			"(`externalTrafficPolicy: Local` with DSR) needs 2019. The oldest guide names older preview builds for some of these. " +
			"Where a feature is missing, kube-proxy logs it and falls back without telling the user.",
		Commands: []string{Lint, Net, Doctor}},
	{ID: "KP-6", Title: "internalTrafficPolicy Local",
		Text:     "With `internalTrafficPolicy: Local` the cluster IP load balancer on a node uses only the endpoints on that node.",
		Commands: []string{Net}},
	{ID: "KP-7", Title: "NodePort on Windows Server 2022 overlay nodes breaks unless externalTrafficPolicy is Local",
		Text: "Two known problems on Windows Server 2022 (microsoft/Windows-Containers issue 204). First, on overlay networks a NodePort (or LoadBalancer) Service fails when the *destination* node, " +
			"the one running the backend pod the traffic is sent to, runs Windows Server 2022, unless the Service sets `externalTrafficPolicy: Local` (which keeps the traffic on the node that received it, and needs DSR, LIM-12). " +
			"`winkube lint` decides it per Service from the nodes its backends can land on, `winkube doctor` from the nodes its live backend pods run on, in the same words; " +
			"`winkube net` and the emulated nodes' traffic fail NodePort traffic load-balanced to such a backend, whichever node it entered. " +
			"Second, with KB5005619 or later, pod-to-pod traffic on l2bridge fails unless WinDSR is turned off; that one is the node's own.",
		Commands: []string{Lint, Net, Doctor}},
	{ID: "KP-8", Title: "hostname-override must equal the node name",
		Text:     "When kube-proxy's `--hostname-override` differs from the node's name, kube-proxy deletes the node's own HNS endpoints.",
		Commands: []string{Net, Doctor, Plan, Up}},
}

var dnsRules = []Rule{
	{ID: "DNS-1", Title: "one DNS suffix in Windows pods",
		Text: "The Windows resolver in a pod appends only `<namespace>.svc.cluster.local`, and treats any name with a dot in it as fully qualified. " +
			"From a pod in `default`, `kubernetes` and `kubernetes.default.svc.cluster.local` resolve, but `kubernetes.default` and `kubernetes.default.svc` do not.",
		Commands: []string{Net, Doctor}},
	{ID: "DNS-2", Title: "DNS policy and probing",
		Text: "`ClusterFirstWithHostNet` is not available (LIM-3). Test name resolution with `Resolve-DnsName`.",
	},
}
