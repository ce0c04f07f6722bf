package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/deploy"
	"github.com/winkube/winkube/pkg/lint/load"
)

// ApplyAndReport applies the manifests at paths and prints where the pods
// of the applied workloads landed once they settle.
func (c *Cluster) ApplyAndReport(ctx context.Context, paths []string, timeout time.Duration) error {
	objs, errs := load.Load(paths, load.Options{})
	if len(errs) > 0 {
		return fmt.Errorf("reading --apply manifests: %w", errors.Join(errs...))
	}
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
