package rules

var families = []Family{
	{ID: "API", Name: "What the API server itself enforces",
		Text: "The checks the Kubernetes API server applies to a pod's OS fields (GA since 1.25), and the API versions it serves. " +
			"winkube repeats them so that templates (Deployments, Jobs, Helm output) and clusters too old to enforce them get the same answer before anything is applied."},
	{ID: "LIM", Name: "Windows limitations the API server lets through",
		Text: "Pod and Service settings the API server accepts but a Windows node cannot honour. " +
			"Nothing stops them at admission, so `winkube lint` flags them and the emulated Windows nodes fail or ignore them the way a real node does."},
	{ID: "STO", Name: "Storage on Windows nodes",
		Text: "Which volumes a Windows node can mount, and how mount failures and claim binding look from the outside."},
	{ID: "SCH", Name: "Placing pods on the right OS",
		Text: "How a pod ends up on a Windows or a Linux node: node labels, taints, RuntimeClasses, and what happens when a workload says nothing about its OS."},
	{ID: "IMG", Name: "Images and the host's Windows build",
		Text: "A process-isolated Windows container shares the host's kernel, so its image must be built for a compatible Windows release. " +
			"These rules name the builds, say which pairs are compatible and describe how a mismatch fails."},
	{ID: "KLT", Name: "The kubelet on a Windows node",
		Text: "What the kubelet reports about a Windows node, how it admits pods, and how it turns resource limits into the settings the Windows runtime receives."},
	{ID: "NET", Name: "Pod networking on Windows",
		Text: "The HNS network modes, the CNI plugins that create them, flannel's VXLAN and host-gw backends, and which traffic flows work."},
	{ID: "KP", Name: "kube-proxy in kernelspace mode",
		Text: "What kube-proxy's Windows (winkernel) proxier programs into HNS for Services, the flags and feature gates it needs, and its known gaps per Windows release."},
	{ID: "DNS", Name: "Name resolution in Windows pods",
		Text: "How the Windows resolver inside a pod differs from the Linux one."},
	{ID: "PLAN", Name: "Joining Windows nodes to a cluster",
		Text: "The design decisions and settings needed to add Windows nodes to a cluster with flannel: address spaces, the Linux side, the Windows side, and how the node services are run."},
	{ID: "TS", Name: "Troubleshooting",
		Text: "Common failures of Windows nodes, each with its usual cause. `winkube doctor` turns every one into a check."},
	{ID: "VER", Name: "Versions",
		Text: "Which Windows Server releases each Kubernetes version supports, and from which Kubernetes version each Windows feature is available."},
	{ID: "GMSA", Name: "Active Directory identity (GMSA)",
		Text: "Windows pods and containers can run with a group managed service account: a cluster-scoped GMSACredentialSpec holds the credential spec, " +
			"the windows-gmsa admission webhook (kubernetes-sigs/windows-gmsa) resolves a pod's `gmsaCredentialSpecName` into it and checks the pod may use it, " +
			"and the Windows node hands it to the runtime. `winkube up --gmsa` runs that webhook and emulates the cluster's domain."},
	{ID: "WK", Name: "winkube's own annotations",
		Text: "The `winkube.io/*` annotations a pod carries for the emulated nodes (what a container whose program winkube cannot follow does, how long it runs, what it uses). " +
			"Their values are parsed once, in `pkg/apis/annotations`: the emulated node refuses a value it cannot follow with the same words that `winkube lint` and `winkube webhook` report, so a bad value is caught before anything runs."},
}
