package install

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/webhook"
)

// labelPool is the label winkube's emulated nodes carry (pkg/node's
// LabelPool); a real kubelet never sets it.
const labelPool = "winkube.io/pool"

// Emulated reports whether the cluster's nodes are emulated by `winkube
// up`. A cluster whose nodes cannot be listed counts as not emulated:
// Install needs more than that permission and says so itself.
func (c *Client) Emulated(ctx context.Context) bool {
	list, err := c.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: labelPool, Limit: 1})
	return err == nil && len(list.Items) > 0
}

// EmulatedWarning is what to tell the user who installs o on an emulated
// cluster: its nodes run winkube itself only for winkube's own image, so
// the pods of any other image start but serve nothing, and every
// admission call fails. Empty when nothing will go wrong.
func EmulatedWarning(o Options) string {
	o = o.withDefaults()
	if o.URL != "" || imageinfo.Repository(o.Image) == webhook.ImageRepository {
		return ""
	}
	what := "admission fails open: pods are admitted without placement or checks"
	if o.FailurePolicy == admissionregistrationv1.Fail {
		what = fmt.Sprintf("every pod create, and every workload create or update, outside kube-system and %s is refused", o.Namespace)
	}
	return fmt.Sprintf("warning: this cluster's nodes are emulated by `winkube up`, which serves the webhook only from winkube's own image (%s); "+
		"the pods of --image %s will run but cannot serve, so kube-apiserver's calls to the webhook fail and, with failurePolicy %s, %s",
		webhook.ImageRepository, o.Image, o.FailurePolicy, what)
}
