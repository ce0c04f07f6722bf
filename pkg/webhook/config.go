package webhook

import (
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
)

// Names of the webhooks inside the configurations (they must be
// fully qualified).
const (
	PlacementWebhookName = "placement.winkube.io"
	RulesWebhookName     = "rules.winkube.io"
)

// OptOutLabel on a pod or workload with the value "disabled" keeps the
// webhooks away from it (objectSelector).
const OptOutLabel = annotations.LabelWebhookOptOut

// DefaultTimeoutSeconds is the API server's wait for an answer: short, so
// that a webhook that is down costs every pod creation little.
const DefaultTimeoutSeconds int32 = 5

// Configurations returns the mutating configuration (placement of Pods on
// CREATE, reinvoked when a later webhook changed the pod: IfNeeded) and
// the validating one (Pods on CREATE; Deployments, StatefulSets,
// DaemonSets, ReplicaSets, Jobs, CronJobs and ReplicationControllers on
// CREATE and UPDATE), both named name. clientConfig carries the Service or
// URL without a path and the CA bundle; the paths are added here. Neither
// reaches kube-system, the webhook's own namespace or objects labelled
// winkube.io/webhook=disabled, so the webhook can never block itself or
// the cluster's system pods. timeoutSeconds 0 means DefaultTimeoutSeconds
// and an empty failurePolicy means Ignore: a webhook that is down admits
// pods unchanged.
func Configurations(name, namespace string, clientConfig admissionregistrationv1.WebhookClientConfig, timeoutSeconds int32, failurePolicy admissionregistrationv1.FailurePolicyType) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	if timeoutSeconds == 0 {
		timeoutSeconds = DefaultTimeoutSeconds
	}
	if failurePolicy == "" {
		failurePolicy = admissionregistrationv1.Ignore
	}
	none := admissionregistrationv1.SideEffectClassNone
	equivalent := admissionregistrationv1.Equivalent
	ifNeeded := admissionregistrationv1.IfNeededReinvocationPolicy
	namespaced := admissionregistrationv1.NamespacedScope
	versions := []string{"v1"}

	mut := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    PlacementWebhookName,
			ClientConfig:            WithPath(clientConfig, MutatePath),
			Rules:                   []admissionregistrationv1.RuleWithOperations{rule([]admissionregistrationv1.OperationType{admissionregistrationv1.Create}, "", "pods", namespaced)},
			FailurePolicy:           &failurePolicy,
			MatchPolicy:             &equivalent,
			NamespaceSelector:       excludeNamespaces(namespace),
			ObjectSelector:          optOut(),
			SideEffects:             &none,
			TimeoutSeconds:          &timeoutSeconds,
			AdmissionReviewVersions: versions,
			ReinvocationPolicy:      &ifNeeded,
		}},
	}
	createUpdate := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	val := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         RulesWebhookName,
			ClientConfig: WithPath(clientConfig, ValidatePath),
			Rules: []admissionregistrationv1.RuleWithOperations{
				rule([]admissionregistrationv1.OperationType{admissionregistrationv1.Create}, "", "pods", namespaced),
				rule(createUpdate, "", "replicationcontrollers", namespaced),
				rule(createUpdate, "apps", "deployments", namespaced, "replicasets", "statefulsets", "daemonsets"),
				rule(createUpdate, "batch", "jobs", namespaced, "cronjobs"),
			},
			FailurePolicy:           &failurePolicy,
			MatchPolicy:             &equivalent,
			NamespaceSelector:       excludeNamespaces(namespace),
			ObjectSelector:          optOut(),
			SideEffects:             &none,
			TimeoutSeconds:          &timeoutSeconds,
			AdmissionReviewVersions: versions,
		}},
	}
	return mut, val
}

func rule(ops []admissionregistrationv1.OperationType, group, resource string, scope admissionregistrationv1.ScopeType, more ...string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule: admissionregistrationv1.Rule{
			APIGroups:   []string{group},
			APIVersions: []string{"v1"},
			Resources:   append([]string{resource}, more...),
			Scope:       &scope,
		},
	}
}

// WithPath adds the endpoint's path to a Service reference or a URL.
func WithPath(cc admissionregistrationv1.WebhookClientConfig, path string) admissionregistrationv1.WebhookClientConfig {
	out := cc
	out.CABundle = append([]byte(nil), cc.CABundle...)
	if cc.Service != nil {
		svc := *cc.Service
		p := path
		svc.Path = &p
		out.Service = &svc
	}
	if cc.URL != nil {
		u := strings.TrimRight(*cc.URL, "/") + path
		out.URL = &u
	}
	return out
}

// excludeNamespaces keeps kube-system and the webhook's own namespace out.
func excludeNamespaces(own string) *metav1.LabelSelector {
	values := []string{metav1.NamespaceSystem}
	if own != "" && own != metav1.NamespaceSystem {
		values = append(values, own)
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: values,
	}}}
}

func optOut() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: OptOutLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"disabled"},
	}}}
}
