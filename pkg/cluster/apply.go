package cluster

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/deploy"
)

// ApplyAndReport applies the manifests of Options.Apply (read and checked
// before the cluster started) and prints where the pods of the applied
// workloads landed once they settle.
func (c *Cluster) ApplyAndReport(ctx context.Context, timeout time.Duration) error {
	m := c.manifests
	if m == nil || len(m.Objects) == 0 {
		return nil
	}
	objs, paths := m.Objects, m.Paths
	cfg := c.cp.RESTConfig()
	applier, err := deploy.NewApplier(cfg)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating client: %w", err)
	}
	c.say("Applying %d objects from %v", len(objs), paths)
	var workloads []deploy.Workload
	for _, o := range objs {
		if err := applier.Apply(ctx, o.Obj, indent{c.out}); err != nil {
			return err
		}
		if w, ok := deploy.WorkloadOf(o.Obj); ok {
			workloads = append(workloads, w)
		}
	}
	if len(workloads) == 0 {
		return nil
	}
	c.say("Where the pods landed:")
	return deploy.Report(ctx, cs, workloads, timeout, c.out)
}
