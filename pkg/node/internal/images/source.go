package images

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"golang.org/x/sync/singleflight"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
)

// Source answers what a node's runtime would find for an image, for every
// node of an agent: the catalog's answer, or with Resolver the registry's,
// read with the pod's pull secrets as the kubelet passes them.
type Source struct {
	// Resolver reads registries; nil: the catalog only.
	Resolver imageinfo.Resolver
	// Client reads the pods' pull secrets and service accounts.
	Client kubernetes.Interface

	// reads collapses concurrent reads of the same pull secrets: a
	// Deployment's pods start together and read the same service account.
	reads singleflight.Group
}

// Resolve is what the node's runtime would find for ref. A registry that
// answers "not found" or 401 makes the pull fail as it would on a real
// node; one that does not answer at all leaves the catalog's answer, so an
// offline machine behaves as without a registry.
func (s *Source) Resolve(ctx context.Context, pod *corev1.Pod, ref string) imageinfo.Answer {
	if s.Resolver == nil {
		return imageinfo.CatalogAnswer(ref)
	}
	ans := s.Resolver.Resolve(ctx, imageinfo.Request{Ref: ref, PullSecrets: s.pullSecrets(ctx, pod)})
	if m := registry.Missing(ans.Err); m != nil {
		ans.Image.Missing = m
	}
	return ans
}

// pullSecrets are the payloads of pod's pull secrets (registry.SecretsFor).
// Missing secrets are skipped, as the kubelet does; a Forbidden read (a
// node without RBAC for secrets) leaves the ones that were read. Pods
// that ask while the same reads are under way share their answer, at
// most one round trip older than reads of their own.
func (s *Source) pullSecrets(ctx context.Context, pod *corev1.Pod) [][]byte {
	key := pod.Namespace + "\x00" + pod.Spec.ServiceAccountName
	for _, sec := range pod.Spec.ImagePullSecrets {
		key += "\x00" + sec.Name
	}
	v, _, _ := s.reads.Do(key, func() (any, error) {
		secrets, _ := registry.SecretsFor(ctx, s.Client, pod)
		return secrets, nil
	})
	secrets, _ := v.([][]byte)
	return secrets
}
