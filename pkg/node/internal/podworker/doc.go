// Package podworker is the emulated kubelet's pod worker: the state
// machine of one pod on one node (admission, volumes, the sandbox, image
// pulls, init, regular, sidecar and ephemeral containers, probes and hooks,
// restarts and back-offs, in-place resize, the status it writes and
// termination), and what each container run is given (containeros.go).
// It builds the parts a pod is made of, each given a small config, never
// the Worker: the pod's files (package podfs), its containers' processes
// and what exec, attach and hooks reach of them (package process), its
// status and the writes of it (package podstatus) and the wait for its
// volumes (volume.Wait). The pull step of each container start is the
// node's image manager's (package images), which the Node gives the
// worker as the Images interface. What the kubelet API reaches of the pod
// is target.go and portforward.go.
//
// A Worker owns no goroutine: pkg/node's pod queue calls Step and queues
// the worker again for the time Step returns. Everything a worker uses of
// its node and of the agent is in the Node the agent gives it (pkg/node's
// workernode.go); the package never sees the agent itself.
package podworker
