package kubeletenv

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestContainerIdentity(t *testing.T) {
	policyStrict := corev1.SupplementalGroupsPolicyStrict
	cases := []struct {
		name    string
		podSC   *corev1.PodSecurityContext
		ctrSC   *corev1.SecurityContext
		img     Image
		want    Identity
		wantErr string
	}{
		{name: "root default", want: Identity{UID: 0, GID: 0, Groups: []int64{0, 10}, Name: "root", GroupName: "root", GroupNames: []string{"root", "wheel"}, Home: "/root"}},
		{name: "strict policy drops image groups", podSC: &corev1.PodSecurityContext{SupplementalGroupsPolicy: &policyStrict},
			want: Identity{Groups: []int64{0}, Name: "root", GroupName: "root", GroupNames: []string{"root"}, Home: "/root"}},
		{name: "runAs user group fsGroup supplemental",
			podSC: &corev1.PodSecurityContext{RunAsUser: ptr[int64](1001), RunAsGroup: ptr[int64](2002), FSGroup: ptr[int64](3000), SupplementalGroups: []int64{4000}},
			want:  Identity{UID: 1001, GID: 2002, Groups: []int64{2002, 3000, 4000}, GroupNames: []string{"", "", ""}, Home: "/"}},
		{name: "container overrides pod", podSC: &corev1.PodSecurityContext{RunAsUser: ptr[int64](1001)}, ctrSC: &corev1.SecurityContext{RunAsUser: ptr[int64](65534)},
			want: Identity{UID: 65534, GID: 65534, Groups: []int64{65534}, Name: "nobody", GroupName: "nogroup", GroupNames: []string{"nogroup"}, Home: "/home"}},
		{name: "unknown uid gets gid 0", ctrSC: &corev1.SecurityContext{RunAsUser: ptr[int64](1000)},
			want: Identity{UID: 1000, GID: 0, Groups: []int64{0}, GroupName: "root", GroupNames: []string{"root"}, Home: "/"}},
		{name: "image user name", img: Image{User: "nobody"},
			want: Identity{UID: 65534, GID: 65534, Groups: []int64{65534}, Name: "nobody", GroupName: "nogroup", GroupNames: []string{"nogroup"}, Home: "/home"}},
		{name: "image uid:gid keeps only the uid", img: Image{User: "1000:1000"},
			want: Identity{UID: 1000, GID: 0, Groups: []int64{0}, GroupName: "root", GroupNames: []string{"root"}, Home: "/"}},
		{name: "image name with runAsGroup", img: Image{User: "daemon"}, podSC: &corev1.PodSecurityContext{RunAsGroup: ptr[int64](8)},
			want: Identity{UID: 1, GID: 8, Groups: []int64{8}, Name: "daemon", GroupName: "mail", GroupNames: []string{"mail"}, Home: "/usr/sbin"}},
		{name: "unknown image user", img: Image{User: "app"}, wantErr: "no users found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: tc.podSC, Containers: []corev1.Container{{Name: "c", SecurityContext: tc.ctrSC}}}}
			got, err := ContainerIdentity(pod, &pod.Spec.Containers[0], tc.img, false)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err %v want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestWindowsIdentity(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	cases := []struct {
		podUser, ctrUser *string
		img              Image
		want             string
	}{
		{want: "ContainerAdministrator"},
		{img: Image{User: "ContainerUser"}, want: "ContainerUser"},
		{podUser: ptr("ContainerUser"), img: Image{User: "x"}, want: "ContainerUser"},
		{podUser: ptr("ContainerUser"), ctrUser: ptr(`NT AUTHORITY\SYSTEM`), want: `NT AUTHORITY\SYSTEM`},
	}
	for _, tc := range cases {
		p := pod.DeepCopy()
		if tc.podUser != nil {
			p.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: tc.podUser}}
		}
		if tc.ctrUser != nil {
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: tc.ctrUser}}
		}
		got, err := ContainerIdentity(p, &p.Spec.Containers[0], tc.img, true)
		if err != nil || got.Account != tc.want {
			t.Errorf("account %q (%v), want %q", got.Account, err, tc.want)
		}
	}
}
