package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/node/internal/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	listerscorev1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// troubleAgent is an agent of named nodes whose progress goes to out and
// whose node lister holds the given Node objects.
func troubleAgent(out *bytes.Buffer, names []string, nodes ...*corev1.Node) *Agent {
	a := &Agent{progress: &progress{w: out}, nodes: map[string]*emuNode{}, names: names}
	for _, name := range names {
		a.nodes[name] = &emuNode{agent: a, spec: &nodeSpec{name: name}}
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, n := range nodes {
		_ = idx.Add(n)
	}
	a.nodeLister = listerscorev1.NewNodeLister(idx)
	return a
}

// A failing API call is said once, not on every retry, and its recovery
// once.
func TestFailureReportedOnceAndRecovery(t *testing.T) {
	var out bytes.Buffer
	a := troubleAgent(&out, []string{"win2019-1"})
	n := a.nodes["win2019-1"]
	denied := errors.New(`leases.coordination.k8s.io "win2019-1" is forbidden`)
	for range 3 {
		n.failed(opLease, denied)
	}
	n.succeeded(opLease)
	n.succeeded(opLease)
	want := "node win2019-1 cannot renew its lease: leases.coordination.k8s.io \"win2019-1\" is forbidden (retrying)\n" +
		"node win2019-1 can renew its lease again\n"
	if out.String() != want {
		t.Errorf("progress output:\n%s\nwant:\n%s", out.String(), want)
	}
}

// Calls cut short because the agent is stopping are not reported: Ctrl-C
// printed "cannot update its node status: ... context canceled (retrying)"
// for the nodes whose status post was in flight.
func TestNoFailureReportedWhileStopping(t *testing.T) {
	var out bytes.Buffer
	a := troubleAgent(&out, []string{"win2019-1"})
	ctx, cancel := context.WithCancel(context.Background())
	a.runCtx = ctx
	cancel()
	a.nodes["win2019-1"].failed(opNodeStatus, context.Canceled)
	if out.Len() > 0 {
		t.Errorf("progress output while stopping: %q, want none", out.String())
	}
}

// NotReady names each node that is not Ready with its failing API calls,
// else its Ready condition, and leaves Ready nodes out.
func TestNotReadyReasons(t *testing.T) {
	ready := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "linux-1"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: status.ReasonReady},
	}}}
	noNetwork := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "win2019-1"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: status.ReasonNotReady, Message: status.MsgNetworkNotReady},
	}}}
	stale := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "win2022-1"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status."},
	}}}
	var out bytes.Buffer
	a := troubleAgent(&out, []string{"linux-1", "win2019-1", "win2022-1"}, ready, noNetwork, stale)
	a.nodes["win2022-1"].failed(opNodeStatus, errors.New(`nodes "win2022-1" is forbidden`))
	a.nodes["win2022-1"].failed(opNodeStatus, errors.New(`nodes "win2022-1" is forbidden`))
	got := a.NotReady()
	if len(got) != 2 {
		t.Fatalf("NotReady() = %q, want win2019-1 and win2022-1", got)
	}
	if !strings.HasPrefix(got[0], "win2019-1: Ready=False KubeletNotReady: container runtime network not ready") {
		t.Errorf("NotReady()[0] = %q", got[0])
	}
	if got[1] != `win2022-1: cannot update its node status (2 attempts): nodes "win2022-1" is forbidden` {
		t.Errorf("NotReady()[1] = %q", got[1])
	}
}

// Registration errors beyond the first three are counted, not listed.
func TestFirstErrors(t *testing.T) {
	var errs []error
	for i := range 5 {
		errs = append(errs, fmt.Errorf("register node n-%d: refused", i))
	}
	got := firstErrors(errs, 3).Error()
	want := "register node n-0: refused\nregister node n-1: refused\nregister node n-2: refused\n... and 2 more"
	if got != want {
		t.Errorf("firstErrors = %q, want %q", got, want)
	}
	if got := firstErrors(errs[:2], 3).Error(); strings.Count(got, "\n") != 1 {
		t.Errorf("two errors: %q, want both", got)
	}
}
