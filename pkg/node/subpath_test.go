package node

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSubPathError(t *testing.T) {
	annotation := corev1.EnvVar{Name: "ANNOTATION", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.annotations['mysubpath']"}}}
	fromConfigMap := corev1.EnvVar{Name: "CM", ValueFrom: &corev1.EnvVarSource{
		ConfigMapKeyRef: &corev1.ConfigMapKeySelector{Key: "k"}}}
	cases := []struct {
		name        string
		env         []corev1.EnvVar
		expr, sub   string
		annotations map[string]string
		windows     bool
		want        string
	}{
		{name: "plain", env: []corev1.EnvVar{{Name: "POD_NAME", Value: "foo"}}, expr: "$(POD_NAME)"},
		{name: "backsteps", env: []corev1.EnvVar{{Name: "POD_NAME", Value: ".."}}, expr: "$(POD_NAME)",
			want: "unable to provision SubPath `..`: must not contain '..'"},
		{name: "absolute linux", env: []corev1.EnvVar{{Name: "POD_NAME", Value: "/tmp"}}, expr: "$(POD_NAME)",
			want: "error SubPath `/tmp` must not be an absolute path"},
		{name: "drive path on linux is relative", env: []corev1.EnvVar{{Name: "POD_NAME", Value: `C:\Users`}}, expr: "$(POD_NAME)"},
		{name: "absolute windows", env: []corev1.EnvVar{{Name: "POD_NAME", Value: `C:\Users`}}, expr: "$(POD_NAME)", windows: true,
			want: "error SubPath `C:\\Users` must not be an absolute path"},
		{name: "missing annotation", env: []corev1.EnvVar{{Name: "POD_NAME", Value: "foo"}, annotation}, expr: "$(ANNOTATION)/$(POD_NAME)",
			want: "missing value for ANNOTATION"},
		{name: "annotation set", env: []corev1.EnvVar{{Name: "POD_NAME", Value: "foo"}, annotation}, expr: "$(ANNOTATION)/$(POD_NAME)",
			annotations: map[string]string{"mysubpath": "mypath"}},
		{name: "unset variable", expr: "$(NOPE)", want: "missing value for NOPE"},
		{name: "configMap value is not judged", env: []corev1.EnvVar{fromConfigMap}, expr: "$(CM)"},
		{name: "literal subPath", sub: "../x", want: "unable to provision SubPath `../x`: must not contain '..'"},
		{name: "no subpath"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: c.annotations},
				Spec:       corev1.PodSpec{Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}},
			}
			ctr := &corev1.Container{Name: "c", Env: c.env,
				VolumeMounts: []corev1.VolumeMount{{Name: "v", MountPath: "/m", SubPath: c.sub, SubPathExpr: c.expr}}}
			err := subPathError(pod, ctr, c.windows)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
