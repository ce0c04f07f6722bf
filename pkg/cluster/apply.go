package cluster

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/deploy"
	"github.com/winkube/winkube/pkg/kubeapply"
	"github.com/winkube/winkube/pkg/manifest"
)

// ApplyAndReport applies the manifests of Options.Apply (read and checked
// before the cluster started) with one progress line and a summary, then
// prints where the pods of the applied workloads landed once they settle.
func (c *Cluster) ApplyAndReport(ctx context.Context, timeout time.Duration) error {
	m := c.manifests
	if m == nil || len(m.Objects) == 0 {
		return nil
	}
	cfg := c.cp.RESTConfig()
	c.say("Applying %s from %v", plural(len(m.Objects), "object"), m.Paths)
	sum, err := applyObjects(ctx, cfg, m.Objects, newProgress(c.out, len(m.Objects)))
	if sum.Applied > 0 {
		c.say(" ✓ %s", sum)
	}
	if err != nil {
		return err
	}
	var workloads []deploy.Workload
	for _, o := range m.Objects {
		if w, ok := workloadOf(o.Obj); ok {
			workloads = append(workloads, w)
		}
	}
	if len(workloads) == 0 {
		return nil
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating client: %w", err)
	}
	c.say("Where the pods landed:")
	return reportPlacement(ctx, cs, workloads, timeout, c.out)
}

// applyObjects applies the manifests' objects with kubeapply.ApplyAll,
// counting them on p.
func applyObjects(ctx context.Context, cfg *rest.Config, objs []manifest.Object, p *progress) (kubeapply.Summary, error) {
	in := make([]kubeapply.Object, len(objs))
	for i, o := range objs {
		in[i] = kubeapply.Object{Obj: o.Obj, File: o.File, Line: o.Line}
	}
	sum, err := kubeapply.ApplyAll(ctx, cfg, in, p.add)
	p.finish()
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("--apply: %w", err)
	}
	return sum, err
}
