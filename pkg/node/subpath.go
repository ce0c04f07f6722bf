package node

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	podshelper "k8s.io/kubernetes/pkg/apis/core/pods"
	"k8s.io/kubernetes/pkg/fieldpath"
	"k8s.io/kubernetes/third_party/forked/golang/expansion"

	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
)

// unresolved stands in for an environment variable whose value comes from
// a source this check does not read (configMaps, secrets, resource
// fields, envFrom): a plain relative name, so that it can never be the
// cause of a reported error.
const unresolved = "unresolved"

// subPathError is the error the kubelet's makeMounts gives the container's
// volume mounts, nil when they are fine: a subPathExpr naming an empty or
// unset variable ("missing value for X"), a subPath or expanded
// subPathExpr that is absolute for the node's OS ("error SubPath `...`
// must not be an absolute path") or steps out with ".." ("unable to
// provision SubPath `...`: must not contain '..'"). The kubelet reports it
// as CreateContainerConfigError and retries at each sync, so a pod whose
// annotations are fixed later starts (expansion.go e2e tests).
//
// subPathExpr expands against the container's env: literal values (with
// $(VAR) references to earlier entries) and downward-API fieldRefs of the
// pod's metadata and spec.
func subPathError(pod *corev1.Pod, c *corev1.Container, windows bool) error {
	if !hasSubPath(c) {
		return nil
	}
	_, err := kubeletenv.Mounts(pod, c, subPathEnv(pod, c), windows)
	return err
}

func hasSubPath(c *corev1.Container) bool {
	for _, m := range c.VolumeMounts {
		if m.SubPath != "" || m.SubPathExpr != "" {
			return true
		}
	}
	return false
}

// subPathEnv is the container's env as NAME=value, in declaration order.
func subPathEnv(pod *corev1.Pod, c *corev1.Container) []string {
	vals := map[string]string{}
	var order []string
	set := func(name, v string) {
		if _, ok := vals[name]; !ok {
			order = append(order, name)
		}
		vals[name] = v
	}
	if len(c.EnvFrom) > 0 {
		// Names from envFrom are unknown here: any $(VAR) not declared in
		// env may come from them.
		for _, m := range c.VolumeMounts {
			for _, name := range referenced(m.SubPathExpr) {
				set(name, unresolved)
			}
		}
	}
	for _, ev := range c.Env {
		set(ev.Name, envValue(pod, ev, expansion.MappingFuncFor(vals)))
	}
	out := make([]string, 0, len(order))
	for _, name := range order {
		out = append(out, name+"="+vals[name])
	}
	return out
}

// envValue is one env entry's value as far as this check knows it.
func envValue(pod *corev1.Pod, ev corev1.EnvVar, mapping func(string) string) string {
	switch {
	case ev.Value != "":
		return expansion.Expand(ev.Value, mapping)
	case ev.ValueFrom == nil:
		return ""
	case ev.ValueFrom.FieldRef != nil:
		return fieldRefValue(pod, ev.ValueFrom.FieldRef)
	}
	return unresolved
}

// fieldRefValue resolves the metadata and spec fields the kubelet reads
// from the pod; status fields (IPs) are never a path's cause of failure
// here and read as unresolved.
func fieldRefValue(pod *corev1.Pod, fs *corev1.ObjectFieldSelector) string {
	version := fs.APIVersion
	if version == "" {
		version = "v1"
	}
	path, _, err := podshelper.ConvertDownwardAPIFieldLabel(version, fs.FieldPath, "")
	if err != nil || strings.HasPrefix(path, "status.") {
		return unresolved
	}
	switch path {
	case "spec.nodeName":
		return pod.Spec.NodeName
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName
	}
	v, err := fieldpath.ExtractFieldPathAsString(pod, path)
	if err != nil {
		return unresolved
	}
	return v
}

// referenced lists the $(VAR) names of a subPathExpr.
func referenced(expr string) []string {
	var names []string
	expansion.Expand(expr, func(name string) string {
		names = append(names, name)
		return ""
	})
	return names
}
