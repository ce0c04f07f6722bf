package doctor

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/network"
)

// State is everything the checks read, as listed from the API.
type State struct {
	// Snapshot is what the network model reads: nodes, pods, Services,
	// kube-system ConfigMaps and DaemonSets, the server's minor version.
	*network.Snapshot
	// AllDaemonSets are the DaemonSets of every namespace (placement).
	AllDaemonSets []*appsv1.DaemonSet
	// Leases are the node heartbeats of kube-node-lease.
	Leases []*coordinationv1.Lease
	// Events are the Warning events of every namespace.
	Events []*corev1.Event
	// Now is when the state was read; lease ages are measured against it.
	Now time.Time
	// GMSA is the cluster's GMSACredentialSpecs and RBAC objects, read
	// when a pod names a spec (nil otherwise).
	GMSA *GMSA
	// Images answers what an image offers: the facts of the data dir
	// before the catalog, as the nodes' pulls read them (nil: the
	// catalog alone). It must answer without the network.
	Images imageinfo.Resolver
}

// image is what Images says of ref.
func (s *State) image(ref string) imageinfo.Image {
	if s.Images == nil {
		return imageinfo.Lookup(ref)
	}
	return s.Images.Resolve(context.Background(), imageinfo.Request{Ref: ref}).Image
}

// leaseNamespace holds one Lease per node, renewed by its kubelet.
const leaseNamespace = "kube-node-lease"

// Read lists the state through the API.
func Read(ctx context.Context, c kubernetes.Interface) (*State, error) {
	snap, err := network.Read(ctx, c)
	if err != nil {
		return nil, err
	}
	s := &State{Snapshot: snap, Now: time.Now()}
	all := metav1.ListOptions{}
	dss, err := c.AppsV1().DaemonSets("").List(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("list daemonsets: %w", err)
	}
	for i := range dss.Items {
		s.AllDaemonSets = append(s.AllDaemonSets, &dss.Items[i])
	}
	leases, err := c.CoordinationV1().Leases(leaseNamespace).List(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("list leases in %s: %w", leaseNamespace, err)
	}
	for i := range leases.Items {
		s.Leases = append(s.Leases, &leases.Items[i])
	}
	events, err := c.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "type=" + corev1.EventTypeWarning})
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	for i := range events.Items {
		s.Events = append(s.Events, &events.Items[i])
	}
	s.GMSA = readGMSA(ctx, c, s.Pods)
	return s, nil
}
