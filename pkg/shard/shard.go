// Package shard lets several replicas of one process split a fixed set of
// shards between them with coordination.k8s.io Leases, the way
// kube-controller-manager replicas elect a leader, but per shard: one Lease
// per shard, held by at most one replica, and one member Lease per replica
// so that every replica knows how many share the work.
//
// Safety (no shard runs in two replicas at once) rests on the same timing
// as client-go's leaderelection: a holder that has not renewed a shard's
// Lease for RenewDeadline stops that shard before the Lease can expire for
// anyone else (LeaseDuration after the last renewal they saw), and another
// replica takes a Lease only once it has seen it unchanged for its whole
// duration, measured on its own clock.
package shard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
)

// Options configure one replica.
type Options struct {
	// Client reaches the API server that holds the Leases.
	Client kubernetes.Interface
	// Namespace holds the Leases.
	Namespace string
	// Group prefixes the Lease names: <Group>-shard-<i> and
	// <Group>-replica-<Identity>. Replicas that split the same work share it.
	Group string
	// Identity names this replica; it must be unique among the replicas.
	Identity string
	// Shards is the number of shards, the same in every replica.
	Shards int
	// Layout, when set, has one fingerprint per shard (Fingerprint) so that
	// a replica whose shards hold other work (another --shards or config)
	// refuses to run instead of running the same work twice.
	Layout []string
	// LeaseDuration is how long a Lease lives without renewal;
	// RenewDeadline how long a holder keeps trying before it stops the
	// shard; RetryPeriod how often it tries.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// ReleaseOnCancel gives up the held Leases when Run's context ends, so
	// that other replicas take over at once instead of after LeaseDuration.
	ReleaseOnCancel bool
	// Start runs one shard until the returned Closer is closed. It must
	// return promptly once ctx is cancelled: while it runs the shard counts
	// as running. An error from Start ends Run with that error.
	Start func(ctx context.Context, shard int) (io.Closer, error)
	// Progress, when set, receives one line per change of ownership.
	Progress io.Writer
}

// Validate checks the options before Run; its errors name the field.
func (o *Options) Validate() error {
	switch {
	case o.Client == nil:
		return errors.New("shard: Client is required")
	case o.Start == nil:
		return errors.New("shard: Start is required")
	case o.Shards < 1:
		return fmt.Errorf("shard: Shards %d must be at least 1", o.Shards)
	case o.Layout != nil && len(o.Layout) != o.Shards:
		return fmt.Errorf("shard: Layout has %d entries for %d shards", len(o.Layout), o.Shards)
	case o.LeaseDuration < time.Second:
		return fmt.Errorf("shard: LeaseDuration %s must be at least 1s (Leases count whole seconds)", o.LeaseDuration)
	case o.RenewDeadline <= 0 || o.RenewDeadline >= o.LeaseDuration:
		return fmt.Errorf("shard: RenewDeadline %s must be positive and shorter than LeaseDuration %s", o.RenewDeadline, o.LeaseDuration)
	case o.RetryPeriod <= 0 || o.RetryPeriod >= o.RenewDeadline:
		return fmt.Errorf("shard: RetryPeriod %s must be positive and shorter than RenewDeadline %s", o.RetryPeriod, o.RenewDeadline)
	}
	if errs := validation.IsDNS1123Subdomain(o.memberName()); len(errs) > 0 {
		return fmt.Errorf("shard: Identity %q makes Lease name %q invalid: %s", o.Identity, o.memberName(), strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(o.shardName(o.Shards - 1)); len(errs) > 0 {
		return fmt.Errorf("shard: Group %q makes Lease name %q invalid: %s", o.Group, o.shardName(o.Shards-1), strings.Join(errs, "; "))
	}
	return nil
}

func (o *Options) shardName(i int) string { return fmt.Sprintf("%s-shard-%d", o.Group, i) }
func (o *Options) memberName() string     { return o.Group + "-replica-" + o.Identity }

// layout is the fingerprint written on shard i's Lease.
func (o *Options) layout(i int) string {
	if o.Layout == nil {
		return fmt.Sprintf("%d/%d", i, o.Shards)
	}
	return o.Layout[i]
}

// Split cuts names into n contiguous blocks of near-equal size, in the
// order given: block i is names[Offset(len, n, i):Offset(len, n, i+1)].
// Contiguous blocks keep whatever is numbered by position (kubelet ports)
// contiguous within a shard, and the cut depends only on the names and n,
// so every replica computes the same one.
func Split(names []string, n int) [][]string {
	out := make([][]string, n)
	for i := range out {
		out[i] = names[Offset(len(names), n, i):Offset(len(names), n, i+1)]
	}
	return out
}

// Offset is the position of block i's first element when count elements
// are split into n blocks.
func Offset(count, n, i int) int { return i * count / n }

// Fingerprint identifies shard i of n holding names, for Options.Layout.
func Fingerprint(i, n int, names []string) string {
	sum := sha256.Sum256([]byte(strings.Join(names, "\n")))
	return fmt.Sprintf("%d/%d %s", i, n, hex.EncodeToString(sum[:6]))
}
