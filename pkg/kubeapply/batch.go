package kubeapply

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
)

// Apply tuning. kubectl applies one object at a time under client-go's
// default 5 requests/s, about 5 objects/s; the control plane takes far more.
// As for the node agent (cluster.AgentConfig), the client's limits are sized so
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

// Object is an object to apply and where it was read, for errors.
type Object struct {
	Obj  *unstructured.Unstructured
	File string
	Line int // 0 when unknown
}

// Summary is what ApplyAll did.
type Summary struct {
	Applied int
	Kinds   map[string]int // applied objects per kind
	Took    time.Duration
}

// String is the summary line, e.g. "5002 objects applied in 9.8s (510/s):
// 5000 ConfigMap, 1 Deployment, 1 Service".
func (s Summary) String() string {
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

// ApplyAll applies objs, several at a time, as `kubectl apply
// --field-manager=winkube` would (see clientSide). Namespaces and
// CustomResourceDefinitions go first (and the definitions are waited for),
// so the objects that need them find them; the rest go in any order, as
// they would from separate `kubectl apply` runs. Every object is tried;
// the error lists the ones that failed. progress, when not nil, is called
// with 1 as each object is done.
func ApplyAll(ctx context.Context, cfg *rest.Config, objs []Object, progress func(int)) (Summary, error) {
	start := time.Now()
	sum := Summary{Kinds: map[string]int{}}
	first, rest := splitFirst(objs)
	// A kind the API server does not serve, or a namespace it does not
	// have, is waited for only when the objects define kinds (CRDs,
	// aggregated APIs) or namespaces, whose arrival may lag; otherwise
	// it is kubectl's immediate "no matches for kind" or "not found".
	defines := definitionsOf(objs)
	if progress == nil {
		progress = func(int) {}
	}
	var failed []error
	for i, batch := range [][]Object{first, rest} {
		if len(batch) == 0 {
			continue
		}
		// A fresh applier per batch: its discovery then knows the kinds the
		// first batch's definitions added.
		c, err := newClientSide(applyConfig(cfg))
		if err != nil {
			return sum, err
		}
		failed = append(failed, applyBatch(ctx, c, batch, defines, &sum, progress)...)
		if i == 0 {
			if err := waitEstablished(ctx, cfg, first); err != nil {
				failed = append(failed, err)
			}
		}
	}
	sum.Took = time.Since(start)
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	return sum, joinApplyErrors(failed, len(objs))
}

// splitFirst separates what other objects may need from the rest.
func splitFirst(objs []Object) (first, rest []Object) {
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

// definitions says what objs add that other objects may need.
type definitions struct {
	kinds      bool // CRDs or APIServices
	namespaces bool
}

func definitionsOf(objs []Object) definitions {
	var d definitions
	for _, o := range objs {
		switch o.Obj.GroupVersionKind().GroupKind().String() {
		case "CustomResourceDefinition.apiextensions.k8s.io", "APIService.apiregistration.k8s.io":
			d.kinds = true
		case "Namespace":
			d.namespaces = true
		}
	}
	return d
}

// applyBatch applies objs with applyWorkers goroutines and returns the
// failures.
func applyBatch(ctx context.Context, c *clientSide, objs []Object, defines definitions, sum *Summary, progress func(int)) []error {
	jobs := make(chan Object)
	var mu sync.Mutex
	var failed []error
	var wg sync.WaitGroup
	for range min(applyWorkers, len(objs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range jobs {
				err := applyOne(ctx, c, o.Obj, defines)
				mu.Lock()
				if err != nil {
					failed = append(failed, objectError(o, err))
				} else {
					sum.Applied++
					sum.Kinds[o.Obj.GetKind()]++
				}
				mu.Unlock()
				progress(1)
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
// later: a missing kind or namespace only when the input defines some.
func applyOne(ctx context.Context, c *clientSide, obj *unstructured.Unstructured, defines definitions) error {
	delay := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		_, err := c.apply(ctx, obj)
		if err == nil || attempt == applyAttempts || !retriable(err) ||
			(meta.IsNoMatchError(err) && !defines.kinds) || (apierrors.IsNotFound(err) && !defines.namespaces) {
			return err
		}
		if meta.IsNoMatchError(err) {
			c.a.forgetKinds()
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

func objectError(o Object, err error) error {
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
	return fmt.Errorf("%d of %d objects failed:\n  %s", len(failed), total, strings.Join(lines, "\n  "))
}

// round keeps a duration readable: tenths of a second past a second, else
// milliseconds (as `winkube up` prints its steps).
func round(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
