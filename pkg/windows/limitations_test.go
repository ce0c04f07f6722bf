package windows

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// pod is a clean Windows-ready spec: memory request equals limit, no LIM hits.
func pod(mut func(*corev1.PodSpec)) *corev1.PodSpec {
	mem := resource.MustParse("512Mi")
	s := &corev1.PodSpec{Containers: []corev1.Container{{
		Name: "app", Image: "img",
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceMemory: mem},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: mem},
		},
	}}}
	if mut != nil {
		mut(s)
	}
	return s
}

type hit struct{ Rule, Path string }

func hits(vs []Violation) []hit {
	var out []hit
	for _, v := range vs {
		if v.Message == "" || v.Fix == "" || v.Severity == 0 {
			panic("violation without message, fix or severity: " + v.String())
		}
		out = append(out, hit{v.Rule, v.Path})
	}
	return out
}

func TestPodLimitations(t *testing.T) {
	tests := []struct {
		name    string
		runtime string
		spec    *corev1.PodSpec
		want    []hit
	}{
		{"clean pod", "containerd", pod(nil), nil},
		{"nil spec", "containerd", nil, nil},
		// rule: LIM-2
		{"hostNetwork", "containerd", pod(func(s *corev1.PodSpec) { s.HostNetwork = true }),
			[]hit{{"LIM-2", "spec.hostNetwork"}}},
		{"hostNetwork for HostProcess is fine", "containerd", pod(func(s *corev1.PodSpec) {
			s.HostNetwork = true
			s.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}
		}), nil},
		// rule: LIM-3
		{"ClusterFirstWithHostNet", "containerd", pod(func(s *corev1.PodSpec) { s.DNSPolicy = corev1.DNSClusterFirstWithHostNet }),
			[]hit{{"LIM-3", "spec.dnsPolicy"}}},
		// LIM-3 for a HostProcess pod is an info finding: see TestDNSPolicyHostProcess.
		// rule: LIM-4, LIM-8, LIM-9
		{"volumes", "containerd", pod(func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{
				{Name: "ram", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
				{Name: "disk", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "huge", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumHugePagesPrefix + "2Mi"}}},
				{Name: "nfs", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "s", Path: "/"}}},
				{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{DefaultMode: ptr(int32(0o400)),
					Items: []corev1.KeyToPath{{Key: "k", Path: "p", Mode: ptr(int32(0o600))}}}}},
			}
		}), []hit{
			{"LIM-4", "spec.volumes[0].emptyDir.medium"},
			{"LIM-8", "spec.volumes[2].emptyDir.medium"},
			{"LIM-9", "spec.volumes[3].nfs"},
			{"LIM-9", "spec.volumes[4].configMap.defaultMode"},
			{"LIM-9", "spec.volumes[4].configMap.items[0].mode"},
		}},
		// rule: LIM-9
		{"defaultMode 420 is the API default, not a request", "containerd", pod(func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{
				{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{DefaultMode: ptr(int32(420))}}},
				{Name: "dw", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{DefaultMode: ptr(int32(420))}}},
			}
		}), nil},
		// rule: LIM-5, LIM-6
		{"devices and propagation", "containerd", pod(func(s *corev1.PodSpec) {
			c := &s.Containers[0]
			c.VolumeDevices = []corev1.VolumeDevice{{Name: "blk", DevicePath: "/dev/xvda"}}
			c.VolumeMounts = []corev1.VolumeMount{
				{Name: "a", MountPath: "/a", MountPropagation: ptr(corev1.MountPropagationNone)},
				{Name: "b", MountPath: "/b", MountPropagation: ptr(corev1.MountPropagationHostToContainer)},
			}
		}), []hit{{"LIM-5", "spec.containers[0].volumeDevices"}, {"LIM-6", "spec.containers[0].volumeMounts[1].mountPropagation"}}},
		// rule: LIM-7 (containerd maps single files, Docker does not)
		{"subPath on containerd", "containerd", pod(func(s *corev1.PodSpec) {
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cfg", MountPath: `C:\app\web.config`, SubPath: "web.config"}}
			s.Containers[0].TerminationMessagePath = `C:\term.log`
		}), nil},
		{"subPath on docker", "docker", pod(func(s *corev1.PodSpec) {
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{
				{Name: "cfg", MountPath: `C:\app\web.config`, SubPath: "web.config"},
				{Name: "dir", MountPath: `C:\data`},
			}
			s.Containers[0].TerminationMessagePath = `C:\term.log`
		}), []hit{{"LIM-7", "spec.containers[0].volumeMounts[0]"}, {"LIM-7", "spec.containers[0].terminationMessagePath"}}},
		{"default termination path on docker", "docker://19.3.14", pod(func(s *corev1.PodSpec) {
			s.Containers[0].TerminationMessagePath = "/dev/termination-log"
		}), nil},
		// rule: LIM-8
		{"hugepages resources", "containerd", pod(func(s *corev1.PodSpec) {
			s.Containers[0].Resources.Limits["hugepages-2Mi"] = resource.MustParse("1Gi")
			s.Containers[0].Resources.Requests["hugepages-2Mi"] = resource.MustParse("1Gi")
		}), []hit{{"LIM-8", "spec.containers[0].resources.limits[hugepages-2Mi]"}, {"LIM-8", "spec.containers[0].resources.requests[hugepages-2Mi]"}}},
		// rule: LIM-14
		{"grace period on containerd", "containerd", pod(func(s *corev1.PodSpec) { s.TerminationGracePeriodSeconds = ptr(int64(60)) }), nil},
		{"grace period on docker", "docker", pod(func(s *corev1.PodSpec) { s.TerminationGracePeriodSeconds = ptr(int64(60)) }),
			[]hit{{"LIM-14", "spec.terminationGracePeriodSeconds"}}},
		{"short grace period on docker", "docker", pod(func(s *corev1.PodSpec) { s.TerminationGracePeriodSeconds = ptr(int64(5)) }), nil},
		// rule: LIM-15
		{"privileged", "containerd", pod(func(s *corev1.PodSpec) {
			s.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr(true)}
		}), []hit{{"LIM-15", "spec.containers[0].securityContext.privileged"}}},
		{"privileged is ignored in a HostProcess pod", "containerd", pod(func(s *corev1.PodSpec) {
			s.HostNetwork = true
			s.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}
			s.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr(true)}
		}), nil},
		// rule: LIM-17
		{"ping probe", "containerd", pod(func(s *corev1.PodSpec) {
			s.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cmd", "/c", "ping -n 1 8.8.8.8"}}}}
			s.Containers[0].Command = []string{`C:\Windows\System32\PING.EXE`, "example.com"}
		}), []hit{{"LIM-17", "spec.containers[0].command"}, {"LIM-17", "spec.containers[0].livenessProbe.exec.command"}}},
		{"ping of the pod itself is a keep-alive", "containerd", pod(func(s *corev1.PodSpec) {
			s.Containers[0].Command = []string{"cmd", "/c", "ping -t localhost > NUL"}
			s.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"ping", "-n", "1", "$(POD_IP)"}}}}
			s.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"powershell", "-c", "ping -n 1 $env:POD_IP; ping 127.0.0.1"}}}}
		}), nil},
		{"a remote ping after a local one is reported", "containerd", pod(func(s *corev1.PodSpec) {
			s.Containers[0].Command = []string{"cmd", "/c", "ping -n 1 localhost && ping -n 1 10.0.0.1"}
		}), []hit{{"LIM-17", "spec.containers[0].command"}}},
		{"word containing ping is fine", "containerd", pod(func(s *corev1.PodSpec) {
			s.Containers[0].Command = []string{"mapping-tool", "--ping-interval=5"}
		}), nil},
		// rule: LIM-18
		{"secret volume", "containerd", pod(func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}}
		}), []hit{{"LIM-18", "spec.volumes[0].secret"}}},
		// rule: LIM-19
		{"memory request below limit and missing limit", "containerd", pod(func(s *corev1.PodSpec) {
			s.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("256Mi")
			s.InitContainers = []corev1.Container{{Name: "init"}}
		}), []hit{{"LIM-19", "spec.initContainers[0].resources.limits[memory]"}, {"LIM-19", "spec.containers[0].resources.requests[memory]"}}},
		// rule: LIM-20
		{"linux-only security without spec.os", "containerd", pod(func(s *corev1.PodSpec) {
			s.SecurityContext = &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
			s.Containers[0].SecurityContext = &corev1.SecurityContext{
				Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				SELinuxOptions: &corev1.SELinuxOptions{Level: "s0"},
			}
		}), []hit{
			{"LIM-20", "spec.securityContext.seccompProfile"},
			{"LIM-20", "spec.containers[0].securityContext.seLinuxOptions"},
			{"LIM-20", "spec.containers[0].securityContext.capabilities"},
		}},
		{"linux-only security with spec.os is API-2/3's job", "containerd", pod(func(s *corev1.PodSpec) {
			s.OS = &corev1.PodOS{Name: corev1.Windows}
			s.SecurityContext = &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{}}
		}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hits(PodLimitationsAt(tt.spec, tt.runtime, field.NewPath("spec")))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestMixedPodOS(t *testing.T) {
	// rule: LIM-1
	tests := []struct {
		name string
		in   []ContainerOS
		want []hit
	}{
		{"all windows", []ContainerOS{{"spec.containers[0]", []string{"windows"}}, {"spec.containers[1]", []string{"windows"}}}, nil},
		{"windows plus multi-OS", []ContainerOS{{"spec.containers[0]", []string{"windows"}}, {"spec.containers[1]", []string{"linux", "windows"}}}, nil},
		{"windows and linux", []ContainerOS{{"spec.containers[0]", []string{"windows"}}, {"spec.containers[1]", []string{"linux"}}},
			[]hit{{"LIM-1", "spec.containers[1]"}}},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		if got := hits(MixedPodOS(tt.in)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCheckSystemReserved(t *testing.T) {
	// rule: LIM-19
	tests := []struct {
		name string
		in   corev1.ResourceList
		want int
	}{
		{"none", nil, 1},
		{"1Gi", corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}, 1},
		{"2Gi", corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}, 0},
		{"4Gi", corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}, 0},
	}
	for _, tt := range tests {
		if got := CheckSystemReserved(tt.in); len(got) != tt.want {
			t.Errorf("%s: %v", tt.name, got)
		}
	}
}

// rule: LIM-3
// A HostProcess pod resolves names with the node's settings, so its
// dnsPolicy is only worth an info finding; a normal pod's is an error.
func TestDNSPolicyHostProcess(t *testing.T) {
	normal := pod(func(s *corev1.PodSpec) { s.DNSPolicy = corev1.DNSClusterFirstWithHostNet })
	hostProcess := pod(func(s *corev1.PodSpec) {
		s.DNSPolicy = corev1.DNSClusterFirstWithHostNet
		s.HostNetwork = true
		s.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}
	})
	for _, tc := range []struct {
		name string
		spec *corev1.PodSpec
		want Severity
	}{{"normal pod", normal, SeverityError}, {"HostProcess pod", hostProcess, SeverityInfo}} {
		vs := PodLimitationsAt(tc.spec, "containerd", field.NewPath("spec"))
		if len(vs) != 1 || vs[0].Rule != "LIM-3" || vs[0].Severity != tc.want {
			t.Errorf("%s: got %v, want one LIM-3 %s", tc.name, vs, tc.want)
		}
	}
}

// rule: LIM-20, API-3
// The advice for Linux-only fields must never be "set spec.os.name: windows"
// alone: with the fields still there the API server rejects the pod.
func TestLinuxSecurityAdviceRemovesFields(t *testing.T) {
	spec := pod(func(s *corev1.PodSpec) {
		s.Containers[0].SecurityContext = &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	})
	vs := PodLimitationsAt(spec, "containerd", field.NewPath("spec"))
	if len(vs) != 1 || vs[0].Rule != "LIM-20" {
		t.Fatalf("got %v, want one LIM-20", vs)
	}
	for _, want := range []string{"in the same change remove it", "allowPrivilegeEscalation", "API-3", "Pod Security", "leave spec.os unset"} {
		if !strings.Contains(vs[0].Fix, want) {
			t.Errorf("fix %q does not say %q", vs[0].Fix, want)
		}
	}
}
