package kubeletenv

import (
	"context"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestLinuxProcessEnv(t *testing.T) {
	img := Image{Env: []string{"PATH=/opt/bin:/bin", "LANG=C", "FOO=image"}}
	got := LinuxProcessEnv([]string{"FOO=kube", "BAR=1", "HOSTNAME=override"}, img, "pod-1", "/root")
	// PATH and HOSTNAME keep the defaults' slots; FOO was appended twice by
	// containerd and runc keeps the last one, at its position.
	want := []string{"PATH=/opt/bin:/bin", "HOSTNAME=override", "LANG=C", "FOO=kube", "BAR=1", "HOME=/root"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = LinuxProcessEnv([]string{"HOME=/data"}, Image{}, "h", "/root")
	want = []string{"PATH=" + DefaultLinuxPath, "HOSTNAME=h", "HOME=/data"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = LinuxProcessEnv([]string{"HOME="}, Image{}, "h", "")
	if got[len(got)-1] != "HOME=/" || len(got) != 3 {
		t.Errorf("empty HOME should be replaced by the passwd home: %q", got)
	}
}

func TestEnvLinuxBusybox(t *testing.T) {
	pod := testPod(corev1.Container{Name: "c", Env: []corev1.EnvVar{{Name: "A", Value: "1"}}})
	pod.Spec.EnableServiceLinks = ptr(false)
	objs := testObjects()
	objs.services = nil
	env, err := Env(context.Background(), objs, pod, &pod.Spec.Containers[0], testNode(), Image{}, []string{"10.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PATH=" + DefaultLinuxPath, "HOSTNAME=pod-1", "A=1", "HOME=/root"}
	if !reflect.DeepEqual(env.Process, want) || !reflect.DeepEqual(env.Kubelet, []string{"A=1"}) {
		t.Errorf("got %+v", env)
	}
}

func TestEnvWindows(t *testing.T) {
	pod := testPod(corev1.Container{Name: "c", Env: []corev1.EnvVar{{Name: "PATH", Value: `C:\tools`}, {Name: "A", Value: "1"}}})
	pod.Name = "windows-pod-with-long-name"
	pod.Spec.EnableServiceLinks = ptr(false)
	objs := testObjects()
	objs.services = nil
	node := testNode()
	node.Windows = true
	env, err := Env(context.Background(), objs, pod, &pod.Spec.Containers[0], node, Image{Windows: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	get := func(name string) string {
		for _, kv := range env.Process {
			if n, v, _ := strings.Cut(kv, "="); strings.EqualFold(n, name) {
				return v
			}
		}
		return "<unset>"
	}
	for name, want := range map[string]string{
		"COMPUTERNAME":         "WINDOWS-POD-WIT",
		"USERNAME":             "ContainerAdministrator",
		"USERPROFILE":          `C:\Users\ContainerAdministrator`,
		"Path":                 `C:\tools`,
		"A":                    "1",
		"NUMBER_OF_PROCESSORS": "4",
		"TEMP":                 `C:\Users\ContainerAdministrator\AppData\Local\Temp`,
		"ProgramFiles(x86)":    `C:\Program Files (x86)`,
	} {
		if got := get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for i := 1; i < len(env.Process); i++ {
		a, _, _ := strings.Cut(env.Process[i-1], "=")
		b, _, _ := strings.Cut(env.Process[i], "=")
		if strings.ToUpper(a) >= strings.ToUpper(b) {
			t.Errorf("not sorted without case: %q before %q", a, b)
		}
	}
	if !strings.HasPrefix(env.Process[0], "A=") {
		t.Errorf("first entry %q", env.Process[0])
	}
}

func TestWindowsNanoServerUser(t *testing.T) {
	env := WindowsProcessEnv(nil, Image{Windows: true, NanoServer: true}, "p", "ContainerUser", 2)
	joined := strings.Join(env, "\n")
	if !strings.Contains(joined, `USERPROFILE=C:\Users\ContainerUser`) || strings.Contains(joined, "(x86)") {
		t.Errorf("nano env:\n%s", joined)
	}
}

func TestCPUCount(t *testing.T) {
	n := Node{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m")}}
	if got := cpuCount(n); got != 2 {
		t.Errorf("cpuCount = %d", got)
	}
}
