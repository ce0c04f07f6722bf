package gmsa

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	rbacvalidation "k8s.io/kubernetes/pkg/registry/rbac/validation"
	rbacauthorizer "k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac"
)

// StaticCredSpecs answers the webhook's two questions from objects in
// hand (a manifest's, or the lists doctor read) instead of asking an API
// server: the GMSACredentialSpecs by name, and `use` through kube-apiserver's
// own RBAC authorizer evaluated over the Roles, ClusterRoles and their
// bindings. It is what lint and doctor give Review, so their verdicts are
// the webhook's, in its words.
type StaticCredSpecs struct {
	specs map[string]*unstructured.Unstructured
	authz authorizer.Authorizer
}

// RBAC is the objects StaticCredSpecs evaluates `use` over.
type RBAC struct {
	Roles               []*rbacv1.Role
	RoleBindings        []*rbacv1.RoleBinding
	ClusterRoles        []*rbacv1.ClusterRole
	ClusterRoleBindings []*rbacv1.ClusterRoleBinding
}

// NewStaticCredSpecs answers from specs (GMSACredentialSpec objects) and rbac.
func NewStaticCredSpecs(specs []*unstructured.Unstructured, rbac RBAC) *StaticCredSpecs {
	s := &StaticCredSpecs{specs: map[string]*unstructured.Unstructured{}}
	for _, o := range specs {
		s.specs[o.GetName()] = o
	}
	_, roles := rbacvalidation.NewTestRuleResolver(rbac.Roles, rbac.RoleBindings, rbac.ClusterRoles, rbac.ClusterRoleBindings)
	s.authz = rbacauthorizer.New(roles, roles, roles, roles)
	return s
}

// Has reports whether the named spec is among the objects.
func (s *StaticCredSpecs) Has(name string) bool { return s.specs[name] != nil }

// IsAuthorizedToUseCredSpec asks RBAC what the LocalSubjectAccessReview
// of KubeCredSpecs asks the API server: may the service account `use`
// the spec, in the pod's namespace.
func (s *StaticCredSpecs) IsAuthorizedToUseCredSpec(ctx context.Context, serviceAccountName, namespace, credSpecName string) (bool, string) {
	attrs := authorizer.AttributesRecord{
		User:      serviceaccount.UserInfo(namespace, serviceAccountName, ""),
		Verb:      UseVerb,
		Namespace: namespace, APIGroup: Group, APIVersion: Version, Resource: Resource, Name: credSpecName,
		ResourceRequest: true,
	}
	decision, _, err := s.authz.Authorize(ctx, attrs)
	if err != nil {
		return false, fmt.Sprintf("error when checking authz access: %v", err)
	}
	// A denial's reason is empty, as the API server's answer to the review.
	return decision == authorizer.DecisionAllow, ""
}

// RetrieveCredSpecContents is the spec's `credspec` as JSON, with the
// words and codes of KubeCredSpecs.
func (s *StaticCredSpecs) RetrieveCredSpecContents(_ context.Context, credSpecName string) (string, int, error) {
	spec := s.specs[credSpecName]
	if spec == nil {
		return "", http.StatusNotFound, fmt.Errorf("cred spec %s does not exist", credSpecName)
	}
	return specContents(credSpecName, spec.Object)
}

// specContents is a spec object's `credspec` marshalled to JSON as
// upstream does (encoding/json: keys sorted), or upstream's refusal.
func specContents(credSpecName string, obj map[string]any) (string, int, error) {
	contents, present := obj[ContentsField]
	if str, isString := contents.(string); !present || (isString && str == "") {
		return "", http.StatusExpectationFailed, fmt.Errorf("cred spec %s does not have a %s key", credSpecName, ContentsField)
	}
	data, err := json.Marshal(contents)
	if err != nil {
		return "", http.StatusInternalServerError, fmt.Errorf("unable to marshall cred spec %s into a JSON: %v", credSpecName, err)
	}
	return string(data), http.StatusOK, nil
}
