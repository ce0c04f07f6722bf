package windows

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func ptr[T any](v T) *T { return &v }

var specPath = field.NewPath("spec")

func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func windowsSpec(mut func(*corev1.PodSpec)) *corev1.PodSpec {
	s := &corev1.PodSpec{OS: &corev1.PodOS{Name: corev1.Windows}, Containers: []corev1.Container{{Name: "app", Image: "img"}}}
	if mut != nil {
		mut(s)
	}
	return s
}

func linuxSpec(mut func(*corev1.PodSpec)) *corev1.PodSpec {
	s := windowsSpec(mut)
	s.OS.Name = corev1.Linux
	return s
}

func TestValidatePodSpecOS(t *testing.T) {
	tests := []struct {
		name string
		rule string
		spec *corev1.PodSpec
		want []string
	}{
		// rule: API-1
		{"no os: no checks", "API-1", &corev1.PodSpec{HostPID: true, Containers: []corev1.Container{{Name: "a"}}}, nil},
		{"empty os name", "API-1", &corev1.PodSpec{OS: &corev1.PodOS{}, HostPID: true}, []string{"spec.os.name: Required value"}},
		{"unsupported os name", "API-1", &corev1.PodSpec{OS: &corev1.PodOS{Name: "plan9"}, HostPID: true},
			[]string{`spec.os: Unsupported value: "plan9": supported values: "linux", "windows"`}},
		{"windows, clean", "API-1", windowsSpec(nil), nil},
		{"linux, clean", "API-1", linuxSpec(nil), nil},
		{"nil spec", "API-1", nil, nil},
		// rule: API-2
		{"windows pod fields", "API-2", windowsSpec(func(s *corev1.PodSpec) {
			s.HostPID, s.HostIPC = true, true
			s.HostUsers = ptr(false)
			s.ShareProcessNamespace = ptr(false)
			s.SecurityContext = &corev1.PodSecurityContext{
				AppArmorProfile:          &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault},
				SELinuxOptions:           &corev1.SELinuxOptions{},
				SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				FSGroup:                  ptr(int64(1)),
				FSGroupChangePolicy:      ptr(corev1.FSGroupChangeAlways),
				Sysctls:                  []corev1.Sysctl{{Name: "a", Value: "b"}},
				RunAsUser:                ptr(int64(0)),
				RunAsGroup:               ptr(int64(0)),
				SupplementalGroups:       []int64{1},
				SupplementalGroupsPolicy: ptr(corev1.SupplementalGroupsPolicyMerge),
				SELinuxChangePolicy:      ptr(corev1.SELinuxChangePolicyRecursive),
			}
		}), []string{
			"spec.securityContext.appArmorProfile: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.seLinuxOptions: Forbidden: cannot be set for a windows pod",
			"spec.hostUsers: Forbidden: cannot be set for a windows pod",
			"spec.hostPID: Forbidden: cannot be set for a windows pod",
			"spec.hostIPC: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.seccompProfile: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.fsGroup: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.fsGroupChangePolicy: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.sysctls: Forbidden: cannot be set for a windows pod",
			"spec.shareProcessNamespace: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.runAsGroup: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.supplementalGroups: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.supplementalGroupsPolicy: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.seLinuxChangePolicy: Forbidden: cannot be set for a windows pod",
		}},
		{"windows: empty sysctls and false hostPID are fine", "API-2", windowsSpec(func(s *corev1.PodSpec) {
			s.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{}}
		}), nil},
		{"windows: pod-level resources", "API-2", windowsSpec(func(s *corev1.PodSpec) {
			s.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}
		}), []string{"spec.resources: Forbidden: may not be set for a windows pod"}},
		// rule: API-3
		{"windows container fields, false counts as set", "API-3", windowsSpec(func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "init", SecurityContext: &corev1.SecurityContext{Privileged: ptr(false)}}}
			s.Containers[0].SecurityContext = &corev1.SecurityContext{
				AppArmorProfile:          &corev1.AppArmorProfile{},
				SELinuxOptions:           &corev1.SELinuxOptions{},
				SeccompProfile:           &corev1.SeccompProfile{},
				Capabilities:             &corev1.Capabilities{},
				ReadOnlyRootFilesystem:   ptr(false),
				Privileged:               ptr(false),
				AllowPrivilegeEscalation: ptr(false),
				ProcMount:                ptr(corev1.DefaultProcMount),
				RunAsUser:                ptr(int64(1)),
				RunAsGroup:               ptr(int64(1)),
			}
			s.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Name: "debug", SecurityContext: &corev1.SecurityContext{RunAsUser: ptr(int64(0))}}}}
		}), []string{
			"spec.initContainers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.appArmorProfile: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.seLinuxOptions: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.seccompProfile: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.capabilities: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.readOnlyRootFilesystem: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.allowPrivilegeEscalation: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.procMount: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.runAsUser: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.runAsGroup: Forbidden: cannot be set for a windows pod",
			"spec.ephemeralContainers[0].securityContext.runAsUser: Forbidden: cannot be set for a windows pod",
		}},
		// rule: API-4
		{"linux pod with windowsOptions", "API-4", linuxSpec(func(s *corev1.PodSpec) {
			s.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{}}
			s.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{}}
		}), []string{
			"spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
			"spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
		}},
		{"linux pod may use linux fields", "API-4", linuxSpec(func(s *corev1.PodSpec) {
			s.HostPID = true
			s.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr(int64(0))}
		}), nil},
		// rule: API-5 (checked for every OS, also without spec.os)
		{"windowsOptions checked without os", "API-5", &corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr("")}},
			Containers: []corev1.Container{{Name: "a", SecurityContext: &corev1.SecurityContext{
				WindowsOptions: &corev1.WindowsSecurityContextOptions{GMSACredentialSpecName: ptr("Bad_Name")}}}},
		}, []string{
			`spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`spec.securityContext.windowsOptions.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string`,
		}},
		// rule: API-6
		{"hostProcess without hostNetwork", "API-6", windowsSpec(func(s *corev1.PodSpec) {
			s.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}
		}), []string{"spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers"}},
		{"hostProcess ok", "API-6", windowsSpec(func(s *corev1.PodSpec) {
			s.HostNetwork = true
			s.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}
		}), nil},
		{"hostProcess mixed and disagreeing", "API-6", windowsSpec(func(s *corev1.PodSpec) {
			s.HostNetwork = true
			s.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}
			s.Containers = append(s.Containers, corev1.Container{Name: "b", SecurityContext: &corev1.SecurityContext{
				WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(false)}}})
		}), []string{
			"spec.containers[1].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true",
			`spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers`,
		}},
		{"hostProcess on one container only", "API-6", windowsSpec(func(s *corev1.PodSpec) {
			s.HostNetwork = true
			s.InitContainers = []corev1.Container{{Name: "init", SecurityContext: &corev1.SecurityContext{
				WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}}}
		}), []string{`spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers`}},
	}
	for _, tt := range tests {
		t.Run(tt.rule+" "+tt.name, func(t *testing.T) {
			got := errorStrings(ValidatePodSpecOSWithOptions(tt.spec, specPath, allowPrivileged))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestValidateHostProcessPolicy(t *testing.T) {
	// rule: API-6 (refused when the cluster disallows privileged containers)
	spec := windowsSpec(func(s *corev1.PodSpec) {
		s.HostNetwork = true
		s.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}
	})
	got := errorStrings(ValidatePodSpecOSWithOptions(spec, specPath, ValidationOptions{AllowPrivileged: false}))
	want := []string{"spec: Forbidden: hostProcess containers are disallowed by cluster policy"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if !IsHostProcessPod(spec) || IsHostProcessPod(windowsSpec(nil)) || IsHostProcessPod(nil) {
		t.Error("IsHostProcessPod is wrong")
	}
}

func TestValidatePodSpecOSTemplatePath(t *testing.T) {
	// rule: API-2 (paths follow the caller's spec path)
	spec := windowsSpec(func(s *corev1.PodSpec) { s.HostPID = true })
	got := errorStrings(ValidatePodSpecOSWithOptions(spec, field.NewPath("spec", "template", "spec"), allowPrivileged))
	want := []string{"spec.template.spec.hostPID: Forbidden: cannot be set for a windows pod"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestValidateWindowsOptions(t *testing.T) {
	// rule: API-5
	long := strings.Repeat("a", 64*1024+1)
	tests := []struct {
		name string
		opts corev1.WindowsSecurityContextOptions
		want []string
	}{
		{"valid gmsa name", corev1.WindowsSecurityContextOptions{GMSACredentialSpecName: ptr("webapp1-gmsa")}, nil},
		{"empty cred spec", corev1.WindowsSecurityContextOptions{GMSACredentialSpec: ptr("")},
			[]string{"gmsaCredentialSpec cannot be an empty string"}},
		{"cred spec 64KiB ok", corev1.WindowsSecurityContextOptions{GMSACredentialSpec: ptr(strings.Repeat("a", 64*1024))}, nil},
		{"cred spec too big", corev1.WindowsSecurityContextOptions{GMSACredentialSpec: &long},
			[]string{"gmsaCredentialSpec size must be under 64 KiB"}},
		{"plain user", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr("ContainerUser")}, nil},
		{"netbios domain", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(`NT AUTHORITY\NETWORK SERVICE`)}, nil},
		{"dns domain", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(`contoso.example.com\svc-web`)}, nil},
		{"empty user name", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr("")},
			[]string{"runAsUserName cannot be an empty string"}},
		{"control character", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr("user\tname")},
			[]string{"runAsUserName cannot contain control characters"}},
		{"two backslashes", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(`a\b\c`)},
			[]string{"runAsUserName cannot contain more than one backslash"}},
		{"domain too long", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(strings.Repeat("a", 256) + `\user`)},
			[]string{"runAsUserName's Domain length must be under 256 characters", "runAsUserName's Domain doesn't match the NetBios nor the DNS format"}},
		{"domain 16 chars with underscore", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(`abcdefghijklmno_p\user`)},
			[]string{"runAsUserName's Domain doesn't match the NetBios nor the DNS format"}},
		{"domain leading dot", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(`.dom\user`)},
			[]string{"runAsUserName's Domain doesn't match the NetBios nor the DNS format"}},
		{"domain bad char", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(`do:m\user`)},
			[]string{"runAsUserName's Domain doesn't match the NetBios nor the DNS format"}},
		{"empty domain", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(`\user`)},
			[]string{"runAsUserName's Domain doesn't match the NetBios nor the DNS format"}},
		{"empty user after domain", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(`DOMAIN\`)},
			[]string{"runAsUserName's User cannot be empty"}},
		{"user 104 ok", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(strings.Repeat("u", 104))}, nil},
		{"user too long", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(strings.Repeat("u", 105))},
			[]string{"runAsUserName's User length must not be longer than 104 characters"}},
		{"user only dots and spaces", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr(". .")},
			[]string{"runAsUserName's User cannot contain only periods or spaces"}},
		{"user bad chars", corev1.WindowsSecurityContextOptions{RunAsUserName: ptr("us@er")},
			[]string{`runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := validateWindowsOptions(&tt.opts, field.NewPath("windowsOptions"))
			var got []string
			for _, e := range errs {
				got = append(got, e.Detail)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if validateWindowsOptions(nil, field.NewPath("x")) != nil {
		t.Error("nil options produced errors")
	}
}

// allowPrivileged is the API server setup of kubeadm, kind and winkube
// clusters (--allow-privileged=true).
var allowPrivileged = ValidationOptions{AllowPrivileged: true}
