package podworker

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/node/internal/cri"
)

// pullImage pulls ref with the node's runtime. An image that neither the
// catalog nor a registry can answer for has unknown platforms; winkube
// does not guess them: by default the pull goes through "unverified" and
// unverified says why, for the Warning event; with Options.UnknownImages
// strict it fails as a pull from a registry that cannot be reached.
func (w *Worker) pullImage(ctx context.Context, pod *corev1.Pod, ref string) (pulled cri.Pulled, unverified string, err error) {
	rt := w.node.Host.Runtime()
	ans := w.node.ResolveImage(ctx, pod, ref)
	if ans.Source != imageinfo.SourceUnknown || ans.Image.Missing != nil {
		pulled, err = rt.PullImage(ans.Image)
		return pulled, "", err
	}
	why := "winkube's catalog does not know it and no registry was asked (--resolve-images registry)"
	if ans.Err != nil {
		why = "its registry did not answer: " + ans.Err.Error()
	}
	if w.node.StrictImages {
		return cri.Pulled{}, "", &cri.PullError{Message: cri.UnresolvedMessage(ans.Image, why)}
	}
	return rt.PullUnverified(ans.Image), why, nil
}
