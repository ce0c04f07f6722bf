package registry

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// SecretsFor collects the pull secret payloads for pod's images, in the
// order the kubelet tries them: the pod's imagePullSecrets, then those of
// its service account ("default" when the pod names none) that the pod
// does not list already. Only Secrets of type kubernetes.io/dockerconfigjson
// and kubernetes.io/dockercfg count. A Secret or service account that does
// not exist is skipped, as the kubelet skips it; other read errors (such as
// forbidden) are returned joined, together with the payloads that could be
// read, so a caller may still go on with them.
func SecretsFor(ctx context.Context, client kubernetes.Interface, pod *corev1.Pod) ([][]byte, error) {
	ns := pod.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	names := refNames(pod.Spec.ImagePullSecrets)
	var errs []error
	saName := pod.Spec.ServiceAccountName
	if saName == "" {
		saName = "default"
	}
	sa, err := client.CoreV1().ServiceAccounts(ns).Get(ctx, saName, metav1.GetOptions{})
	switch {
	case err == nil:
		names = appendNew(names, refNames(sa.ImagePullSecrets))
	case !apierrors.IsNotFound(err):
		errs = append(errs, fmt.Errorf("reading service account %s/%s: %w", ns, saName, err))
	}
	var out [][]byte
	for _, n := range names {
		s, err := client.CoreV1().Secrets(ns).Get(ctx, n, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("reading pull secret %s/%s: %w", ns, n, err))
			continue
		}
		if payload := pullPayload(s); payload != nil {
			out = append(out, payload)
		}
	}
	return out, errors.Join(errs...)
}

// pullPayload is the docker config a pull Secret carries, nil for other
// Secret types.
func pullPayload(s *corev1.Secret) []byte {
	switch s.Type {
	case corev1.SecretTypeDockerConfigJson:
		return s.Data[corev1.DockerConfigJsonKey]
	case corev1.SecretTypeDockercfg:
		return s.Data[corev1.DockerConfigKey]
	}
	return nil
}

func refNames(refs []corev1.LocalObjectReference) []string {
	var out []string
	for _, r := range refs {
		if r.Name != "" {
			out = append(out, r.Name)
		}
	}
	return out
}

// appendNew appends the names not in list yet.
func appendNew(list, more []string) []string {
	seen := map[string]bool{}
	for _, n := range list {
		seen[n] = true
	}
	for _, n := range more {
		if !seen[n] {
			seen[n] = true
			list = append(list, n)
		}
	}
	return list
}
