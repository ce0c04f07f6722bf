package node

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/winkube/winkube/pkg/node/internal/podworker"
	"github.com/winkube/winkube/pkg/node/internal/status"
	"k8s.io/klog/v2"
)

// apiOp names an API call a node makes again and again. A kubelet that
// cannot make one keeps retrying; the agent does the same, and says so on
// the terminal once when an operation starts failing and once when it works
// again, so a denied lease renewal (RBAC under `winkube nodes`) or a vanished
// API server is visible without reading winkube.log.
type apiOp string

const (
	opLease      apiOp = "renew its lease"
	opNodeStatus apiOp = "update its node status"
	opNodePatch  apiOp = "patch its Node object"
	opPodStatus  apiOp = podworker.OpPodStatus
	opPodPatch   apiOp = "patch pods"
	opPodDelete  apiOp = podworker.OpPodDelete
)

// troubles tracks the operations of one node that fail right now.
type troubles struct {
	mu       sync.Mutex
	failed   map[apiOp]string // operation → the last API error
	attempts map[apiOp]int    // failed attempts since it last worked
}

// fail records a failed operation; it reports whether the operation was
// working before, so the caller prints the failure only once.
func (t *troubles) fail(op apiOp, err error) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failed == nil {
		t.failed, t.attempts = map[apiOp]string{}, map[apiOp]int{}
	}
	_, already := t.failed[op]
	t.failed[op] = err.Error()
	t.attempts[op]++
	return !already
}

// recover records a successful operation; it reports whether the
// operation had been failing.
func (t *troubles) recover(op apiOp) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, was := t.failed[op]
	delete(t.failed, op)
	delete(t.attempts, op)
	return was
}

func (t *troubles) failing(op apiOp) bool {
	return t.failures(op) > 0
}

// failures is the number of failed attempts since op last worked.
func (t *troubles) failures(op apiOp) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.attempts[op]
}

// describe words the failing operations, sorted, as
// "cannot OP (N attempts): ERR".
func (t *troubles) describe() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for op, msg := range t.failed {
		out = append(out, fmt.Sprintf("cannot %s (%d attempts): %s", op, t.attempts[op], msg))
	}
	sort.Strings(out)
	return out
}

// failed reports a failed API call of the node: on the terminal the first
// time, in the log every time.
func (n *emuNode) failed(op apiOp, err error) {
	if n.agent == nil {
		return // a unit test's node without an agent
	}
	if n.agent.runCtx != nil && n.agent.runCtx.Err() != nil {
		return // stopping: calls cut short by Close are no trouble
	}
	klog.V(2).InfoS("node agent: will retry", "node", n.spec.name, "operation", string(op), "err", err)
	if n.troubles.fail(op, err) {
		n.agent.progress.printf("node %s cannot %s: %v (retrying)", n.spec.name, op, err)
	}
}

// succeeded clears a failure reported by failed.
func (n *emuNode) succeeded(op apiOp) {
	if n.agent != nil && n.troubles.recover(op) {
		n.agent.progress.printf("node %s can %s again", n.spec.name, op)
	}
}

// NotReady lists the nodes that are not Ready in the API, one line each
// with the reason: the API calls the node cannot make, else the message
// of its Ready condition. It is empty when every node is Ready.
func (a *Agent) NotReady() []string {
	var out []string
	for _, name := range a.names {
		if reason := a.notReadyReason(name); reason != "" {
			out = append(out, fmt.Sprintf("%s: %s", name, reason))
		}
	}
	return out
}

func (a *Agent) notReadyReason(name string) string {
	problems := a.nodes[name].troubles.describe()
	if a.nodeLister == nil {
		return "not registered"
	}
	n, err := a.nodeLister.Get(name)
	switch {
	case err == nil && status.Ready(n):
		return ""
	case len(problems) > 0:
		return strings.Join(problems, "; ")
	case err != nil:
		return fmt.Sprintf("not seen in the API: %v", err)
	}
	for _, c := range n.Status.Conditions {
		if c.Type == "Ready" {
			return fmt.Sprintf("Ready=%s %s: %s", c.Status, c.Reason, c.Message)
		}
	}
	return "no Ready condition yet"
}
