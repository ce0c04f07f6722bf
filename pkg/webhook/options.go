// Package webhook is winkube's admission webhook: a mutating decision that
// places pods on nodes that can run their images (IMG-2, SCH-3, SCH-5) and
// refuses pods that cannot run anywhere (LIM-1), and a validating decision
// that applies the API-* rules for older clusters and the LIM-* rules to
// pods and workload templates. The decisions (Mutate, Validate) are plain
// functions of an AdmissionRequest; the HTTP wiring is in handler.go and
// serve.go, the webhook configurations in config.go.
package webhook

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/rules"
)

// Paths the handler serves.
const (
	MutatePath   = "/mutate"
	ValidatePath = "/validate"
	HealthzPath  = "/healthz"
	ReadyzPath   = "/readyz"
	MetricsPath  = "/metrics"
)

// PlacedByAnnotation records on a pod what the mutating webhook added and
// why, with rule IDs.
const PlacedByAnnotation = annotations.PlacedBy

// Modes of the placement decision.
const (
	// ModeEnforce refuses a pod whose own placement contradicts its images.
	ModeEnforce = "enforce"
	// ModeWarn allows it with an admission warning.
	ModeWarn = "warn"
)

// What to do when a registry look-up fails (Answer.Err).
const (
	// OnRegistryErrorCatalog places the pod from the resolver's fallback
	// answer (the built-in catalog) and warns.
	OnRegistryErrorCatalog = "catalog"
	// OnRegistryErrorAllow admits the pod unchanged and warns.
	OnRegistryErrorAllow = "allow"
)

// Defaults of Options.
const (
	DefaultWindowsTaint    = "os=windows:NoSchedule"
	DefaultRegistryTimeout = 2 * time.Second
)

// DefaultEnforce are the rules the validating webhook denies by default:
// the API-* rules (newer API servers reject the same objects, so denying
// them on an older cluster only moves the error earlier), LIM-1 (a pod
// that mixes Windows and Linux images runs nowhere) and the WK-* rules
// whose findings are errors (the emulated node refuses such a pod's
// containers in the same words).
var DefaultEnforce = append([]string{"API", "LIM-1"}, refusedByTheNode()...)

// DefaultWarn are the rules it warns about by default: every other LIM-*
// rule, VER-* (a field the cluster's version does not know yet, which
// its API server drops; lint reports it too), the other WK-* rules, and
// KLT-11 (a RuntimeClass whose handler the nodes' runtime lacks: the pods
// are created and their sandboxes fail). Advice-level (info) rule-book
// findings are not sent unless their exact ID is listed.
var DefaultWarn = []string{"LIM", "VER", "WK", "KLT-11"}

// refusedByTheNode are the WK rules whose verdict is an error.
func refusedByTheNode() []string {
	var out []string
	for _, r := range rules.All() {
		if r.Family == "WK" && rules.VerdictOf(r.ID, "").Severity == rules.SeverityError {
			out = append(out, r.ID)
		}
	}
	return out
}

// Options configure a Handler. The zero value is usable: the catalog
// resolver, no node knowledge, the defaults above.
type Options struct {
	// Resolver answers image platforms; default imageinfo.CatalogResolver{}.
	Resolver imageinfo.Resolver
	// Client reads nodes (which OSes and Windows builds exist), the
	// RuntimeClasses pods name, the server version and, unless Secrets is
	// set, pull secrets. Nil means no node knowledge.
	Client kubernetes.Interface
	// Secrets returns the pull-secret payloads for a pod's registry
	// look-ups. Nil: read them through Client (registry.SecretsFor) when
	// the resolver is not the catalog, else none.
	Secrets func(ctx context.Context, pod *corev1.Pod) ([][]byte, error)
	// WindowsTaint is the Windows nodes' taint Windows pods get a
	// toleration for (SCH-3): key=value:Effect or key:Effect; "none"
	// disables the toleration. Default os=windows:NoSchedule.
	WindowsTaint string
	// Enforce and Warn list rule IDs (LIM-3) or families (API, LIM, VER) the
	// validating webhook denies or warns about; Enforce wins over Warn.
	// Nil means DefaultEnforce and DefaultWarn; an empty non-nil slice
	// means none.
	Enforce, Warn []string
	// OnRegistryError is catalog (default) or allow.
	OnRegistryError string
	// Mode is enforce (default) or warn, for placement contradictions and
	// LIM-1 in the mutating webhook.
	Mode string
	// RegistryTimeout bounds all image look-ups of one decision (they run
	// concurrently); default 2s.
	RegistryTimeout time.Duration
	// KubernetesVersion is the cluster's version for the API-* rules, e.g.
	// "1.26". Empty: ask Client's discovery, or assume the version winkube
	// runs (kubeversion.DefaultMinor) without a client.
	KubernetesVersion string
	// Collectors are extra metrics served on /metrics with the webhook's
	// own. A resolver with a Stats() registry.Stats method (the registry
	// resolver) gets its cache and error counters served without this.
	Collectors []prometheus.Collector
	// Logf logs recovered panics and failed look-ups; default discards.
	Logf func(format string, args ...any)
}

// settings are Options after validation.
type settings struct {
	resolver        imageinfo.Resolver
	taint           *corev1.Taint
	enforce, warn   ruleSet
	allowOnError    bool
	warnOnly        bool
	registryTimeout time.Duration
	minor           int // 0 until known (discovery)
	logf            func(string, ...any)
}

func (o Options) settings() (*settings, error) {
	s := &settings{resolver: o.Resolver, registryTimeout: o.RegistryTimeout, logf: o.Logf}
	if s.resolver == nil {
		s.resolver = imageinfo.CatalogResolver{}
	}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	if s.registryTimeout < 0 {
		return nil, fmt.Errorf("--registry-timeout %s: must not be negative", o.RegistryTimeout)
	}
	if s.registryTimeout == 0 {
		s.registryTimeout = DefaultRegistryTimeout
	}
	taint := o.WindowsTaint
	if taint == "" {
		taint = DefaultWindowsTaint
	}
	if taint != "none" {
		t, err := ParseTaint(taint)
		if err != nil {
			return nil, fmt.Errorf("--windows-taint: %w", err)
		}
		s.taint = &t
	}
	var err error
	if s.enforce, err = parseRules("--enforce", o.Enforce, DefaultEnforce); err != nil {
		return nil, err
	}
	if s.warn, err = parseRules("--warn", o.Warn, DefaultWarn); err != nil {
		return nil, err
	}
	switch o.OnRegistryError {
	case "", OnRegistryErrorCatalog:
	case OnRegistryErrorAllow:
		s.allowOnError = true
	default:
		return nil, fmt.Errorf("--on-registry-error %q: want %s or %s", o.OnRegistryError, OnRegistryErrorCatalog, OnRegistryErrorAllow)
	}
	switch o.Mode {
	case "", ModeEnforce:
	case ModeWarn:
		s.warnOnly = true
	default:
		return nil, fmt.Errorf("--mode %q: want %s or %s", o.Mode, ModeEnforce, ModeWarn)
	}
	if o.KubernetesVersion != "" {
		if s.minor, err = kubeversion.ParseMinor(o.KubernetesVersion); err != nil {
			return nil, fmt.Errorf("--kubernetes-version: %w", err)
		}
	} else if o.Client == nil {
		s.minor = kubeversion.DefaultMinor
	}
	return s, nil
}

// ParseTaint reads key=value:Effect or key:Effect, the form of kubelet
// --register-with-taints.
func ParseTaint(s string) (corev1.Taint, error) {
	kv, effect, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || kv == "" {
		return corev1.Taint{}, fmt.Errorf("taint %q: want key=value:Effect or key:Effect", s)
	}
	t := corev1.Taint{Effect: corev1.TaintEffect(effect)}
	t.Key, t.Value, _ = strings.Cut(kv, "=")
	switch t.Effect {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
	default:
		return corev1.Taint{}, fmt.Errorf("taint %q: effect %q is not NoSchedule, PreferNoSchedule or NoExecute", s, effect)
	}
	if t.Key == "" {
		return corev1.Taint{}, fmt.Errorf("taint %q: empty key", s)
	}
	return t, nil
}

// validatedFamilies are the families of windows.PodViolations, the rules
// the validating webhook applies, and validatedIDs the rules of other
// families it applies too.
var (
	validatedFamilies = map[string]bool{"API": true, "LIM": true, "VER": true, "WK": true}
	validatedIDs      = map[string]bool{"KLT-11": true}
)

// ruleSet holds rule IDs and families.
type ruleSet struct {
	ids, families map[string]bool
}

// parseRules reads rule IDs and family names; nil means the defaults.
func parseRules(flag string, list, defaults []string) (ruleSet, error) {
	if list == nil {
		list = defaults
	}
	rs := ruleSet{ids: map[string]bool{}, families: map[string]bool{}}
	for _, item := range list {
		for _, id := range strings.Split(item, ",") {
			id = strings.ToUpper(strings.TrimSpace(id))
			switch {
			case id == "":
			case strings.Contains(id, "-"):
				if _, ok := rules.Get(id); !ok {
					return rs, fmt.Errorf("%s %s: no such rule (see docs/rules.md)", flag, id)
				}
				if f, _, _ := strings.Cut(id, "-"); !validatedFamilies[f] && !validatedIDs[id] {
					return rs, fmt.Errorf("%s %s: the validating webhook checks only API-*, LIM-*, VER-* and WK-* rules and KLT-11", flag, id)
				}
				rs.ids[id] = true
			case validatedFamilies[id]:
				rs.families[id] = true
			default:
				return rs, fmt.Errorf("%s %s: the validating webhook checks the API, LIM, VER and WK families; name one of them or a rule ID such as LIM-3", flag, id)
			}
		}
	}
	return rs, nil
}

// has reports whether the set names the rule: by ID always, by family only
// for findings that are not mere advice.
func (rs ruleSet) has(id string, severity rules.Severity) bool {
	if rs.ids[id] {
		return true
	}
	family, _, _ := strings.Cut(id, "-")
	return severity != rules.SeverityInfo && rs.families[family]
}
