package shard

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ClientConfig is cfg with room for every renewal of a replica of shards
// renewing every retry: a replica writes each held shard's Lease, its
// member Lease and one List every retry period, and a renewal held back by
// the client's own rate limiter past the renew deadline would stop a shard
// for nothing.
func ClientConfig(cfg *rest.Config, shards int, retry time.Duration) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	perSecond := float32(shards+2) / float32(retry.Seconds())
	cfg.QPS = max(5, 2*perSecond)
	cfg.Burst = max(10, int(4*perSecond)+shards)
	return cfg
}

// CanWriteLeases fails at once when the client's identity cannot create
// the Leases of group in namespace ns, or ns does not exist: a dry-run
// create, so nothing is written.
func CanWriteLeases(ctx context.Context, client kubernetes.Interface, ns, group string) error {
	probe := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: group + "-probe"}}
	_, err := client.CoordinationV1().Leases(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
