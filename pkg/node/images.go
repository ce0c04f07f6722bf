package node

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
)

// resolveImage is what the node's runtime would find for ref: the
// catalog's answer, or with Options.Images the registry's, read with the
// pod's pull secrets as the kubelet passes them. A registry that answers
// "not found" or 401 makes the pull fail as it would on a real node; one
// that does not answer at all leaves the catalog's answer, so an offline
// machine behaves as without a registry.
func (a *Agent) resolveImage(ctx context.Context, pod *corev1.Pod, ref string) imageinfo.Image {
	if a.images == nil {
		return imageinfo.Lookup(ref)
	}
	// Missing secrets are skipped, as the kubelet does; a Forbidden read
	// (a node without RBAC for secrets) leaves the ones that were read.
	secrets, _ := registry.SecretsFor(ctx, a.client, pod)
	ans := a.images.Resolve(ctx, imageinfo.Request{Ref: ref, PullSecrets: secrets})
	img := ans.Image
	if m := registry.Missing(ans.Err); m != nil {
		img.Missing = m
	}
	return img
}
