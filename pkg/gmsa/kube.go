package gmsa

import (
	"context"
	"fmt"
	"net/http"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// KubeCredSpecs answers the webhook from a cluster: a
// LocalSubjectAccessReview for `use`, a get of the GMSACredentialSpec.
// It needs create on localsubjectaccessreviews and get on
// gmsacredentialspecs (upstream's ClusterRole).
type KubeCredSpecs struct {
	Core    kubernetes.Interface
	Dynamic dynamic.Interface
}

// IsAuthorizedToUseCredSpec asks the API server whether the service
// account may `use` the spec, as upstream does: a LocalSubjectAccessReview
// in the pod's namespace for the service account's user and groups.
func (k *KubeCredSpecs) IsAuthorizedToUseCredSpec(ctx context.Context, serviceAccountName, namespace, credSpecName string) (bool, string) {
	user := serviceaccount.UserInfo(namespace, serviceAccountName, "")
	extra := map[string]authorizationv1.ExtraValue{}
	for key, v := range user.GetExtra() {
		extra[key] = v
	}
	review := &authorizationv1.LocalSubjectAccessReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace},
		Spec: authorizationv1.SubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: namespace,
				Verb:      UseVerb,
				Group:     Group,
				Version:   Version,
				Resource:  Resource,
				Name:      credSpecName,
			},
			User:   user.GetName(),
			Groups: user.GetGroups(),
			UID:    user.GetUID(),
			Extra:  extra,
		},
	}
	resp, err := k.Core.AuthorizationV1().LocalSubjectAccessReviews(namespace).Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Sprintf("error when checking authz access: %v", err.Error())
	}
	return resp.Status.Allowed && !resp.Status.Denied, resp.Status.Reason
}

// RetrieveCredSpecContents is the named spec's `credspec`, marshalled to
// JSON as upstream does (encoding/json: keys sorted).
func (k *KubeCredSpecs) RetrieveCredSpecContents(ctx context.Context, credSpecName string) (string, int, error) {
	spec, err := k.Dynamic.Resource(GVR).Get(ctx, credSpecName, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return "", http.StatusNotFound, fmt.Errorf("cred spec %s does not exist", credSpecName)
		}
		return "", http.StatusInternalServerError, fmt.Errorf("unable to retrieve the contents of cred spec %s: %v", credSpecName, err)
	}
	return specContents(credSpecName, spec.Object)
}
