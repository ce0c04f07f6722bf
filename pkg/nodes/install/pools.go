package install

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// LoadPools reads the nodePools of a cluster config file, checked as
// `winkube nodes` checks the whole file, but as written: the agent applies
// the defaults itself, for the cluster it joins. An empty path gives nil
// (the chart's pools).
func LoadPools(path string) ([]v1alpha1.NodePool, error) {
	if path == "" {
		return nil, nil
	}
	if _, err := v1alpha1.Load(path); err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	var file struct {
		NodePools []v1alpha1.NodePool `json:"nodePools"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("--config %s: %w", path, err)
	}
	if len(file.NodePools) == 0 {
		// Load accepted it, so the defaults stand in.
		return nil, nil
	}
	return file.NodePools, nil
}
