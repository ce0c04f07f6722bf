package node

import (
	"context"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// apiObjects reads what a container's environment and volumes are made
// of, as the kubelet's ConfigMap, Secret and token managers do: straight
// from the API at container start (the kubelet's watch-based managers
// read the same objects).
type apiObjects struct{ a *Agent }

func (a *Agent) objects() apiObjects { return apiObjects{a} }

func (o apiObjects) ConfigMap(ctx context.Context, ns, name string) (*corev1.ConfigMap, error) {
	return o.a.client.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
}

func (o apiObjects) Secret(ctx context.Context, ns, name string) (*corev1.Secret, error) {
	return o.a.client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
}

// Services come from the agent's informer, as the kubelet's service
// lister: no request per container.
func (o apiObjects) Services(_ context.Context, ns string) ([]*corev1.Service, error) {
	return o.a.serviceLister.Services(ns).List(labels.Everything())
}

func (o apiObjects) ServiceAccountToken(ctx context.Context, ns, sa string, req *authenticationv1.TokenRequest) (string, error) {
	tr, err := o.a.client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, req, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return tr.Status.Token, nil
}
