package node

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/node/internal/cri"
)

// resolveImage is what the node's runtime would find for ref: the
// catalog's answer, or with Options.Images the registry's, read with the
// pod's pull secrets as the kubelet passes them. A registry that answers
// "not found" or 401 makes the pull fail as it would on a real node; one
// that does not answer at all leaves the catalog's answer, so an offline
// machine behaves as without a registry.
func (a *Agent) resolveImage(ctx context.Context, pod *corev1.Pod, ref string) imageinfo.Answer {
	if a.images == nil {
		return imageinfo.CatalogAnswer(ref)
	}
	// Missing secrets are skipped, as the kubelet does; a Forbidden read
	// (a node without RBAC for secrets) leaves the ones that were read.
	secrets, _ := registry.SecretsFor(ctx, a.client, pod)
	ans := a.images.Resolve(ctx, imageinfo.Request{Ref: ref, PullSecrets: secrets})
	if m := registry.Missing(ans.Err); m != nil {
		ans.Image.Missing = m
	}
	return ans
}

// Values of Options.UnknownImages.
const (
	// UnknownImagesUnverified pulls an image nobody can answer for as
	// made for the node, with a Warning event (the default).
	UnknownImagesUnverified = "unverified"
	// UnknownImagesStrict fails such a pull, as a node whose runtime
	// cannot reach the image's registry fails it.
	UnknownImagesStrict = "strict"
)

// pullImage pulls ref with the node's runtime. An image that neither the
// catalog nor a registry can answer for has unknown platforms; winkube
// does not guess them: by default the pull goes through "unverified" and
// unverified says why, for the Warning event; with Options.UnknownImages
// strict it fails as a pull from a registry that cannot be reached.
func (w *podWorker) pullImage(ctx context.Context, pod *corev1.Pod, ref string) (pulled cri.Pulled, unverified string, err error) {
	rt := w.node.spec.host.Runtime()
	ans := w.node.agent.resolveImage(ctx, pod, ref)
	if ans.Source != imageinfo.SourceUnknown || ans.Image.Missing != nil {
		pulled, err = rt.PullImage(ans.Image)
		return pulled, "", err
	}
	why := "winkube's catalog does not know it and no registry was asked (--resolve-images registry)"
	if ans.Err != nil {
		why = "its registry did not answer: " + ans.Err.Error()
	}
	if w.node.agent.unknownImages == UnknownImagesStrict {
		return cri.Pulled{}, "", &cri.PullError{Message: cri.UnresolvedMessage(ans.Image, why)}
	}
	return rt.PullUnverified(ans.Image), why, nil
}
