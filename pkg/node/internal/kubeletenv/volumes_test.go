package kubeletenv

import (
	"context"
	"io/fs"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

var writeTime = time.Date(2026, 11, 24, 10, 0, 0, 123, time.UTC)

func volFiles(t *testing.T, pod *corev1.Pod, vol corev1.Volume, objs *fakeObjects) (Files, error) {
	t.Helper()
	return VolumeFiles(context.Background(), objs, pod, vol, testNode(), writeTime)
}

func TestConfigMapVolume(t *testing.T) {
	pod := testPod(corev1.Container{Name: "c"})
	objs := testObjects()
	vol := corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}
	f, err := volFiles(t, pod, vol, objs)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{Path: "b", Data: []byte("2"), Mode: 0644}, {Path: "data-1", Data: []byte("value-1"), Mode: 0644}}
	if !reflect.DeepEqual(f.Entries, want) || !reflect.DeepEqual(f.Top, []string{"b", "data-1"}) {
		t.Errorf("files %+v", f)
	}
	if f.GID != nil || f.DirMode != 0755 || f.RootMode != fs.ModeSticky|0777 {
		t.Errorf("modes %+v", f)
	}
	if f.TimestampDir[:22] != "..2026_11_24_10_00_00." || len(f.TimestampDir) <= 22 {
		t.Errorf("timestamp dir %q", f.TimestampDir)
	}

	// items with paths, modes and fsGroup.
	vol.ConfigMap.Items = []corev1.KeyToPath{{Key: "data-1", Path: "path/to/data-2", Mode: ptr[int32](0400)}}
	vol.ConfigMap.DefaultMode = ptr[int32](0400)
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{FSGroup: ptr[int64](1001)}
	f, err = volFiles(t, pod, vol, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 1 || f.Entries[0].Path != "path/to/data-2" || f.Entries[0].Mode != 0440 || f.Top[0] != "path" {
		t.Errorf("items %+v", f)
	}
	if f.GID == nil || *f.GID != 1001 || f.DirMode != fs.ModeSetgid|0755 || f.RootMode != fs.ModeSticky|fs.ModeSetgid|0777 {
		t.Errorf("fsGroup %+v", f)
	}
}

func TestVolumeErrors(t *testing.T) {
	pod := testPod(corev1.Container{Name: "c"})
	cm := func(name string, optional bool, items ...corev1.KeyToPath) corev1.Volume {
		return corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: name}, Optional: &optional, Items: items}}}
	}
	sec := func(name string, items ...corev1.KeyToPath) corev1.Volume {
		return corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name, Items: items}}}
	}
	cases := []struct {
		name string
		vol  corev1.Volume
		want string
	}{
		{"missing configmap", cm("nope", false), `configmap "nope" not found`},
		{"missing key", cm("cm", false, corev1.KeyToPath{Key: "zz", Path: "zz"}), "configmap references non-existent config key: zz"},
		{"missing secret", sec("nope"), `secret "nope" not found`},
		{"missing secret key", sec("sec", corev1.KeyToPath{Key: "zz", Path: "zz"}), "references non-existent secret key: zz"},
		{"bad path", cm("cm", false, corev1.KeyToPath{Key: "b", Path: "..b"}), "invalid path: must not start with '..': ..b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := volFiles(t, pod, tc.vol, testObjects())
			if err == nil || err.Error() != tc.want {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
	// Optional and missing: an empty volume.
	f, err := volFiles(t, pod, cm("nope", true), testObjects())
	if err != nil || len(f.Entries) != 0 {
		t.Errorf("optional: %+v %v", f, err)
	}
	f, err = volFiles(t, pod, cm("cm", true, corev1.KeyToPath{Key: "zz", Path: "zz"}, corev1.KeyToPath{Key: "b", Path: "b"}), testObjects())
	if err != nil || len(f.Entries) != 1 {
		t.Errorf("optional key: %+v %v", f, err)
	}
	if _, err := volFiles(t, pod, corev1.Volume{Name: "e", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}, testObjects()); err != ErrNoContent {
		t.Errorf("emptyDir: %v", err)
	}
}

func TestDownwardAPIVolume(t *testing.T) {
	c := corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")}}}
	pod := testPod(c)
	pod.Labels = map[string]string{"b": "2", "a": "1"}
	vol := corev1.Volume{Name: "podinfo", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
		{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}},
		{Path: "podname", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}, Mode: ptr[int32](0400)},
		{Path: "memory_limit", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}},
		{Path: "memory_request", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: "requests.memory"}},
	}}}}
	f, err := volFiles(t, pod, vol, testObjects())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range f.Entries {
		got[e.Path] = string(e.Data)
	}
	want := map[string]string{"labels": "a=\"1\"\nb=\"2\"", "podname": "pod-1", "memory_limit": "8192", "memory_request": "33554432"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
	if f.Entries[3].Path != "podname" || f.Entries[3].Mode != 0400 {
		t.Errorf("entries %+v", f.Entries)
	}
}

func TestProjectedVolume(t *testing.T) {
	pod := testPod(corev1.Container{Name: "c", SecurityContext: &corev1.SecurityContext{RunAsUser: ptr[int64](1000)}})
	objs := testObjects()
	objs.token = "header.payload.sig"
	vol := corev1.Volume{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr[int32](0644),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr[int64](3607), Audience: "api"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, Items: []corev1.KeyToPath{{Key: "data-1", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
		}}}}
	f, err := volFiles(t, pod, vol, objs)
	if err != nil {
		t.Fatal(err)
	}
	uid := int64(1000)
	want := []File{
		{Path: "ca.crt", Data: []byte("value-1"), Mode: 0644},
		{Path: "namespace", Data: []byte("ns1"), Mode: 0644},
		{Path: "token", Data: []byte("header.payload.sig"), Mode: 0600, UID: &uid},
	}
	if !reflect.DeepEqual(f.Entries, want) {
		t.Errorf("got %+v\nwant %+v", f.Entries, want)
	}
	req := objs.tokenReqs[0].Spec
	if *req.ExpirationSeconds != 3607 || req.Audiences[0] != "api" || req.BoundObjectRef.Name != "pod-1" || req.BoundObjectRef.UID != "uid-1" {
		t.Errorf("token request %+v", req)
	}

	// Failures of several sources are aggregated.
	vol.Projected.Sources = []corev1.VolumeProjection{
		{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "x"}}},
		{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "y"}}},
	}
	_, err = volFiles(t, pod, vol, objs)
	if err == nil || err.Error() != `[configmap "x" not found, secret "y" not found]` {
		t.Errorf("aggregate %v", err)
	}
}

func TestVolumeKind(t *testing.T) {
	cases := map[string]corev1.VolumeSource{
		KindEmptyDir:          {EmptyDir: &corev1.EmptyDirVolumeSource{}},
		KindEmptyDirMemory:    {EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}},
		KindEmptyDirHugePages: {EmptyDir: &corev1.EmptyDirVolumeSource{Medium: "HugePages-2Mi"}},
		KindHostPath:          {HostPath: &corev1.HostPathVolumeSource{Path: "/x"}},
		KindPVC:               {PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}},
		KindProjected:         {Projected: &corev1.ProjectedVolumeSource{}},
		KindImage:             {Image: &corev1.ImageVolumeSource{Reference: "x"}},
		KindOther:             {},
	}
	for want, src := range cases {
		if got := VolumeKind(corev1.Volume{VolumeSource: src}); got != want {
			t.Errorf("VolumeKind = %q, want %q", got, want)
		}
	}
}
