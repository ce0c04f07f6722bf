package kubeletenv

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// fakeObjects is an in-memory Objects.
type fakeObjects struct {
	configMaps map[string]*corev1.ConfigMap // "ns/name"
	secrets    map[string]*corev1.Secret
	services   []*corev1.Service
	token      string
	tokenReqs  []*authenticationv1.TokenRequest
	files      map[string]string // "volume/path"
}

func (f *fakeObjects) ConfigMap(_ context.Context, ns, name string) (*corev1.ConfigMap, error) {
	if cm, ok := f.configMaps[ns+"/"+name]; ok {
		return cm, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
}

func (f *fakeObjects) Secret(_ context.Context, ns, name string) (*corev1.Secret, error) {
	if s, ok := f.secrets[ns+"/"+name]; ok {
		return s, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
}

func (f *fakeObjects) Services(_ context.Context, ns string) ([]*corev1.Service, error) {
	var out []*corev1.Service
	for _, s := range f.services {
		if s.Namespace == ns {
			out = append(out, s)
		}
	}
	return out, nil
}

func (f *fakeObjects) ServiceAccountToken(_ context.Context, ns, sa string, req *authenticationv1.TokenRequest) (string, error) {
	f.tokenReqs = append(f.tokenReqs, req)
	return f.token, nil
}

func (f *fakeObjects) ReadVolumeFile(_ context.Context, vol, path string) ([]byte, error) {
	if s, ok := f.files[vol+"/"+path]; ok {
		return []byte(s), nil
	}
	return nil, fmt.Errorf("no such file")
}

func configMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
}

func secretObj(ns, name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func service(ns, name, ip string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: ports}}
}

func tcpPort(name string, port int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: port, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(port)}
}

func ptr[T any](v T) *T { return &v }
