package shard

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The probe of CanWriteLeases writes nothing, and fails for a namespace
// that does not exist.
func TestCanWriteLeases(t *testing.T) {
	client := needCluster(t)
	ctx := context.Background()
	if err := CanWriteLeases(ctx, client, "default", "probe-test"); err != nil {
		t.Fatalf("default: %v", err)
	}
	if _, err := client.CoordinationV1().Leases("default").Get(ctx, "probe-test-probe", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the probe wrote a Lease: %v", err)
	}
	if err := CanWriteLeases(ctx, client, "no-such-namespace", "probe-test"); !apierrors.IsNotFound(err) {
		t.Errorf("missing namespace: err = %v, want NotFound", err)
	}
}
