package csimount

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Result is where the mount of a volume stands.
type Result struct {
	// Pending: an operation is under way.
	Pending bool
	// Step is the kubelet's name of the step that failed with Err
	// ("MountDevice", "SetUp"); Err is nil once the volume is mounted.
	Step string
	Err  error
}

// opKey names one volume of one pod.
type opKey struct {
	pod  types.UID
	name string
}

// operation is the mount of one volume, run as the kubelet's operation
// executor runs it: off the pod worker, which asks for its result.
type operation struct {
	running  bool
	result   Result
	reported bool
	// abandoned: the pod went while the operation ran; its volume is
	// torn down once it ends.
	abandoned bool
}

// Mount is the mount of a volume: MountDevice, the lifecycle mode check
// (v.ModeError), then SetUp, on a goroutine of its own, since a driver
// may take the kubelet's whole timeout to answer. It reports Pending
// while that runs, then the operation's result, until attempt says the
// volume's back-off has passed: the first such look gets the result, the
// next starts a new operation. A mounted volume is not mounted again.
func (m *Mounter) Mount(ctx context.Context, pod *corev1.Pod, v Volume, attempt bool) Result {
	if _, ok := m.Published(pod.UID, v.Name); ok {
		return Result{}
	}
	key := opKey{pod.UID, v.Name}
	m.mu.Lock()
	op := m.ops[key]
	switch {
	case op != nil && op.running:
		m.mu.Unlock()
		return Result{Pending: true}
	case op != nil && !op.reported:
		// Reported once it is due: a look in between leaves it for the
		// look that records its event.
		op.reported = attempt
		m.mu.Unlock()
		return op.result
	case op != nil && !attempt:
		m.mu.Unlock()
		return op.result
	}
	op = &operation{running: true}
	m.ops[key] = op
	m.mu.Unlock()
	go m.run(ctx, pod, v, key, op)
	return Result{Pending: true}
}

func (m *Mounter) run(ctx context.Context, pod *corev1.Pod, v Volume, key opKey, op *operation) {
	r := m.mount(ctx, pod, v)
	m.mu.Lock()
	op.running, op.result = false, r
	abandoned := op.abandoned
	if r.Err == nil || abandoned {
		delete(m.ops, key)
	}
	m.mu.Unlock()
	if abandoned {
		m.TearDown(ctx, pod.UID)
	}
}

// mount runs the steps of one mount operation.
func (m *Mounter) mount(ctx context.Context, pod *corev1.Pod, v Volume) Result {
	if err := m.MountDevice(ctx, pod, v); err != nil {
		return Result{Step: "MountDevice", Err: err}
	}
	if v.ModeError != "" {
		return Result{Step: "SetUp", Err: errors.New(csiLog("mounter.SetupAt failed to check volume lifecycle mode: %s", v.ModeError))}
	}
	if err := m.SetUp(ctx, pod, v); err != nil {
		return Result{Step: "SetUp", Err: err}
	}
	return Result{}
}

// Unmount starts tearing a deleted pod's CSI volumes down off the caller
// (TearDown) and reports whether they are gone: none published, staged
// for the pod, being mounted or being torn down. The kubelet lets a
// deleted pod go only then.
func (m *Mounter) Unmount(ctx context.Context, pod types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	running := m.abandon(pod)
	held := len(m.pods[pod]) > 0
	for _, st := range m.staged {
		held = held || st.pods[pod]
	}
	if held && !m.tearing[pod] {
		m.tearing[pod] = true
		go func() {
			m.TearDown(ctx, pod)
			m.mu.Lock()
			delete(m.tearing, pod)
			m.mu.Unlock()
		}()
	}
	return !running && !held && !m.tearing[pod]
}

// abandon marks the pod's running operations abandoned and forgets the
// finished ones, and reports whether one runs; the caller holds mu.
func (m *Mounter) abandon(pod types.UID) bool {
	running := false
	for key, op := range m.ops {
		if key.pod != pod {
			continue
		}
		if op.running {
			op.abandoned, running = true, true
		} else {
			delete(m.ops, key)
		}
	}
	return running
}
