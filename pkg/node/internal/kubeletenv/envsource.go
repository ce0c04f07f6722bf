package kubeletenv

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/kubernetes/pkg/api/v1/resource"
	podshelper "k8s.io/kubernetes/pkg/apis/core/pods"
	"k8s.io/kubernetes/pkg/fieldpath"
	"k8s.io/kubernetes/third_party/forked/golang/expansion"
)

// resolver resolves envFrom and valueFrom for one container, caching the
// objects it read as the kubelet does (so one missing configMap is
// reported once).
type resolver struct {
	ctx        context.Context
	objs       Objects
	pod        *corev1.Pod
	container  *corev1.Container
	node       Node
	podIPs     []string
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]*corev1.Secret
}

func (r *resolver) configMap(name string) (*corev1.ConfigMap, error) {
	if cm, ok := r.configMaps[name]; ok {
		return cm, nil
	}
	cm, err := r.objs.ConfigMap(r.ctx, r.pod.Namespace, name)
	if err != nil {
		return nil, notFound(err, "configmap", name)
	}
	r.configMaps[name] = cm
	return cm, nil
}

func (r *resolver) secret(name string) (*corev1.Secret, error) {
	if s, ok := r.secrets[name]; ok {
		return s, nil
	}
	s, err := r.objs.Secret(r.ctx, r.pod.Namespace, name)
	if err != nil {
		return nil, notFound(err, "secret", name)
	}
	r.secrets[name] = s
	return s, nil
}

// addEnvFrom copies every key of the source, prefixed. Since the relaxed
// environment variable validation went GA the kubelet no longer skips
// keys that are not C identifiers: all keys are taken. Keys are taken in
// sorted order (the kubelet ranges over a map).
func (r *resolver) addEnvFrom(tmp *orderedEnv, from corev1.EnvFromSource) error {
	switch {
	case from.ConfigMapRef != nil:
		cm, err := r.configMap(from.ConfigMapRef.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && isTrue(from.ConfigMapRef.Optional) {
				return nil
			}
			return err
		}
		for _, k := range sortedKeys(cm.Data) {
			tmp.set(from.Prefix+k, cm.Data[k])
		}
	case from.SecretRef != nil:
		s, err := r.secret(from.SecretRef.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && isTrue(from.SecretRef.Optional) {
				return nil
			}
			return err
		}
		for _, k := range sortedKeys(s.Data) {
			tmp.set(from.Prefix+k, string(s.Data[k]))
		}
	}
	return nil
}

// value is one env entry's runtime value; ok is false when an optional
// source is missing and the variable is left out.
func (r *resolver) value(ev corev1.EnvVar, mapping func(string) string) (string, bool, error) {
	if ev.Value != "" {
		return expansion.Expand(ev.Value, mapping), true, nil
	}
	src := ev.ValueFrom
	if src == nil {
		return "", true, nil
	}
	switch {
	case src.FieldRef != nil:
		v, err := r.fieldRef(src.FieldRef)
		return v, err == nil, err
	case src.ResourceFieldRef != nil:
		v, err := r.resourceFieldRef(src.ResourceFieldRef)
		return v, err == nil, err
	case src.ConfigMapKeyRef != nil:
		return r.configMapKey(src.ConfigMapKeyRef)
	case src.SecretKeyRef != nil:
		return r.secretKey(src.SecretKeyRef)
	case src.FileKeyRef != nil:
		return r.fileKey(src.FileKeyRef)
	}
	return "", true, nil
}

func (r *resolver) configMapKey(ref *corev1.ConfigMapKeySelector) (string, bool, error) {
	optional := isTrue(ref.Optional)
	cm, err := r.configMap(ref.Name)
	if err != nil {
		if apierrors.IsNotFound(err) && optional {
			return "", false, nil
		}
		return "", false, err
	}
	v, ok := cm.Data[ref.Key]
	if !ok {
		if optional {
			return "", false, nil
		}
		return "", false, fmt.Errorf("couldn't find key %v in ConfigMap %v/%v", ref.Key, r.pod.Namespace, ref.Name)
	}
	return v, true, nil
}

func (r *resolver) secretKey(ref *corev1.SecretKeySelector) (string, bool, error) {
	optional := isTrue(ref.Optional)
	s, err := r.secret(ref.Name)
	if err != nil {
		if apierrors.IsNotFound(err) && optional {
			return "", false, nil
		}
		return "", false, err
	}
	v, ok := s.Data[ref.Key]
	if !ok {
		if optional {
			return "", false, nil
		}
		return "", false, fmt.Errorf("couldn't find key %v in Secret %v/%v", ref.Key, r.pod.Namespace, ref.Name)
	}
	return string(v), true, nil
}

// fieldRef is podFieldSelectorRuntimeValue (kubelet_pods.go): the status
// fields come from the kubelet's own knowledge, the rest from the pod.
// podIPs and node.HostIPs are taken in the order given (the kubelet sorts
// them by the node's IP family preference).
func (r *resolver) fieldRef(fs *corev1.ObjectFieldSelector) (string, error) {
	version := fs.APIVersion
	if version == "" {
		version = "v1"
	}
	path, _, err := podshelper.ConvertDownwardAPIFieldLabel(version, fs.FieldPath, "")
	if err != nil {
		return "", err
	}
	switch path {
	case "spec.nodeName":
		return r.pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return r.pod.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.hostIPs":
		if len(r.node.HostIPs) == 0 {
			return "", fmt.Errorf("can't get ip address of node %s. error: no host IPs", r.node.Name)
		}
		if path == "status.hostIP" {
			return r.node.HostIPs[0], nil
		}
		return strings.Join(r.node.HostIPs, ","), nil
	case "status.podIP":
		if len(r.podIPs) > 0 {
			return r.podIPs[0], nil
		}
		return "", nil
	case "status.podIPs":
		return strings.Join(r.podIPs, ","), nil
	}
	return fieldpath.ExtractFieldPathAsString(r.pod, path)
}

// resourceFieldRef is containerResourceRuntimeValue after
// defaultPodLimitsForDownwardAPI (pkg/kubelet/kubelet_resources.go):
// unset limits read as the node's allocatable, or the pod-level limits
// when the pod sets them.
func (r *resolver) resourceFieldRef(fs *corev1.ResourceFieldSelector) (string, error) {
	alloc := downwardAllocatable(r.pod, r.node.Allocatable)
	if fs.ContainerName == "" {
		c := r.container.DeepCopy()
		resource.MergeContainerResourceLimits(c, alloc)
		return resource.ExtractContainerResourceValue(fs, c)
	}
	return resource.ExtractResourceValueByContainerNameAndNodeAllocatable(fs, r.pod, fs.ContainerName, alloc)
}

// downwardAllocatable is the allocatable that stands in for unset limits:
// pod-level limits (PodLevelResources, on by default in 1.36) replace the
// node's values for cpu, memory and ephemeral-storage.
func downwardAllocatable(pod *corev1.Pod, nodeAlloc corev1.ResourceList) corev1.ResourceList {
	if !resourcehelper.IsPodLevelLimitsSet(pod) {
		return nodeAlloc
	}
	alloc := nodeAlloc.DeepCopy()
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if !resourcehelper.IsSupportedPodLevelResource(name) {
			continue
		}
		if v, ok := pod.Spec.Resources.Limits[name]; ok && !v.IsZero() {
			if _, ok := alloc[name]; ok {
				alloc[name] = v.DeepCopy()
			}
		}
	}
	return alloc
}

func isTrue(b *bool) bool { return b != nil && *b }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
