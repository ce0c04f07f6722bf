package install

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// Names and labels of what Install creates.
const (
	Name             = "winkube-nodes"
	DefaultNamespace = "winkube-system"
	DefaultReplicas  = 1
	// DefaultKubeletPort is the first node's kubelet port in the pod.
	DefaultKubeletPort = 10250
	LabelName          = "app.kubernetes.io/name"
	LabelManagedBy     = "app.kubernetes.io/managed-by"
	LabelInstance      = "app.kubernetes.io/instance"
	// ManagedBy marks what `winkube nodes install` applied; a `helm
	// install` of the chart says Helm instead, and uninstall leaves it to
	// helm.
	ManagedBy = "winkube"
)

// Options say what to install; empty fields take the chart's values.
type Options struct {
	Namespace string // default winkube-system
	// Release names the installation (the objects' name and instance
	// label), as a helm release name does; default winkube-nodes.
	Release string
	// Image is the winkube image, REPOSITORY[:TAG]; default the chart's.
	Image string
	// Pools are the node pools to emulate; nil keeps the chart's default
	// pools.
	Pools      []v1alpha1.NodePool
	Replicas   int32 // default 1
	ApproveCSR bool
	// ExtraArgs are more `winkube nodes` flags for the agent.
	ExtraArgs []string
}

func (o Options) withDefaults() Options {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.Release == "" {
		o.Release = Name
	}
	if o.Replicas == 0 {
		o.Replicas = DefaultReplicas
	}
	return o
}

// Selector selects the objects of the installation called release.
func Selector(release string) map[string]string {
	return map[string]string{LabelName: Name, LabelManagedBy: ManagedBy, LabelInstance: release}
}

// Values are the chart values for o.
func (o Options) Values() (map[string]any, error) {
	o = o.withDefaults()
	v := map[string]any{
		"replicas": int64(o.Replicas),
		"kubelet":  map[string]any{"approveCSR": o.ApproveCSR},
	}
	if o.Image != "" {
		repo, tag, err := splitImage(o.Image)
		if err != nil {
			return nil, err
		}
		v["image"] = map[string]any{"repository": repo, "tag": tag}
	}
	if o.Pools != nil {
		pools, err := toValues(o.Pools)
		if err != nil {
			return nil, fmt.Errorf("node pools: %w", err)
		}
		v["nodePools"] = pools
	}
	if len(o.ExtraArgs) > 0 {
		args := make([]any, len(o.ExtraArgs))
		for i, a := range o.ExtraArgs {
			args[i] = a
		}
		v["extraArgs"] = args
	}
	return v, nil
}

// splitImage splits REPOSITORY[:TAG] as the chart takes it; an image
// without a tag is :latest, as a container runtime reads it.
func splitImage(image string) (repo, tag string, err error) {
	if strings.Contains(image, "@") {
		return "", "", fmt.Errorf("--image %s: give a tag, not a digest (the chart's image is repository:tag)", image)
	}
	i := strings.LastIndex(image, ":")
	if i < 0 || i < strings.LastIndex(image, "/") {
		return image, "latest", nil
	}
	if i == 0 || i == len(image)-1 {
		return "", "", fmt.Errorf("--image %q: want REPOSITORY[:TAG]", image)
	}
	return image[:i], image[i+1:], nil
}

// toValues turns pools into the plain maps helm values are, through their
// JSON form (the form of the config file).
func toValues(pools []v1alpha1.NodePool) ([]any, error) {
	data, err := json.Marshal(pools)
	if err != nil {
		return nil, err
	}
	var out []any
	return out, json.Unmarshal(data, &out)
}
