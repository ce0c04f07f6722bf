package cluster

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node"
)

// Join checks its options before anything starts, naming what is missing
// or wrong.
func TestJoinValidates(t *testing.T) {
	full := JoinOptions{Config: &rest.Config{Host: "https://127.0.0.1:1"}, Cluster: v1alpha1.DefaultCluster(),
		Kubelet: &node.KubeletServing{}, UnknownImages: node.UnknownImagesUnverified}
	for _, tc := range []struct {
		change func(*JoinOptions)
		want   string
	}{
		{func(o *JoinOptions) { o.Config = nil }, "Config"},
		{func(o *JoinOptions) { o.Cluster = nil }, "Cluster"},
		{func(o *JoinOptions) { o.Kubelet = nil }, "Kubelet"},
		{func(o *JoinOptions) { o.UnknownImages = "maybe" }, "maybe"},
	} {
		o := full
		tc.change(&o)
		if _, err := Join(context.Background(), o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error naming %s, got %v", tc.want, err)
		}
	}
	if err := full.Validate(); err != nil {
		t.Errorf("complete options: %v", err)
	}
}
