package rules

// verdicts holds, per rule, the severity, fix and related rules that every
// finding of it carries, whichever command finds it. docs/rules.md prints
// them. Severities follow pkg/windows' verdicts where it has one.
var verdicts = map[string]ruleVerdict{
	"API-9": {Verdict: Verdict{Severity: errs}, Cases: []Case{
		{Name: "deprecated", Text: "the version is deprecated but still served", Verdict: Verdict{Severity: warning}}}},
	"API-10": {Verdict: Verdict{Severity: errs}},

	"SCH-1": {Verdict: Verdict{Severity: errs}, Cases: []Case{
		{Name: "daemonset", Text: "a DaemonSet whose selectors match no node runs no pods, and nothing stays Pending", Verdict: Verdict{Severity: warning}},
		{Name: "other-arch", Text: "a DaemonSet for an architecture the cluster lacks, one of a per-architecture set", Verdict: Verdict{Severity: info,
			Fix: "nothing to change if another DaemonSet covers the cluster's architectures; otherwise select kubernetes.io/arch values the nodes have"}}}},
	"SCH-2": {Verdict: Verdict{Severity: warning}},
	"SCH-3": {Verdict: Verdict{Severity: errs}},
	"SCH-4": {Verdict: Verdict{Severity: errs}, Cases: []Case{
		{Name: "not-in-input", Text: "the RuntimeClass is neither in the input nor read from a cluster, so its scheduling is unknown", Verdict: Verdict{Severity: warning}},
		{Name: "class-selects-no-node", Text: "the RuntimeClass itself selects no node; pods that name it stay Pending", Verdict: Verdict{Severity: warning}}}},
	"SCH-5": {Verdict: Verdict{Severity: errs}, Cases: []Case{
		{Name: "advice", Text: "only taints keep the pods off the other OS's nodes today", Verdict: Verdict{Severity: info}},
		{Name: "unknown-image", Text: "a DaemonSet reaches the Windows nodes with an image winkube does not know", Verdict: Verdict{Severity: warning}}}},

	"IMG-2": {Verdict: Verdict{Severity: errs}},
	"KLT-11": {Verdict: Verdict{Severity: errs}, Cases: []Case{
		{Name: "some-nodes", Text: "only some of the nodes the RuntimeClass selects lack the handler", Verdict: Verdict{Severity: warning}}}},
	"IMG-3": {Verdict: Verdict{Severity: info}, Cases: []Case{
		{Name: "no-repository", Text: "the name is in Docker Hub's library namespace but no official image", Verdict: Verdict{Severity: warning}},
		{Name: "unpullable", Text: "the registry has no such image or tag", Verdict: Verdict{Severity: errs}},
		{Name: "no-release-tag", Text: "the tag names no Windows release"}}},
	"IMG-4": {Verdict: Verdict{Severity: errs}},

	"LIM-10": {Verdict: Verdict{Severity: warning}},
	"LIM-21": {Verdict: Verdict{Severity: info,
		Fix: "copy LogMonitor.exe and a LogMonitorConfig.json with the service's event log channels and log directory into the image (or mount the config) and make the entrypoint LogMonitor.exe followed by the current command"}},
	"LIM-11": {Verdict: Verdict{Severity: errs}},
	"LIM-12": {Verdict: Verdict{Severity: errs}, Cases: []Case{
		{Name: "dsr-unknown", Text: "lint against a live cluster that does not say whether kube-proxy runs with DSR", Verdict: Verdict{Severity: warning}}}},
	"LIM-13": {Verdict: Verdict{Severity: errs}},

	"NET-2": {Verdict: Verdict{Severity: errs,
		Fix: "set net-conf.json's Backend to {\"Type\": \"vxlan\", \"VNI\": 4096, \"Port\": 4789} in kube-flannel-cfg and restart the flannel pods"}},
	"NET-6": {Verdict: Verdict{Severity: info, See: []string{"TS-3"}}},

	"KP-1": {Verdict: Verdict{Severity: errs,
		Fix: "pass --network-name (or set KUBE_NETWORK) to the HNS network flanneld creates: vxlan0 for overlay, cbr0 for host-gw in the seeds"}},
	"KP-2": {Verdict: Verdict{Severity: errs,
		Fix: "give kube-proxy the flags its mode needs: --feature-gates=WinDSR=true with --enable-dsr before 1.33, WinOverlay=true and --source-vip on overlay before 1.34"}},
	"KP-3": {Verdict: Verdict{Severity: errs}},
	"KP-5": {Verdict: Verdict{Severity: warning,
		Fix: "label the node with node.kubernetes.io/windows-build, or drop the flag the build does not support"}},
	"KP-7": {Verdict: Verdict{Severity: warning, See: []string{"LIM-12"}}, Cases: []Case{
		{Name: "l2bridge", Text: "the second issue, a node's own: l2bridge pod-to-pod traffic on a Windows Server 2022 node whose kube-proxy runs with DSR"},
		{Name: "not-checked", Text: "lint: the Service's backends are not in the input, so where they run is unknown; no verdict", Verdict: Verdict{Severity: info}}}},
	"KP-8": {Verdict: Verdict{Severity: errs, See: []string{"TS-5"},
		Fix: "set --hostname-override to the node name: $(NODE_NAME) with NODE_NAME from fieldRef spec.nodeName"}},

	"PLAN-1": {Verdict: Verdict{Severity: info,
		Fix: "nothing to do if the assumed value is right; otherwise create the object the message names so every tool reads the same value"}},
	"PLAN-2": {Verdict: Verdict{Severity: errs,
		Fix: "fix kube-flannel-cfg's net-conf.json (valid JSON with Network and Backend) and restart the flannel pods"}, Cases: []Case{
		{Name: "assumed", Text: "no net-conf.json and no flannel annotation: VXLAN with VNI 4096 on port 4789 is assumed", Verdict: Verdict{Severity: info}}}},

	"TS-1": {Verdict: Verdict{Severity: errs,
		Fix: "run kube-proxy on every Windows node (the kube-proxy-windows DaemonSet with kubernetes.io/os: windows and a toleration for the Windows taint, or the kube-proxy service) in kernelspace mode"}, Cases: []Case{
		{Name: "no-kube-proxy", Text: "no kube-proxy DaemonSet covers the node; it may run kube-proxy as a Windows service the API cannot see", Verdict: Verdict{Severity: warning}},
		{Name: "flanneld", Text: "flanneld cannot start on the node, so it creates no HNS network"}}},
	"TS-2": {Verdict: Verdict{Severity: info}},
	"TS-3": {Verdict: Verdict{Severity: warning, See: []string{"LIM-17", "NET-6"},
		Fix: "test with TCP instead: curl.exe, Invoke-WebRequest or Test-NetConnection -Port; if TCP to outside fails too, check the OutBoundNAT ExceptionList (see the NET-6 node check)"}},
	"TS-4":  {Verdict: Verdict{Severity: warning, See: []string{"LIM-16"}}},
	"TS-6":  {Verdict: Verdict{Severity: info}},
	"TS-9":  {Verdict: Verdict{Severity: warning, See: []string{"LIM-16"}}},
	"TS-10": {Verdict: Verdict{Severity: info}},
	"TS-11": {Verdict: Verdict{Severity: warning}, Cases: []Case{
		{Name: "pause-image", Text: "the pause image has no entry for the node's Windows build", Verdict: Verdict{Severity: errs, See: []string{"IMG-5"}}}}},
	"TS-12": {Verdict: Verdict{Severity: warning, See: []string{"DNS-1"}}},
	"TS-13": {Verdict: Verdict{Severity: info, See: []string{"IMG-5"}}},
	"TS-14": {Verdict: Verdict{Severity: info, See: []string{"PLAN-7"}}},
	"TS-5": {Verdict: Verdict{Severity: errs, See: []string{"KP-8"},
		Fix: "add --hostname-override=$(NODE_NAME) to the Windows kube-proxy, with NODE_NAME from fieldRef spec.nodeName"}},
	"TS-8": {Verdict: Verdict{Severity: errs, See: []string{"NET-8"},
		Fix: "give the node a pod CIDR (kube-controller-manager --allocate-node-cidrs with --cluster-cidr, or spec.podCIDR) so flanneld can lease its subnet and write subnet.env"}, Cases: []Case{
		{Name: "unregistered", Text: "flanneld never registered the node", Verdict: Verdict{Severity: errs, See: []string{"NET-8", "TS-1"},
			Fix: "run flannel on the node (the flannel Windows DaemonSet, or Start-Service flanneld) and check its log for the subnet lease"}}}},

	"WK-1": {Verdict: Verdict{Severity: errs}},
	"WK-2": {Verdict: Verdict{Severity: errs}},
	"WK-3": {Verdict: Verdict{Severity: errs}},
	"WK-4": {Verdict: Verdict{Severity: errs}},
	"WK-5": {Verdict: Verdict{Severity: errs}},
	"WK-6": {Verdict: Verdict{Severity: errs}},
	"WK-7": {Verdict: Verdict{Severity: warning}},
	"WK-8": {Verdict: Verdict{Severity: warning}},

	"GMSA-1": {Verdict: Verdict{Severity: errs,
		Fix: "create the GMSACredentialSpec the pod names (windows.k8s.io/v1, its credential spec under credspec), or name one that exists"}, Cases: []Case{
		{Name: "not-in-input", Text: "lint: the named GMSACredentialSpec is not in the input, so whether the cluster has it was not checked", Verdict: Verdict{Severity: warning}},
		{Name: "unresolved", Text: "doctor: a running pod names a spec but carries no contents, so no windows-gmsa webhook resolved it and its containers run without the identity", Verdict: Verdict{Severity: warning}}}},
	"GMSA-2": {Verdict: Verdict{Severity: errs,
		Fix: "bind a Role or ClusterRole whose rule has verb use on gmsacredentialspecs of windows.k8s.io, with the spec in resourceNames, to the pod's service account"}, Cases: []Case{
		{Name: "not-checked", Text: "lint: the input holds no RBAC objects, so who may `use` the spec was not checked", Verdict: Verdict{Severity: info}}}},
	"GMSA-3": {Verdict: Verdict{Severity: errs,
		Fix: "drop gmsaCredentialSpec and name the spec in gmsaCredentialSpecName; the webhook fills in its contents"}},
}
