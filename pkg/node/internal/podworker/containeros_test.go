package podworker

import (
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/emu/program"
)

// The runtime's privileges follow the container's securityContext as the
// kubelet passes it on: no_new_privs only for an explicit
// allowPrivilegeEscalation: false.
func TestContainerPrivileges(t *testing.T) {
	cases := []struct {
		sc   *corev1.SecurityContext
		want program.Privileges
	}{
		{nil, program.Privileges{}},
		{&corev1.SecurityContext{RunAsUser: ptr.To[int64](1000)}, program.Privileges{}},
		{&corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(true)}, program.Privileges{}},
		{&corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}, program.Privileges{NoNewPrivs: true}},
		{&corev1.SecurityContext{Privileged: ptr.To(true)}, program.Privileges{Privileged: true}},
		{&corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}, Drop: []corev1.Capability{"ALL"}}},
			program.Privileges{Add: []string{"NET_ADMIN"}, Drop: []string{"ALL"}}},
	}
	for _, c := range cases {
		if got := containerPrivileges(&corev1.Container{SecurityContext: c.sc}); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: %+v, want %+v", c.sc, got, c.want)
		}
	}
}

// hcsshim expands the sandbox mount point in a HostProcess container's
// command line before it starts the process, in both spellings.
func TestExpandSandboxMount(t *testing.T) {
	got := expandSandboxMount([]string{`%CONTAINER_SANDBOX_MOUNT_POINT%/windows_exporter.exe`, `--config.file=$env:CONTAINER_SANDBOX_MOUNT_POINT/config.yml`, `plain`})
	want := []string{`C:\hpc\/windows_exporter.exe`, `--config.file=C:\hpc\/config.yml`, `plain`}
	if !slices.Equal(got, want) {
		t.Errorf("expandSandboxMount = %q, want %q", got, want)
	}
}
