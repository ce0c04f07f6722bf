// Package node is the emulated node agent, winkube's "kubelet". One agent
// hosts many emulated Windows Server and Linux nodes against a real API
// server: it registers them, keeps their leases and status fresh, admits the
// pods bound to them and runs those pods through the lifecycle a real kubelet
// would, with upstream reasons, messages and events. Everything it decides
// comes from the rule book (pkg/windows) and the image catalog
// (pkg/imageinfo) and is visible through the API.
//
// What differs between the operating systems lives in the personalities of
// internal/windows and internal/linux; the emulated container runtime and its
// error wording (containerd or Docker) in internal/cri.
//
// Windows limitations the node enforces, and how:
//
//   - IMG-2/IMG-4: a Linux-only image, and on containerd an image index
//     without an entry for the node's build, fail to pull (ErrImagePull,
//     then ImagePullBackOff); a single-platform Windows image of another
//     build (or, on Docker, an older index entry) pulls but fails to start
//     with HCS's "does not match the host operating system"
//     (RunContainerError, exit code 128, CrashLoopBackOff).
//   - IMG-5/TS-11: an incompatible pause image fails the sandbox
//     (FailedCreatePodSandBox) and the pod stays ContainerCreating.
//   - LIM-8: Windows nodes report no hugepages, so a pod requesting them is
//     rejected at admission (OutOfhugepages-2Mi), as on a real node.
//   - LIM-2: a hostNetwork pod that is not HostProcess still gets a pod IP.
//   - LIM-14: with Docker a container that ignores the stop signal is killed
//     after 5 s whatever terminationGracePeriodSeconds says.
//   - KLT-3: Windows nodes emit no NodeAllocatableEnforced event.
//   - STO-1/STO-2, LIM-5, LIM-9: volumes are mounted before the sandbox
//     starts; NFS, in-tree iSCSI and Fibre Channel, raw block devices and
//     CSI drivers without csi-proxy fail there with the kubelet's
//     FailedMount/FailedMapVolume events and the pod stays
//     ContainerCreating (internal/volume's wait.go).
//
// Other LIM rules (emptyDir medium Memory, mount propagation, subPath files
// on Docker, ...) are silently accepted here, as a real node accepts them
// too or fails in ways not worth imitating; `winkube lint` reports them
// before deployment.
//
// Components: this package is the wiring — the agent (agent.go), its nodes'
// registration, heartbeats and status (emunode.go, lease.go, nodestatus.go,
// internal/status), the informers' dispatch (dispatch.go), the queues
// (queue.go), the pod network's egress (egress.go, internal/podnet) and API
// trouble reports (trouble.go). Each component below it gets a small config
// or interface of what it needs, never the agent: the pod worker
// (internal/podworker, the kubelet's per-pod state machine and each
// container's OS) gets a podworker.Node (workernode.go) and builds, per
// pod, the pod's files (internal/podfs), its containers' processes
// (internal/process) and its status writer (internal/podstatus), each
// given a config of its own; each node's image manager
// (internal/images: pull policy, pulls, their events and back-off, the
// images the node holds) gets an images.Config, and the agent's one
// images.Source reads pull secrets for every node; the kubelet API gets
// kubeletapi.Node (kubeletnode.go); internal/admission, internal/prober,
// internal/volume, internal/ctrlog and internal/atomicwrite are pure.
//
// Cost: the agent runs on two delaying work queues with fixed goroutine
// pools, one stepping pods and one for node heartbeats (queue.go), so its
// goroutines do not grow with nodes or pods, and a finished pod holds
// nothing but its record. Each pod status transition is one API request, a
// patch of pods/status that also carries the Windows resources annotation.
//
// Programs: each container runs its command as Kubernetes and the node's
// OS define it (internal/podworker's containeros.go, internal/process,
// internal/podfs): the image's programs
// (pkg/emu/...) against a virtual OS made from the pod spec and the API
// objects (internal/kubeletenv: environment, mounts, hosts, resolv.conf,
// identity; pkg/emu/vfs: the filesystem, made at a program's first file
// access). Nothing touches the host. What the process prints is its log
// (internal/ctrlog); its exit is the container's; kubectl exec and attach
// run beside it through the CRI streaming server (internal/kubeletapi,
// podworker's target.go, internal/process); exec probes and hooks run the
// same way (podworker's probes.go and lifecycle.go, process.Live.Run). A program that only waits to be stopped (pause, a
// daemon) holds no goroutine.
//
// The kubelet API (logs, exec, attach, port-forward, /stats, /metrics,
// its authentication and serving certificates) is internal/kubeletapi,
// which sees the nodes through the kubeletapi.Node and kubeletapi.Pod
// interfaces (kubeletnode.go).
//
// Annotations steer containers whose program the emulation does not run
// (an image it does not know with no command) and override a regular
// container's run time and exit code (run time, exit code, SIGTERM
// handling, sandbox image); see the Annotation constants.
package node
