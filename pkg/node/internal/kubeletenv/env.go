package kubeletenv

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	v1helper "k8s.io/kubernetes/pkg/apis/core/v1/helper"
	"k8s.io/kubernetes/pkg/kubelet/envvars"
	"k8s.io/kubernetes/third_party/forked/golang/expansion"
)

// orderedEnv is the kubelet's tmpEnv map with a stable order: a name keeps
// the position it was first set at. The kubelet iterates a Go map, so its
// order is random; first-set order is the readable deterministic choice.
type orderedEnv struct {
	names []string
	vals  map[string]string
}

func newOrderedEnv() *orderedEnv { return &orderedEnv{vals: map[string]string{}} }

func (e *orderedEnv) set(name, val string) {
	if _, ok := e.vals[name]; !ok {
		e.names = append(e.names, name)
	}
	e.vals[name] = val
}

// KubeletEnv is the environment the kubelet puts in the CRI container
// config (makeEnvironmentVariables in pkg/kubelet/kubelet_pods.go), as
// NAME=value: envFrom sources, then env in declaration order, then the
// service link variables no earlier entry defined. It is what $(VAR) in
// command, args and subPathExpr expands against. An error is what the
// kubelet reports as CreateContainerConfigError.
func KubeletEnv(ctx context.Context, objs Objects, pod *corev1.Pod, container *corev1.Container, node Node, podIPs []string) ([]string, error) {
	links := true // the API server defaults enableServiceLinks to true
	if pod.Spec.EnableServiceLinks != nil {
		links = *pod.Spec.EnableServiceLinks
	}
	serviceEnv, serviceOrder, err := serviceEnvVars(ctx, objs, pod.Namespace, links)
	if err != nil {
		return nil, err
	}
	r := &resolver{ctx: ctx, objs: objs, pod: pod, container: container, node: node, podIPs: podIPs,
		configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{}}
	tmp := newOrderedEnv()
	for _, from := range container.EnvFrom {
		if err := r.addEnvFrom(tmp, from); err != nil {
			return nil, err
		}
	}
	mapping := expansion.MappingFuncFor(tmp.vals, serviceEnv)
	for _, ev := range container.Env {
		val, ok, err := r.value(ev, mapping)
		if err != nil {
			return nil, err
		}
		if ok {
			tmp.set(ev.Name, val)
		}
	}
	out := make([]string, 0, len(tmp.names)+len(serviceOrder))
	for _, n := range tmp.names {
		out = append(out, n+"="+tmp.vals[n])
	}
	for _, n := range serviceOrder {
		if _, dup := tmp.vals[n]; !dup {
			out = append(out, intern(n+"="+serviceEnv[n]))
		}
	}
	return out, nil
}

// serviceEnvVars is getServiceEnvVarMap (kubelet_pods.go): the master
// service "kubernetes" of namespace default always, the services of the
// pod's namespace when service links are on; services without a cluster IP
// are skipped. Services are taken in name order so the result is stable.
func serviceEnvVars(ctx context.Context, objs Objects, ns string, links bool) (map[string]string, []string, error) {
	chosen := map[string]*corev1.Service{}
	defaults, err := objs.Services(ctx, metav1.NamespaceDefault)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to list services when setting up env vars")
	}
	for _, s := range defaults {
		if s.Name == "kubernetes" && v1helper.IsServiceIPSet(s) {
			chosen[s.Name] = s
		}
	}
	if links {
		local := defaults
		if ns != metav1.NamespaceDefault {
			if local, err = objs.Services(ctx, ns); err != nil {
				return nil, nil, fmt.Errorf("failed to list services when setting up env vars")
			}
		}
		for _, s := range local {
			if !v1helper.IsServiceIPSet(s) {
				continue
			}
			// A same-named service of the pod's namespace replaces the
			// master service whatever order the lister gives.
			chosen[s.Name] = s
		}
	}
	names := make([]string, 0, len(chosen))
	for n := range chosen {
		names = append(names, n)
	}
	sort.Strings(names)
	services := make([]*corev1.Service, 0, len(names))
	for _, n := range names {
		services = append(services, chosen[n])
	}
	m := map[string]string{}
	var order []string
	for _, e := range envvars.FromServices(services) {
		if _, dup := m[e.Name]; !dup {
			order = append(order, e.Name)
		}
		m[e.Name] = e.Value
	}
	return m, order, nil
}

// notFound rewords a NotFound error from Objects the way the kubelet's
// watch-based configmap and secret managers word it
// (pkg/kubelet/util/manager/watch_based_manager.go with the group
// resources "configmap" and "secret"): `configmap "x" not found`.
func notFound(err error, resource, name string) error {
	if apierrors.IsNotFound(err) {
		return apierrors.NewNotFound(schema.GroupResource{Resource: resource}, name)
	}
	return err
}
