package kubeletenv

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestArgv(t *testing.T) {
	img := Image{Entrypoint: []string{"/entry"}, Cmd: []string{"cmd-arg"}}
	env := []string{"GREETING=hello", "EMPTY="}
	cases := []struct {
		name    string
		c       corev1.Container
		img     Image
		want    []string
		wantErr error
	}{
		{"image defaults", corev1.Container{}, img, []string{"/entry", "cmd-arg"}, nil},
		{"args replace cmd", corev1.Container{Args: []string{"a"}}, img, []string{"/entry", "a"}, nil},
		{"command drops cmd", corev1.Container{Command: []string{"/bin/sh"}}, img, []string{"/bin/sh"}, nil},
		{"expansion", corev1.Container{Command: []string{"echo", "$(GREETING) $(MISSING) $$(GREETING)"}, Args: []string{"[$(EMPTY)]"}}, img,
			[]string{"echo", "hello $(MISSING) $(GREETING)", "[]"}, nil},
		{"empty entrypoint entry ignored", corev1.Container{}, Image{Entrypoint: []string{""}, Cmd: []string{"sh"}}, []string{"sh"}, nil},
		{"windows cmd", corev1.Container{}, Image{Cmd: []string{`c:\windows\system32\cmd.exe`}}, []string{`c:\windows\system32\cmd.exe`}, nil},
		{"nothing", corev1.Container{}, Image{}, nil, ErrNoCommand},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Argv(&tc.c, tc.img, env)
			if err != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestWorkingDir(t *testing.T) {
	cases := []struct {
		c    corev1.Container
		img  Image
		want string
	}{
		{corev1.Container{}, Image{}, "/"},
		{corev1.Container{}, Image{WorkingDir: "/app"}, "/app"},
		{corev1.Container{WorkingDir: "/w"}, Image{WorkingDir: "/app"}, "/w"},
		{corev1.Container{}, Image{Windows: true}, `C:\`},
	}
	for _, tc := range cases {
		if got := WorkingDir(&tc.c, tc.img); got != tc.want {
			t.Errorf("WorkingDir = %q, want %q", got, tc.want)
		}
	}
}
