// Package podworker is the emulated kubelet's pod worker: the state
// machine of one pod on one node (admission, volumes, the sandbox, image
// pulls, init, regular, sidecar and ephemeral containers, probes and hooks,
// restarts and back-offs, in-place resize, the status it writes and
// termination), and the container OS each run gets: its filesystem
// (fsbuild.go, volumefs.go, and package rootfs for the layout it starts
// from), its process (process.go) and what exec, attach, port-forward and
// logs reach (exec.go, portforward.go).
//
// A Worker owns no goroutine: pkg/node's pod queue calls Step and queues
// the worker again for the time Step returns. Everything a worker uses of
// its node and of the agent is in the Node the agent gives it (pkg/node's
// workernode.go); the package never sees the agent itself.
package podworker
