package rules

var imgRules = []Rule{
	{ID: "IMG-1", Title: "Windows build numbers and the releases they name",
		Text: "14393 is Windows Server 2016 (1607), 17763 is 2019 (1809), 18362 is 1903, 18363 is 1909, 19041 is 2004, 19042 is 20H2, " +
			"20348 is 2022, 25398 is 23H2 and 26100 is 2025.",
		Commands: []string{Lint, Plan, Up}},
	{ID: "IMG-2", Title: "the Windows image build must be compatible with the node build",
		Text: "The image's major and minor version must equal the host's. On hosts older than build 20348 the image build must equal the host build exactly. " +
			"From 20348 on, the image build may range from the newest LTSC build below the host's (20348 when there is none) up to the host's own: " +
			"a 2022 host runs 2022 images only, a 2025 host runs 2022 and 2025 images. The revision (UBR) does not matter; " +
			"when several entries of an image fit, the one with the highest revision is used.",
		Commands: []string{Lint, Doctor, Up}},
	{ID: "IMG-3", Title: "an image's OS and build come from its index",
		Text: "The `platform` of each entry in an image's OCI index (`manifests[]`) gives its `os`, its `os.version` and optional `os.features` such as `win32k`. " +
			"An entry without `os.version` fits any host build.",
		Commands: []string{Lint, Up}},
	{ID: "IMG-4", Title: "the image has no manifest for the node's platform",
		Text: "How a mismatch shows depends on the runtime and the image. " +
			"With containerd, an index whose Windows entries carry `os.version` is filtered by IMG-2 during the pull, so an image with no fitting entry fails to pull " +
			"(`ErrImagePull`, then `ImagePullBackOff`, with `no match for platform in manifest: not found`). " +
			"A single-platform image, or an entry without `os.version`, is pulled and fails when the container starts: the pod shows a `Created` event, then `RunContainerError` " +
			"with the HCS error `The container operating system does not match the host operating system.` (0xc0370101), exit code 128, restarts and `CrashLoopBackOff`. " +
			"Docker drops index entries newer than the host (`no matching manifest for windows/amd64 10.0.<build> in the manifest list entries`) but pulls older ones, which then fail at start the same way. " +
			"An image without any Windows entry fails to pull with either runtime. Running an older image on a newer host needs Hyper-V isolation, which Kubernetes does not offer.",
		Commands: []string{Lint, Doctor, Up}},
	{ID: "IMG-5", Title: "the pause image must match the host build too",
		Text: "The sandbox (pause) image is a Windows image like any other and must fit the host. The older guides use `mcr.microsoft.com/oss/kubernetes/pause:1.4.1`; " +
			"for 1.27 they name `registry.k8s.io/pause:3.6` or Microsoft's signed `mcr.microsoft.com/oss/kubernetes/pause:3.6`. " +
			"`kubectl port-forward` needs `wincat` inside the pause image (1.15 and later).",
		Commands: []string{Doctor, Plan, Up}},
}

var kltRules = []Rule{
	{ID: "KLT-1", Title: "what a Windows node reports about itself",
		Text: "A Windows node's status shows `operatingSystem: windows`, the product name as `osImage` (for example `Windows Server 2019 Datacenter`), " +
			"`major.minor.build.UBR` as `kernelVersion` (for example `10.0.17763.5329`) and the runtime with its version, such as `containerd://1.7.x` or `docker://19.3.x`.",
		Commands: []string{Lint, Up}},
	{ID: "KLT-2", Title: "allocatable is capacity minus reservations and the eviction threshold",
		Text: "Allocatable is capacity less kube-reserved, system-reserved and the hard eviction threshold, never below zero. " +
			"On Windows the default hard thresholds are `memory.available<500Mi`, `nodefs.available<10%` and `imagefs.available<15%`. " +
			"The reservations only change what the scheduler sees; the host enforces none of them.",
		Commands: []string{Up}},
	{ID: "KLT-3", Title: "eviction on Windows starts with 1.31",
		Text: "Before 1.31 a Windows kubelet never evicts, never changes the `MemoryPressure` condition and does not implement `--enforce-node-allocatable`. " +
			"From 1.31 it evicts under memory pressure measured on the commit charge (commit limit minus commit total).",
		Commands: []string{Up}},
	{ID: "KLT-4", Title: "how the kubelet admits a pod",
		Text: "The first failing check decides: the node cannot be looked up (`InvalidNodeInfo`); the pod's `kubernetes.io/os` label differs from the node's (`PodOSSelectorNodeLabelDoesNotMatch`); " +
			"`spec.os.name` is set and differs from the node's OS (`PodOSNotSupported`); then the scheduler's predicates as the kubelet runs them: resources " +
			"(`OutOfpods`, then `OutOfcpu`, `OutOfmemory`, `OutOfephemeral-storage` and other resources by name), `NodeAffinity`, `NodePorts` for a host port already in use, " +
			"and `TaintToleration` for an untolerated NoExecute taint. A pod refused this way ends in phase `Failed` with that reason.",
		Commands: []string{Up}},
	{ID: "KLT-5", Title: "how a CPU limit becomes CpuMaximum",
		Text: "The runtime receives `CpuMaximum = 10 × milliCPU / cpuCount` (integer division), kept between 1 and 10000; CPU requests are not passed on. " +
			"For example a limit of 1 CPU on 1 core gives 10000, 1 CPU on 2 cores gives 5000, 94 CPUs on 96 cores gives 9791 and 1m on 100 cores gives 1.",
		Commands: []string{Describe, Up}},
	{ID: "KLT-6", Title: "how a memory limit is passed on",
		Text:     "A memory limit becomes the container's `MemoryLimitInBytes`; memory requests are not passed on.",
		Commands: []string{Describe, Up}},
	{ID: "KLT-7", Title: "per-container Windows identity",
		Text:     "A container's `runAsUserName` wins over the pod's, and its GMSA credential spec becomes the container's credential spec.",
		Commands: []string{Describe, Up}},
	{ID: "KLT-8", Title: "sandbox errors for HostProcess pods",
		Text: "Creating the sandbox fails with `pod must not contain both HostProcess and non-HostProcess containers`, " +
			"or with `hostNetwork is required if Pod contains HostProcess containers` (see API-6).",
		Commands: []string{Up}},
	{ID: "KLT-9", Title: "the kubelet's process priority",
		Text:     "`--windows-priorityclass` sets the kubelet's Windows process priority class; `ABOVE_NORMAL_PRIORITY_CLASS` or higher is recommended.",
		Commands: []string{Plan}},
	{ID: "KLT-10", Title: "container runtimes on Windows",
		Text: "Windows nodes run containerd 1.4 or later (stable since Kubernetes 1.20), Docker EE 19.03 or later through dockershim (gone in 1.24), or the Mirantis Container Runtime. " +
			"Which one a node runs decides LIM-7 and LIM-14.",
		Commands: []string{Lint, Plan, Up}},
	{ID: "KLT-11", Title: "a RuntimeClass's handler must be one the node's runtime has",
		Text: "The kubelet passes the handler of the pod's RuntimeClass to the runtime when it creates the sandbox. " +
			"containerd knows the runtimes of its configuration: by default `runhcs-wcow-process` (process isolation) on Windows and `runc` on Linux; " +
			"Hyper-V isolation (`runhcs-wcow-hypervisor`) exists only where the node's containerd configuration adds it. " +
			"cri-dockerd accepts `docker` alone, the name seed 003's RuntimeClass uses. " +
			"Any other handler fails the sandbox: `FailedCreatePodSandBox` with containerd's `failed to get sandbox runtime: no runtime for \"<handler>\" is configured` " +
			"(or cri-dockerd's `RuntimeHandler \"<handler>\" not supported`), retried at every sync while the pod stays `ContainerCreating`. " +
			"The validating webhook warns about a pod or workload whose RuntimeClass names such a handler for the nodes it selects (`--enforce KLT-11` refuses it).",
		Commands: []string{Lint, Up, Webhook}},
	{ID: "KLT-12", Title: "what the kubelet writes carries its binary's name",
		Text: "The kubelet's API client sends client-go's default User-Agent, `<binary>/<version> (<os>/<arch>) kubernetes/<commit>`: " +
			"the base name of the path the kubelet was started from, the version without its pre-release part and at most seven characters of the commit. " +
			"The API server records everything the kubelet writes (its Node and the node's status, its Lease, the status of its pods) under the part before the first `/` as the field manager: " +
			"`kubelet` on Linux, `kubelet.exe` on Windows, where the service runs `C:\\k\\kubelet.exe` (seed 000's `nssm install kubelet` and `sc.exe create kubelet`). " +
			"A server-side apply that takes over such a field names that manager in its conflict.",
		Commands: []string{Up}},
}
