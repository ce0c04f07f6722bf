package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/node"
)

// JoinOptions say which emulated nodes join a cluster winkube did not
// start (`winkube nodes`) and how their kubelet API is served.
type JoinOptions struct {
	// Config is the cluster to join, as the caller's flags name it.
	Config *rest.Config
	// Cluster holds the node pools.
	Cluster *v1alpha1.Cluster
	// Kubelet is where the nodes serve the kubelet API to the API server.
	Kubelet *node.KubeletServing
	Images  imageinfo.Resolver
	// UnknownImages is node.Options.UnknownImages.
	UnknownImages string
	// ApproveCSR approves the nodes' kubelet serving certificate requests.
	ApproveCSR bool
	// Nodes, when set, picks the nodes this process runs (a shard's).
	Nodes func(name string) bool
	// Progress gets the join's lines; nil for none.
	Progress io.Writer
}

// Validate checks the options before anything starts.
func (o *JoinOptions) Validate() error {
	switch {
	case o.Config == nil:
		return errors.New("join: no cluster to join (Config)")
	case o.Cluster == nil:
		return errors.New("join: no node pools (Cluster)")
	case o.Kubelet == nil:
		return errors.New("join: no kubelet serving address (Kubelet)")
	}
	return node.CheckUnknownImages(o.UnknownImages)
}

// JoinStep is the step of a join that failed, for the caller to name the
// flag that fixes it.
type JoinStep int

const (
	// JoinStart: the nodes did not start (a *node.ListenError for a
	// kubelet listener).
	JoinStart JoinStep = iota
	// JoinReach: the API server cannot reach the nodes' kubelet API; the
	// nodes that registered were removed again.
	JoinReach
	// JoinCerts: the serving certificate requests could not be filed.
	JoinCerts
)

// JoinError is a failed join and its step.
type JoinError struct {
	Step JoinStep
	Err  error
}

func (e *JoinError) Error() string { return e.Err.Error() }
func (e *JoinError) Unwrap() error { return e.Err }

// Join starts the nodes and checks what joining proves for a real node:
// the API server reaches every kubelet (nodes it cannot reach would
// answer nothing, so they are removed again), then the nodes ask for
// their serving certificates. The agent runs until Close.
func Join(ctx context.Context, o JoinOptions) (*node.Agent, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	out := o.Progress
	if out == nil {
		out = io.Discard
	}
	began := time.Now()
	agent, err := node.Start(ctx, node.Options{Config: AgentConfig(o.Config), Cluster: o.Cluster, Progress: out,
		Images: o.Images, UnknownImages: o.UnknownImages, Kubelet: o.Kubelet, Nodes: o.Nodes})
	if err != nil {
		return nil, &JoinError{Step: JoinStart, Err: err}
	}
	printEndpoints(out, agent)
	if err := checkReachable(ctx, out, agent); err != nil {
		agent.Close()
		if removed := agent.RemoveNodesSince(context.WithoutCancel(ctx), began); len(removed) > 0 {
			fmt.Fprintf(out, "Removed the nodes that registered: %s\n", strings.Join(removed, ", "))
		}
		return nil, &JoinError{Step: JoinReach, Err: err}
	}
	if err := requestCerts(ctx, out, agent, o.ApproveCSR); err != nil {
		agent.Close()
		return nil, &JoinError{Step: JoinCerts, Err: err}
	}
	return agent, nil
}

// printEndpoints says where the nodes' kubelet API listens: per node for
// a few nodes, as a port range for many.
func printEndpoints(out io.Writer, agent *node.Agent) {
	eps := agent.KubeletEndpoints()
	names := agent.NodeNames()
	if len(eps) == 0 {
		return
	}
	if len(names) > 10 {
		lo, hi := eps[names[0]], eps[names[len(names)-1]]
		fmt.Fprintf(out, "Kubelet API of %d nodes on %s, ports %d (%s) to %d (%s)\n", len(names), lo.Addr(), lo.Port(), names[0], hi.Port(), names[len(names)-1])
		return
	}
	for _, name := range names {
		fmt.Fprintf(out, "  node %s: kubelet API on %s\n", name, eps[name])
	}
}

// checkReachable fails when the API server cannot reach the kubelets. An
// identity without nodes/proxy permission skips the check.
func checkReachable(ctx context.Context, out io.Writer, agent *node.Agent) error {
	err := agent.CheckKubeletReachable(ctx)
	if apierrors.IsForbidden(err) {
		fmt.Fprintf(out, "Not checking that the API server reaches the kubelets (no nodes/proxy permission): %v\n", err)
		return nil
	}
	return err
}

// requestCerts files the nodes' serving certificate requests and says
// what the user must approve.
func requestCerts(ctx context.Context, out io.Writer, agent *node.Agent, approve bool) error {
	csrs, err := agent.RequestServingCerts(ctx, approve)
	if err != nil {
		if apierrors.IsForbidden(err) {
			fmt.Fprintf(out, "The nodes serve self-signed certificates: %v\n", err)
			return nil
		}
		return err
	}
	var pending []string
	for _, c := range csrs {
		if !c.Approved {
			pending = append(pending, c.Name)
		}
		if c.ApproveErr != nil {
			fmt.Fprintf(out, "Cannot approve %s (--approve-csr): %v\n", c.Name, c.ApproveErr)
		}
	}
	if n := len(csrs) - len(pending); n > 0 {
		fmt.Fprintf(out, "Approved %d kubelet serving certificate requests.\n", n)
	}
	if len(pending) > 0 {
		fmt.Fprintf(out, "The nodes serve self-signed certificates until their kubelet serving certificate requests are approved:\n"+
			"  kubectl certificate approve %s\n", strings.Join(pending, " "))
	}
	return nil
}
