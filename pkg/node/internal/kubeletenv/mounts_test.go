package kubeletenv

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestMounts(t *testing.T) {
	vols := []corev1.Volume{
		{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
		{Name: "mem", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
	}
	env := []string{"POD_NAME=pod-1", "ANNOTATION=mount", "DOTS=..", "ABS=/tmp", "WINABS=C:\\Users", "EMPTY="}
	cases := []struct {
		name    string
		mounts  []corev1.VolumeMount
		windows bool
		want    []Mount
		wantErr string
	}{
		{name: "plain and subpaths", mounts: []corev1.VolumeMount{
			{Name: "work", MountPath: "/logscontainer", SubPathExpr: "$(ANNOTATION)/$(POD_NAME)"},
			{Name: "cfg", MountPath: "/etc/cfg"},
			{Name: "mem", MountPath: "data", SubPath: "x/y", ReadOnly: true},
		}, want: []Mount{
			{Volume: "work", Kind: KindEmptyDir, Path: "/logscontainer", SubPath: "mount/pod-1"},
			{Volume: "cfg", Kind: KindConfigMap, Path: "/etc/cfg", ReadOnly: true},
			{Volume: "mem", Kind: KindEmptyDirMemory, Path: "/data", SubPath: "x/y", ReadOnly: true},
		}},
		{name: "backsteps", mounts: []corev1.VolumeMount{{Name: "work", MountPath: "/l", SubPathExpr: "$(DOTS)"}},
			wantErr: "unable to provision SubPath `..`: must not contain '..'"},
		{name: "absolute", mounts: []corev1.VolumeMount{{Name: "work", MountPath: "/l", SubPathExpr: "$(ABS)"}},
			wantErr: "error SubPath `/tmp` must not be an absolute path"},
		{name: "absolute windows", windows: true, mounts: []corev1.VolumeMount{{Name: "work", MountPath: `C:\l`, SubPathExpr: "$(WINABS)"}},
			wantErr: "error SubPath `C:\\Users` must not be an absolute path"},
		{name: "windows backsteps", windows: true, mounts: []corev1.VolumeMount{{Name: "work", MountPath: `C:\l`, SubPath: `a\..\b`}},
			wantErr: "unable to provision SubPath `a\\..\\b`: must not contain '..'"},
		{name: "missing variable", mounts: []corev1.VolumeMount{{Name: "work", MountPath: "/l", SubPathExpr: "$(NOPE)/$(EMPTY)"}},
			wantErr: "missing value for EMPTY, NOPE"},
		{name: "unknown volume", mounts: []corev1.VolumeMount{{Name: "ghost", MountPath: "/g"}},
			wantErr: `cannot find volume "ghost" to mount into container "c"`},
		{name: "windows paths", windows: true, mounts: []corev1.VolumeMount{
			{Name: "work", MountPath: `C:\data`}, {Name: "work", MountPath: "/data"}, {Name: "work", MountPath: "data"}, {Name: "work", MountPath: `\\server\share`},
		}, want: []Mount{
			{Volume: "work", Kind: KindEmptyDir, Path: `C:\data`},
			{Volume: "work", Kind: KindEmptyDir, Path: "/data"},
			{Volume: "work", Kind: KindEmptyDir, Path: `c:\data`},
			{Volume: "work", Kind: KindEmptyDir, Path: `\\server\share`},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := testPod(corev1.Container{Name: "c", VolumeMounts: tc.mounts})
			pod.Spec.Volumes = vols
			got, err := Mounts(pod, &pod.Spec.Containers[0], env, tc.windows)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v (%v)\nwant %+v", got, err, tc.want)
			}
		})
	}
}

func TestManagedFiles(t *testing.T) {
	pod := testPod(corev1.Container{Name: "c", TerminationMessagePath: "/dev/termination-log"})
	pod.Spec.Hostname, pod.Spec.Subdomain = "web-0", "web"
	pod.Spec.DNSPolicy = corev1.DNSClusterFirst
	files, err := ManagedFiles(context.Background(), pod, &pod.Spec.Containers[0], testNode(), []string{"10.244.0.7"})
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]ManagedFile{}
	for _, f := range files {
		byPath[f.Path] = f
	}
	if len(files) != 4 {
		t.Fatalf("files %+v", files)
	}
	if h := string(byPath["/etc/hosts"].Data); !contains(splitLines(h), "10.244.0.7\tweb-0.web.ns1.svc.cluster.local\tweb-0") {
		t.Errorf("hosts:\n%s", h)
	}
	if got := string(byPath["/etc/hostname"].Data); got != "web-0\n" {
		t.Errorf("hostname %q", got)
	}
	if tl := byPath["/dev/termination-log"]; tl.Mode != 0666 || len(tl.Data) != 0 || tl.ReadOnly {
		t.Errorf("termination log %+v", tl)
	}

	// No pod IP yet: no hosts file. A volume on /etc/resolv.conf replaces
	// the runtime's.
	c := corev1.Container{Name: "c", VolumeMounts: []corev1.VolumeMount{{Name: "v", MountPath: "/etc/resolv.conf"}}}
	pod = testPod(c)
	files, _ = ManagedFiles(context.Background(), pod, &pod.Spec.Containers[0], testNode(), nil)
	if len(files) != 1 || files[0].Path != "/etc/hostname" {
		t.Errorf("files %+v", files)
	}

	// Windows: the hosts file at its Windows path, nothing else but the
	// termination log.
	node := testNode()
	node.Windows = true
	pod = testPod(corev1.Container{Name: "c", TerminationMessagePath: "/dev/termination-log"})
	files, _ = ManagedFiles(context.Background(), pod, &pod.Spec.Containers[0], node, []string{"10.244.0.8"})
	if len(files) != 2 || files[0].Path != WindowsHostsPath || files[1].Path != "c:/dev/termination-log" {
		t.Errorf("windows files %+v", files)
	}

	// hostNetwork: the node's hosts file under the host-network header.
	pod = testPod(corev1.Container{Name: "c"})
	pod.Spec.HostNetwork = true
	pod.Spec.HostAliases = []corev1.HostAlias{{IP: "1.2.3.4", Hostnames: []string{"a"}}}
	node = testNode()
	node.HostsFile = []byte("127.0.0.1\tlocalhost\n")
	files, _ = ManagedFiles(context.Background(), pod, &pod.Spec.Containers[0], node, nil)
	want := "# Kubernetes-managed hosts file (host network).\n127.0.0.1\tlocalhost\n\n# Entries added by HostAliases.\n1.2.3.4\ta\n"
	if string(files[0].Data) != want || string(files[1].Data) != "node-1\n" {
		t.Errorf("host network files %+v", files)
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}
