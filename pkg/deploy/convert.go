package deploy

import "k8s.io/apimachinery/pkg/runtime"

func runtimeFromMap(m map[string]interface{}, into interface{}) error {
	if m == nil {
		return nil
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(m, into)
}
