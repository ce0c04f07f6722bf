package kubeletenv

import (
	"context"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func testNode() Node {
	return Node{
		Name:          "node-1",
		Allocatable:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")},
		ClusterDNS:    []string{"10.96.0.10"},
		ClusterDomain: "cluster.local",
		HostIPs:       []string{"172.18.0.2"},
	}
}

func testObjects() *fakeObjects {
	return &fakeObjects{
		configMaps: map[string]*corev1.ConfigMap{
			"ns1/cm": configMap("ns1", "cm", map[string]string{"data-1": "value-1", "b": "2"}),
		},
		secrets: map[string]*corev1.Secret{
			"ns1/sec": secretObj("ns1", "sec", map[string]string{"password": "hunter2"}),
		},
		services: []*corev1.Service{
			service("default", "kubernetes", "10.96.0.1", tcpPort("https", 443)),
			service("default", "other", "10.96.0.5", tcpPort("", 80)),
			service("ns1", "redis", "10.96.0.20", tcpPort("", 6379)),
			service("ns1", "headless", "None", tcpPort("", 80)),
		},
	}
}

func testPod(c corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-1", Namespace: "ns1", UID: "uid-1",
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"note": "hi"}},
		Spec: corev1.PodSpec{NodeName: "node-1", ServiceAccountName: "default", Containers: []corev1.Container{c},
			EnableServiceLinks: ptr(true)},
	}
}

func TestKubeletEnvOrderAndValues(t *testing.T) {
	c := corev1.Container{
		Name:    "c",
		EnvFrom: []corev1.EnvFromSource{{Prefix: "P_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
		Env: []corev1.EnvVar{
			{Name: "FOO", Value: "foo-value"},
			{Name: "BAR", Value: "$(FOO);;$(REDIS_SERVICE_HOST);$(NOPE);$$(FOO)"},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "LABEL", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}},
			{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			{Name: "HOST_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.hostIP"}}},
			{Name: "MEM_MI", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
			{Name: "CPU_M", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "requests.cpu", Divisor: resource.MustParse("1m")}}},
			{Name: "PASS", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sec"}, Key: "password"}}},
			{Name: "OPT", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, Key: "missing", Optional: ptr(true)}}},
			{Name: "P_b", Value: "override"},
		},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}},
	}
	pod := testPod(c)
	got, err := KubeletEnv(context.Background(), testObjects(), pod, &pod.Spec.Containers[0], testNode(), []string{"10.244.1.5"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"P_b=override",
		"P_data-1=value-1",
		"FOO=foo-value",
		"BAR=foo-value;;10.96.0.20;$(NOPE);$(FOO)",
		"POD_NAME=pod-1",
		"LABEL=web",
		"POD_IP=10.244.1.5",
		"HOST_IP=172.18.0.2",
		"MEM_MI=8192",
		"CPU_M=250",
		"PASS=hunter2",
		"KUBERNETES_SERVICE_HOST=10.96.0.1",
		"KUBERNETES_SERVICE_PORT=443",
		"KUBERNETES_SERVICE_PORT_HTTPS=443",
		"KUBERNETES_PORT=tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP_PROTO=tcp",
		"KUBERNETES_PORT_443_TCP_PORT=443",
		"KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1",
		"REDIS_SERVICE_HOST=10.96.0.20",
		"REDIS_SERVICE_PORT=6379",
		"REDIS_PORT=tcp://10.96.0.20:6379",
		"REDIS_PORT_6379_TCP=tcp://10.96.0.20:6379",
		"REDIS_PORT_6379_TCP_PROTO=tcp",
		"REDIS_PORT_6379_TCP_PORT=6379",
		"REDIS_PORT_6379_TCP_ADDR=10.96.0.20",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("env:\n got %q\nwant %q", got, want)
	}
}

func TestKubeletEnvServiceLinksOff(t *testing.T) {
	pod := testPod(corev1.Container{Name: "c"})
	pod.Spec.EnableServiceLinks = ptr(false)
	got, err := KubeletEnv(context.Background(), testObjects(), pod, &pod.Spec.Containers[0], testNode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range got {
		if !strings.HasPrefix(kv, "KUBERNETES_") {
			t.Errorf("unexpected %q with service links off", kv)
		}
	}
	if len(got) != 8 {
		t.Errorf("want the 8 master service variables, got %q", got)
	}
}

func TestKubeletEnvErrors(t *testing.T) {
	ref := func(name, key string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}}
	}
	cases := []struct {
		name string
		c    corev1.Container
		want string
	}{
		{"missing configmap", corev1.Container{Env: []corev1.EnvVar{{Name: "A", ValueFrom: ref("nope", "k")}}}, `configmap "nope" not found`},
		{"missing key", corev1.Container{Env: []corev1.EnvVar{{Name: "A", ValueFrom: ref("cm", "k")}}}, `couldn't find key k in ConfigMap ns1/cm`},
		{"missing secret key", corev1.Container{Env: []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sec"}, Key: "k"}}}}}, `couldn't find key k in Secret ns1/sec`},
		{"missing secret", corev1.Container{EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "gone"}}}}}, `secret "gone" not found`},
		{"bad field", corev1.Container{Env: []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.bogus"}}}}}, `field label not supported: spec.bogus`},
		{"file without reader volume", corev1.Container{Env: []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "v", Path: "f", Key: "K"}}}}}, `cannot find the volume "v" referenced by FileKeyRef`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := testPod(tc.c)
			_, err := KubeletEnv(context.Background(), testObjects(), pod, &pod.Spec.Containers[0], testNode(), nil)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestKubeletEnvOptionalEnvFrom(t *testing.T) {
	pod := testPod(corev1.Container{EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "nope"}, Optional: ptr(true)}}}})
	pod.Spec.EnableServiceLinks = ptr(false)
	objs := testObjects()
	objs.services = nil
	got, err := KubeletEnv(context.Background(), objs, pod, &pod.Spec.Containers[0], testNode(), nil)
	if err != nil || len(got) != 0 {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestKubeletEnvFileKeyRef(t *testing.T) {
	c := corev1.Container{Env: []corev1.EnvVar{
		{Name: "A", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "cfg", Path: "env", Key: "CONFIG"}}},
		{Name: "B", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "cfg", Path: "env", Key: "MISSING", Optional: ptr(true)}}},
	}}
	pod := testPod(c)
	pod.Spec.EnableServiceLinks = ptr(false)
	pod.Spec.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	objs := testObjects()
	objs.services = nil
	objs.files = map[string]string{"cfg/env": "# comment\nCONFIG='line1\nline2' # trailing\nOTHER='x'\n"}
	got, err := KubeletEnv(context.Background(), objs, pod, &pod.Spec.Containers[0], testNode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"A=line1\nline2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestResourceFieldRefPodLevelLimits(t *testing.T) {
	c := corev1.Container{Name: "c", Env: []corev1.EnvVar{
		{Name: "CPU", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}},
		{Name: "MEM", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
	}}
	pod := testPod(c)
	pod.Spec.EnableServiceLinks = ptr(false)
	pod.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m"), corev1.ResourceMemory: resource.MustParse("256Mi")}}
	objs := testObjects()
	objs.services = nil
	got, err := KubeletEnv(context.Background(), objs, pod, &pod.Spec.Containers[0], testNode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// limits.cpu rounds up to whole cores; memory in Mi.
	if want := []string{"CPU=2", "MEM=256"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
}
