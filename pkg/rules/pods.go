package rules

// table holds every rule by family. Titles of the rules lint raises are the
// one-liners its reporters already print; keep them stable, since SARIF and
// JUnit output and their golden files show them.
var table = map[string][]Rule{
	"API":  apiRules,
	"LIM":  limRules,
	"STO":  stoRules,
	"SCH":  schRules,
	"IMG":  imgRules,
	"KLT":  kltRules,
	"NET":  netRules,
	"KP":   kpRules,
	"DNS":  dnsRules,
	"PLAN": planRules,
	"TS":   tsRules,
	"VER":  verRules,
	"GMSA": gmsaRules,
	"WK":   wkRules,
}

var apiRules = []Rule{
	{ID: "API-1", Title: "spec.os.name must be linux or windows",
		Text: "When a pod sets `spec.os`, its `name` has to be `linux` or `windows`. " +
			"A missing name is reported as `Required` and any other value as `NotSupported`. A pod without `spec.os` skips every OS check.",
		Commands: []string{Lint}},
	{ID: "API-2", Title: "pod-level Linux security fields cannot be set for a windows pod",
		Text: "A pod with `os.name: windows` is refused (`Forbidden: cannot be set for a windows pod`) when its pod security context sets a Linux-only field: " +
			"AppArmor, SELinux or seccomp settings, `fsGroup` and its change policy, sysctls, `runAsUser`, `runAsGroup`, supplemental groups and their policy, or the SELinux change policy. " +
			"The same goes for `hostUsers`, `hostPID: true`, `hostIPC: true` and `shareProcessNamespace`.",
		Commands: []string{Lint}},
	{ID: "API-3", Title: "container Linux security fields cannot be set for a windows pod",
		Text: "In a windows pod, no container (init, regular or ephemeral) may set AppArmor, SELinux or seccomp settings, capabilities, `readOnlyRootFilesystem`, `privileged`, " +
			"`allowPrivilegeEscalation`, `procMount`, `runAsUser` or `runAsGroup` in its security context. Setting one to `false` still counts.",
		Commands: []string{Lint}},
	{ID: "API-4", Title: "windowsOptions cannot be set for a linux pod",
		Text:     "A pod with `os.name: linux` may not carry `windowsOptions`, neither on the pod nor on a container.",
		Commands: []string{Lint}},
	{ID: "API-5", Title: "windowsOptions must be valid (GMSA credential spec, runAsUserName)",
		Text: "Checked whatever the OS: a GMSA credential spec name must be a DNS subdomain name; an inline credential spec must be non-empty and under 64 KiB; " +
			"`runAsUserName` must be non-empty, free of control characters and hold at most one backslash. Its domain part (under 256 characters) must be a NetBIOS name " +
			"(1 to 15 characters, no leading dot, none of `\\ / : * ? \" < > |`) or a DNS name; its user part must be 1 to 104 characters, not only dots and spaces, and free of `\" / \\ : ; | = , + * ? < > @ [ ]`.",
		Commands: []string{Lint}},
	{ID: "API-6", Title: "HostProcess containers: all or none, hostNetwork required, values must agree",
		Text: "If both the pod and a container set `hostProcess`, they must agree. Either every container of the pod is a HostProcess container or none is. " +
			"HostProcess pods need `hostNetwork: true`, and a cluster that forbids privileged containers refuses them.",
		Commands: []string{Lint}},
	{ID: "API-7", Title: "windows pods cannot be resized in place",
		Text: "The API server refuses an in-place resource resize of a pod whose OS is windows; change the owning template and let the pod be replaced instead.",
	},
	{ID: "API-8", Title: "the cluster's Kubernetes version does not enforce the pod OS field rules",
		Text: "The OS field and its checks (the `IdentifyPodOS` feature) were alpha in 1.23, beta in 1.24 and GA in 1.25, and cannot be switched off from 1.27. " +
			"Clusters before that accept everything API-1 to API-6 forbid, so lint reports the rules itself for them.",
		Commands: []string{Lint}},
	{ID: "API-9", Title: "the target Kubernetes version no longer serves the object's apiVersion",
		Text: "Beta API versions are served for a few releases and then removed: `extensions/v1beta1`, `apps/v1beta1` and `apps/v1beta2` workloads in 1.16, " +
			"`extensions/v1beta1` and `networking.k8s.io/v1beta1` Ingress in 1.22, `batch/v1beta1` CronJob, `policy/v1beta1` and `node.k8s.io/v1beta1` in 1.25, `autoscaling/v2beta2` in 1.26, and others. " +
			"A cluster at or past the removal has no resource for the old version, so `kubectl apply` stops with `no matches for kind ... in version ...` and nothing is created. " +
			"Lint reports an error against the target's version (a warning, in the API server's deprecation words, while the version is deprecated but still served), " +
			"names the replacement and what changes in it (apps/v1 requires `spec.selector`), and still checks the pod template against the other rules.",
		Commands: []string{Lint}},
	{ID: "API-10", Title: "the API server refuses fields the object's type does not have",
		Text: "kubectl asks the API server for strict field validation by default (server-side field validation is GA since 1.27), so a key the type does not know " +
			"stops `kubectl apply` with `strict decoding error: unknown field \"<path>\"` and nothing is created. It is nearly always a key indented under the wrong parent " +
			"(`env:` under a `ports` entry) or spelt in the wrong case (`imagePullpolicy`). Clients that do not ask for strict validation get a warning and the key is dropped, so the setting never takes effect. " +
			"Lint reports each unknown field of workloads, Services and RuntimeClasses at its line, suggests the field meant when the case differs or the key belongs " +
			"one level up, and still checks the rest of the object.",
		Commands: []string{Lint}},
}

var limRules = []Rule{
	{ID: "LIM-1", Title: "Windows and Linux containers cannot share one pod",
		Text:     "All containers of a pod run on one node, so a pod mixing Windows and Linux images can never start.",
		Commands: []string{Lint}},
	{ID: "LIM-2", Title: "hostNetwork is unsupported for Windows pods that are not HostProcess",
		Text:     "Only HostProcess pods may use the node's network namespace; an ordinary Windows pod with `hostNetwork: true` is not supported.",
		Commands: []string{Lint, Up}},
	{ID: "LIM-3", Title: "dnsPolicy ClusterFirstWithHostNet is unsupported on Windows",
		Text:     "Windows pods cannot use `dnsPolicy: ClusterFirstWithHostNet`.",
		Commands: []string{Lint}},
	{ID: "LIM-4", Title: "emptyDir medium Memory is unsupported on Windows",
		Text:     "Windows has no RAM-backed file system for pods, so `emptyDir` with `medium: Memory` cannot be mounted; a disk-backed emptyDir works.",
		Commands: []string{Lint, Up}},
	{ID: "LIM-5", Title: "raw block volumeDevices are unsupported on Windows",
		Text:     "Containers on Windows cannot attach raw block devices through `volumeDevices`.",
		Commands: []string{Lint, Up}},
	{ID: "LIM-6", Title: "mountPropagation is unsupported on Windows",
		Text:     "Mount propagation between host and container does not exist on Windows; `mountPropagation` cannot be honoured.",
		Commands: []string{Lint}},
	{ID: "LIM-7", Title: "single-file subPath mappings need containerd on Windows",
		Text: "Docker on Windows mounts only directories, so a `subPath` that maps a single file (a custom `terminationMessagePath` included) needs containerd. " +
			"The oldest Windows documentation lists subPath mounts, and subPath mounts of Secrets, as unsupported altogether.",
		Commands: []string{Lint}},
	{ID: "LIM-8", Title: "hugepages are unsupported on Windows",
		Text:     "Windows nodes offer no `hugepages-*` resources, so a pod that requests them cannot be placed on one.",
		Commands: []string{Lint, Up}},
	{ID: "LIM-9", Title: "NFS volumes, host-mount projection and defaultMode are unsupported on Windows",
		Text: "Windows nodes cannot mount NFS volumes, do not project host mounts into containers, ignore `defaultMode` (Windows files have no UID/GID mode bits) " +
			"and cannot resize a volume's file system while it is mounted.",
		Commands: []string{Lint, Up}},
	{ID: "LIM-10", Title: "sessionAffinityConfig.clientIP.timeoutSeconds is not honoured on Windows",
		Text:     "Windows nodes keep client-IP session affinity but ignore its timeout.",
		Commands: []string{Lint, Net}},
	{ID: "LIM-11", Title: "too many backend pods for one Service on Windows nodes",
		Text: "A Service reached from Windows nodes is limited in the number of backend pods (distinct destinations) it may have. " +
			"The older Windows networking guide puts the limit at 64; later releases of the documentation raise it to 1024, so winkube treats it as a limit that depends on the version.",
		Commands: []string{Lint, Net}},
	{ID: "LIM-12", Title: "externalTrafficPolicy Local needs DSR on Windows nodes",
		Text:     "`externalTrafficPolicy: Local` works on Windows only when kube-proxy runs with Direct Server Return (`--enable-dsr`); without it the policy is not supported.",
		Commands: []string{Lint, Net}},
	{ID: "LIM-13", Title: "IPv6 is unsupported on overlay networks",
		Text:     "VXLAN overlay networks on Windows carry IPv4 only. Dual-stack needs l2bridge, and an IPv6-only cluster is not supported on Windows at all.",
		Commands: []string{Lint, Net}},
	{ID: "LIM-14", Title: "terminationGracePeriodSeconds is cut to 5 seconds by Docker on Windows",
		Text:     "With containerd the grace period is honoured in full. Docker sends the container a `CTRL_SHUTDOWN_EVENT`, waits 5 seconds (a registry default inside the image) and then kills it, whatever the pod asked for.",
		Commands: []string{Lint, Up}},
	{ID: "LIM-15", Title: "privileged containers do not exist on Windows",
		Text:     "Windows has no privileged containers; HostProcess containers fill that role.",
		Commands: []string{Lint}},
	{ID: "LIM-16", Title: "a Windows node cannot reach its own NodePort or Service IPs",
		Text:     "Seen from the Windows node itself (not from its pods), connections to the node's own NodePort and to Service cluster IPs fail. Pods on the node reach Services normally.",
		Commands: []string{Net, Doctor}},
	{ID: "LIM-17", Title: "ICMP to remote networks fails from Windows pods",
		Text: "Windows' virtual switch cannot rewrite ICMP packets, so `ping` from a pod to anything outside its own network gets no answer, while TCP and UDP work. " +
			"ICMP within the pod's own network works. Probe with `curl` or a TCP connection instead of `ping`.",
		Commands: []string{Lint, Net, Doctor}},
	{ID: "LIM-18", Title: "Secrets are stored in plain text on Windows nodes",
		Text:     "Windows has no tmpfs, so Secret volumes are written to the node's disk unencrypted. Protect them with file ACLs and encrypt the volume (for example with BitLocker).",
		Commands: []string{Lint}},
	{ID: "LIM-19", Title: "Windows has no OOM killer; set memory requests equal to limits",
		Text: "A Windows node pages to disk instead of killing processes when memory runs short. Limits are enforced, but requests only lower what the scheduler sees as allocatable. " +
			"Set memory requests equal to limits, and reserve at least 2 GiB for the system.",
		Commands: []string{Lint}},
	{ID: "LIM-20", Title: "Linux-only security settings do nothing on Windows",
		Text:     "SELinux, AppArmor, seccomp and capabilities have no effect on a Windows container, even on a pod without `spec.os` where the API server raises no error.",
		Commands: []string{Lint}},
	{ID: "LIM-21", Title: "Windows services log to the event log and files, not to STDOUT",
		Text: "Windows workloads usually log to ETW, the event log or their own files, and a service such as IIS runs under `ServiceMonitor.exe`, which forwards none of it: " +
			"`kubectl logs` shows nothing. Microsoft's LogMonitor (`LogMonitor.exe`, configured by `LogMonitorConfig.json`) wraps the entrypoint and pipes event log channels, ETW providers and log files to STDOUT (seed 003).",
		Commands: []string{Lint}},
}

var stoRules = []Rule{
	{ID: "STO-1", Title: "volume types that work on Windows nodes",
		Text: "Windows nodes mount the in-tree awsElasticBlockStore, azureDisk, azureFile, gcePersistentDisk and vsphereVolume plugins, " +
			"FlexVolume SMB and iSCSI (PowerShell plugins installed on the host) and CSI drivers (beta since 1.19) when csi-proxy runs on every Windows node, " +
			"because a CSI node plugin cannot run privileged there. ConfigMap, Secret, downwardAPI, projected and disk-backed emptyDir volumes work.",
		Commands: []string{Up}},
	{ID: "STO-2", Title: "unsupported volumes fail at mount time, not at admission",
		Text: "A pod with a volume a Windows node cannot mount is admitted and scheduled; the kubelet then records `FailedMount` events " +
			"(`MountVolume.SetUp failed for volume ...`) and the pod stays in `ContainerCreating`. LIM-4 to LIM-9 list the settings involved. " +
			"A read-only root file system is not supported; read-only volumes are.",
		Commands: []string{Up}},
	{ID: "STO-3", Title: "claims bind regardless of the node's OS",
		Text: "The cluster's provisioner binds a PersistentVolumeClaim without looking at the node OS. With binding mode `WaitForFirstConsumer` the claim binds only after its pod is scheduled, " +
			"so a Windows pod that cannot be placed leaves its claim `Pending` as well.",
		Commands: []string{Up}},
}

var schRules = []Rule{
	{ID: "SCH-1", Title: "no node of the target cluster matches the pod's selectors",
		Text: "Every node carries `kubernetes.io/os` (`windows` or `linux`) and `kubernetes.io/arch`; Windows nodes (1.17 and later) also carry " +
			"`node.kubernetes.io/windows-build` with the build as `major.minor.build`, e.g. `10.0.17763`. Old clusters used `beta.kubernetes.io/os` and `beta.kubernetes.io/arch`. " +
			"A pod whose selectors match none of the cluster's nodes stays `Pending`.",
		Commands: []string{Lint, Plan, Up}},
	{ID: "SCH-2", Title: "spec.os does not steer the scheduler",
		Text:     "`spec.os` only drives validation. To land on the right OS a pod needs a nodeSelector or node affinity on `kubernetes.io/os` (and `windows-build` where builds differ), or a RuntimeClass that adds them.",
		Commands: []string{Lint}},
	{ID: "SCH-3", Title: "Windows nodes are tainted; Windows pods need the toleration",
		Text: "The recommended setup registers Windows nodes with the taint `os=windows:NoSchedule` (kubelet `--register-with-taints`). " +
			"Linux workloads then stay off Windows nodes without any edit, and Windows workloads need the matching toleration as well as the node selector.",
		Commands: []string{Lint, Doctor, Plan, Up}},
	{ID: "SCH-4", Title: "RuntimeClass scheduling is merged into the pod at admission",
		Text: "The API server's RuntimeClass admission plugin copies the class's `scheduling.nodeSelector` and `tolerations` into each pod that names it. " +
			"A pod whose own nodeSelector conflicts with the class's is rejected.",
		Commands: []string{Lint}},
	{ID: "SCH-5", Title: "a pod without an OS selector can land on the wrong OS",
		Text: "In a cluster with both kinds of nodes, a pod that does not select an OS may be scheduled onto either. " +
			"A Linux image on a Windows node, or a Windows image on a Linux node, then fails to pull. " +
			"A DaemonSet that tolerates every taint and pins no OS runs a pod on every Windows node: unless its image publishes a Windows entry for each of their builds, those pods fail.",
		Commands: []string{Lint, Doctor}},
}
