package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/manifest"
)

// servedAPI is the lifecycle of one API version of one kind, as upstream
// records it (the prerelease-lifecycle tags of k8s.io/api, which the API
// server's deprecation warnings are built from, and the deprecated API
// migration guide for versions k8s.io/api no longer carries).
type servedAPI struct {
	deprecated int    // minor version that deprecated it; 0 when never warned
	removed    int    // first minor version that does not serve it
	use        string // apiVersion of the replacement; "" when there is none
	note       string // what else changes in the replacement, for the fix
}

const ingressNote = "each backend becomes service.name and service.port.number (serviceName and servicePort are gone) and each path needs a pathType"

// removedAPIs maps "apiVersion kind" to its lifecycle. Only versions that
// were served by default and are gone by kubeversion.DefaultMinor are listed.
var removedAPIs = map[string]servedAPI{
	"extensions/v1beta1 Deployment":        {8, 16, "apps/v1", ""},
	"extensions/v1beta1 DaemonSet":         {8, 16, "apps/v1", "spec.updateStrategy defaults to RollingUpdate (it was OnDelete)"},
	"extensions/v1beta1 ReplicaSet":        {8, 16, "apps/v1", ""},
	"extensions/v1beta1 NetworkPolicy":     {9, 16, "networking.k8s.io/v1", ""},
	"extensions/v1beta1 PodSecurityPolicy": {0, 16, "policy/v1beta1", ""},
	"extensions/v1beta1 Ingress":           {14, 22, "networking.k8s.io/v1", ingressNote},
	"apps/v1beta1 Deployment":              {8, 16, "apps/v1", ""},
	"apps/v1beta1 StatefulSet":             {8, 16, "apps/v1", ""},
	"apps/v1beta1 ControllerRevision":      {8, 16, "apps/v1", ""},
	"apps/v1beta2 Deployment":              {9, 16, "apps/v1", ""},
	"apps/v1beta2 DaemonSet":               {9, 16, "apps/v1", ""},
	"apps/v1beta2 ReplicaSet":              {9, 16, "apps/v1", ""},
	"apps/v1beta2 StatefulSet":             {9, 16, "apps/v1", ""},
	"apps/v1beta2 ControllerRevision":      {9, 16, "apps/v1", ""},

	"networking.k8s.io/v1beta1 Ingress":                                   {19, 22, "networking.k8s.io/v1", ingressNote},
	"networking.k8s.io/v1beta1 IngressClass":                              {19, 22, "networking.k8s.io/v1", ""},
	"apiextensions.k8s.io/v1beta1 CustomResourceDefinition":               {16, 22, "apiextensions.k8s.io/v1", "each version needs a structural schema under spec.versions[*].schema.openAPIV3Schema"},
	"apiregistration.k8s.io/v1beta1 APIService":                           {19, 22, "apiregistration.k8s.io/v1", ""},
	"admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration":   {16, 22, "admissionregistration.k8s.io/v1", "webhooks[*].sideEffects and admissionReviewVersions are required"},
	"admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration": {16, 22, "admissionregistration.k8s.io/v1", "webhooks[*].sideEffects and admissionReviewVersions are required"},
	"certificates.k8s.io/v1beta1 CertificateSigningRequest":               {19, 22, "certificates.k8s.io/v1", "spec.signerName is required"},
	"coordination.k8s.io/v1beta1 Lease":                                   {19, 22, "coordination.k8s.io/v1", ""},
	"rbac.authorization.k8s.io/v1beta1 ClusterRole":                       {17, 22, "rbac.authorization.k8s.io/v1", ""},
	"rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding":                {17, 22, "rbac.authorization.k8s.io/v1", ""},
	"rbac.authorization.k8s.io/v1beta1 Role":                              {17, 22, "rbac.authorization.k8s.io/v1", ""},
	"rbac.authorization.k8s.io/v1beta1 RoleBinding":                       {17, 22, "rbac.authorization.k8s.io/v1", ""},
	"scheduling.k8s.io/v1beta1 PriorityClass":                             {14, 22, "scheduling.k8s.io/v1", ""},
	"storage.k8s.io/v1beta1 CSIDriver":                                    {19, 22, "storage.k8s.io/v1", ""},
	"storage.k8s.io/v1beta1 CSINode":                                      {17, 22, "storage.k8s.io/v1", ""},
	"storage.k8s.io/v1beta1 StorageClass":                                 {19, 22, "storage.k8s.io/v1", ""},
	"storage.k8s.io/v1beta1 VolumeAttachment":                             {19, 22, "storage.k8s.io/v1", ""},

	"batch/v1beta1 CronJob":                       {21, 25, "batch/v1", ""},
	"discovery.k8s.io/v1beta1 EndpointSlice":      {21, 25, "discovery.k8s.io/v1", ""},
	"events.k8s.io/v1beta1 Event":                 {22, 25, "events.k8s.io/v1", ""},
	"autoscaling/v2beta1 HorizontalPodAutoscaler": {22, 25, "autoscaling/v2", ""},
	"node.k8s.io/v1beta1 RuntimeClass":            {22, 25, "node.k8s.io/v1", ""},
	"policy/v1beta1 PodDisruptionBudget":          {21, 25, "policy/v1", "an empty spec.selector selects every pod of the namespace"},
	"policy/v1beta1 PodSecurityPolicy":            {21, 25, "", ""},

	"autoscaling/v2beta2 HorizontalPodAutoscaler":                     {23, 26, "autoscaling/v2", ""},
	"flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema":                 {23, 26, "flowcontrol.apiserver.k8s.io/v1beta3", ""},
	"flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration": {23, 26, "flowcontrol.apiserver.k8s.io/v1beta3", ""},
	"storage.k8s.io/v1beta1 CSIStorageCapacity":                       {24, 27, "storage.k8s.io/v1", ""},
	"flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema":                 {26, 29, "flowcontrol.apiserver.k8s.io/v1beta3", ""},
	"flowcontrol.apiserver.k8s.io/v1beta2 PriorityLevelConfiguration": {26, 29, "flowcontrol.apiserver.k8s.io/v1beta3", ""},
	"flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema":                 {29, 32, "flowcontrol.apiserver.k8s.io/v1", ""},
	"flowcontrol.apiserver.k8s.io/v1beta3 PriorityLevelConfiguration": {29, 32, "flowcontrol.apiserver.k8s.io/v1", ""},
}

// checkRemovedAPI reports an apiVersion the target cluster does not serve
// (API-9): kubectl finds no resource for it and nothing is created. The
// object is still checked against the other rules, decoded as its current
// version. A version that is only deprecated at the target gets the API
// server's own deprecation warning.
func (r *run) checkRemovedAPI(src *manifest.Object) {
	apiVersion, kind := src.Obj.GetAPIVersion(), src.Obj.GetKind()
	api, ok := removedAPIs[apiVersion+" "+kind]
	if !ok {
		return
	}
	minor := r.target.Minor
	use, useNote := replacement(apiVersion, kind, minor)
	switch {
	case minor >= api.removed:
		o := newObject(src)
		r.report(&o, "API-9", "", "apiVersion",
			fmt.Sprintf("%s %s is not served from Kubernetes 1.%d, and the target runs 1.%d: kubectl apply fails with: no matches for kind %q in version %q; ensure CRDs are installed first",
				apiVersion, kind, api.removed, minor, kind, apiVersion),
			removedFix(src, kind, api.removed, use, useNote))
	case api.deprecated > 0 && minor >= api.deprecated:
		o := newObject(src)
		msg := fmt.Sprintf("%s %s is deprecated in v1.%d+, unavailable in v1.%d+", apiVersion, kind, api.deprecated, api.removed)
		if api.use != "" {
			msg += fmt.Sprintf("; use %s %s", api.use, kind)
		}
		r.report(&o, "API-9", "deprecated", "apiVersion", msg,
			fmt.Sprintf("move to the replacement before upgrading to 1.%d: %s", api.removed, removedFix(src, kind, api.removed, use, useNote)))
	}
}

// replacement follows the chain of replacements to the first apiVersion
// the target still serves (flowcontrol v1beta1 → v1beta3 → v1), with the
// note of the step that leads there; "" when the kind has no successor.
func replacement(apiVersion, kind string, minor int) (string, string) {
	api := removedAPIs[apiVersion+" "+kind]
	for hops := 0; api.use != "" && hops < 5; hops++ {
		next, ok := removedAPIs[api.use+" "+kind]
		if !ok || minor < next.removed {
			return api.use, api.note
		}
		api = next
	}
	return "", ""
}

// removedFix says what to write instead.
func removedFix(src *manifest.Object, kind string, removed int, use, note string) string {
	if use == "" {
		if kind == "PodSecurityPolicy" {
			return "delete the PodSecurityPolicy: its API was removed in 1.25 without a successor; label the namespaces for Pod Security admission instead (pod-security.kubernetes.io/enforce)"
		}
		return fmt.Sprintf("%s has no successor API after 1.%d; delete the object", kind, removed)
	}
	var notes []string
	if use == "apps/v1" && kind != "ControllerRevision" {
		if sel := selectorNote(src); sel != "" {
			notes = append(notes, sel)
		}
	}
	if note != "" {
		notes = append(notes, note)
	}
	fix := "set apiVersion: " + use
	if len(notes) > 0 {
		fix += "; in " + use + " " + strings.Join(notes, ", and ")
	}
	return fix
}

// selectorNote is the apps/v1 change that breaks old workloads: the older
// versions defaulted spec.selector from the template's labels, apps/v1
// requires it. "" when the object has a selector already.
func selectorNote(src *manifest.Object) string {
	const required = "spec.selector is required and must match spec.template.metadata.labels"
	spec, _ := src.Obj.Object["spec"].(map[string]any)
	if _, found := spec["selector"]; found {
		return ""
	}
	labels := templateLabels(spec)
	if labels == "" {
		return required
	}
	return required + ": add spec.selector.matchLabels {" + labels + "}"
}

// templateLabels renders spec.template.metadata.labels as "k: v, k: v".
func templateLabels(spec map[string]any) string {
	tmpl, _ := spec["template"].(map[string]any)
	meta, _ := tmpl["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	parts := make([]string, 0, len(labels))
	for k, v := range labels {
		parts = append(parts, fmt.Sprintf("%s: %v", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
