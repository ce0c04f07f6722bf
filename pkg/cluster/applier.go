package cluster

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/deploy"
	"github.com/winkube/winkube/pkg/lint/load"
)

// Apply tuning. kubectl applies one object at a time under client-go's
// default 5 requests/s, about 5 objects/s; the control plane takes far more.
// As for the node agent (AgentConfig), the client's limits are sized so
// that the API server's priority and fairness, not the client, decides how
// fast objects go in: at the agent's floor of 200/400 the client was the
// bottleneck (5,000 ConfigMaps in 23 s on 2 cores; 10 s at 1000/2000).
// The workers keep that many requests in flight.
const (
	applyQPS     = 1000
	applyBurst   = 2000
	applyWorkers = 16
	// applyAttempts bounds the retries of an object the API server turned
	// away for a while (throttled, busy, its namespace or kind not there yet).
	applyAttempts = 8
	// maxApplyErrors bounds how many failures are listed in the error.
	maxApplyErrors = 20
)

// applyConfig is cfg with the apply limits.
func applyConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = applyQPS, applyBurst
	return cfg
}

// applySummary is what applyObjects did.
type applySummary struct {
	Applied int
	Kinds   map[string]int // applied objects per kind
	Took    time.Duration
}

// String is the summary line, e.g. "5002 objects applied in 9.8s (510/s):
// 5000 ConfigMap, 1 Deployment, 1 Service".
func (s applySummary) String() string {
	kinds := make([]string, 0, len(s.Kinds))
	for k := range s.Kinds {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if s.Kinds[kinds[i]] != s.Kinds[kinds[j]] {
			return s.Kinds[kinds[i]] > s.Kinds[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", s.Kinds[k], k)
	}
	rate := ""
	if secs := s.Took.Seconds(); secs > 0 && s.Applied > 1 {
		rate = fmt.Sprintf(" (%.0f/s)", float64(s.Applied)/secs)
	}
	return fmt.Sprintf("%d objects applied in %s%s: %s", s.Applied, round(s.Took), rate, strings.Join(parts, ", "))
}

// applyObjects server-side applies objs, several at a time. Namespaces and
// CustomResourceDefinitions go first (and the definitions are waited for),
// so the objects that need them find them; the rest go in any order, as
// they would from separate `kubectl apply` runs. Every object is tried;
// the error lists the ones that failed.
func applyObjects(ctx context.Context, cfg *rest.Config, objs []load.Object, p *progress) (applySummary, error) {
	start := time.Now()
	sum := applySummary{Kinds: map[string]int{}}
	first, rest := splitFirst(objs)
	var failed []error
	for i, batch := range [][]load.Object{first, rest} {
		if len(batch) == 0 {
			continue
		}
		// A fresh applier per batch: its discovery then knows the kinds the
		// first batch's definitions added.
		a, err := deploy.NewApplier(applyConfig(cfg))
		if err != nil {
			return sum, err
		}
		failed = append(failed, applyBatch(ctx, a, batch, &sum, p)...)
		if i == 0 {
			if err := waitEstablished(ctx, cfg, first); err != nil {
				failed = append(failed, err)
			}
		}
	}
	sum.Took = time.Since(start)
	p.finish()
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	return sum, joinApplyErrors(failed, len(objs))
}

// splitFirst separates what other objects may need from the rest.
func splitFirst(objs []load.Object) (first, rest []load.Object) {
	for _, o := range objs {
		switch o.Obj.GroupVersionKind().GroupKind().String() {
		case "Namespace", "CustomResourceDefinition.apiextensions.k8s.io":
			first = append(first, o)
		default:
			rest = append(rest, o)
		}
	}
	return first, rest
}

// applyBatch applies objs with applyWorkers goroutines and returns the
// failures.
func applyBatch(ctx context.Context, a *deploy.Applier, objs []load.Object, sum *applySummary, p *progress) []error {
	jobs := make(chan load.Object)
	var mu sync.Mutex
	var failed []error
	var wg sync.WaitGroup
	for range min(applyWorkers, len(objs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range jobs {
				err := applyOne(ctx, a, o.Obj)
				mu.Lock()
				if err != nil {
					failed = append(failed, objectError(o, err))
				} else {
					sum.Applied++
					sum.Kinds[o.Obj.GetKind()]++
				}
				mu.Unlock()
				p.add(1)
			}
		}()
	}
	for _, o := range objs {
		if ctx.Err() != nil {
			break
		}
		jobs <- o
	}
	close(jobs)
	wg.Wait()
	return failed
}

// applyOne applies obj, retrying what the API server may accept a moment
// later.
func applyOne(ctx context.Context, a *deploy.Applier, obj *unstructured.Unstructured) error {
	delay := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := a.Apply(ctx, obj, io.Discard)
		if err == nil || attempt == applyAttempts || !retriable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 3*time.Second)
	}
}

// retriable: throttled, busy, a conflict between two writers, or a
// namespace that is still being created.
func retriable(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsConflict(err) ||
		apierrors.IsNotFound(err) || meta.IsNoMatchError(err)
}

func objectError(o load.Object, err error) error {
	if o.Line > 0 {
		return fmt.Errorf("%s:%d: %w", o.File, o.Line, err)
	}
	return fmt.Errorf("%s: %w", o.File, err)
}

// joinApplyErrors lists the first failures, one a line.
func joinApplyErrors(failed []error, total int) error {
	if len(failed) == 0 {
		return nil
	}
	sort.Slice(failed, func(i, j int) bool { return failed[i].Error() < failed[j].Error() })
	lines := make([]string, 0, maxApplyErrors+1)
	for i, err := range failed {
		if i == maxApplyErrors {
			lines = append(lines, fmt.Sprintf("... and %d more", len(failed)-maxApplyErrors))
			break
		}
		lines = append(lines, err.Error())
	}
	return fmt.Errorf("--apply: %d of %d objects failed:\n  %s", len(failed), total, strings.Join(lines, "\n  "))
}
