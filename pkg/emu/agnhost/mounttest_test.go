package agnhost

import (
	"context"
	"io/fs"
	"strings"
	"testing"
)

func TestMounttest(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		types map[string]string
		code  int
		out   string
	}{
		{
			name: "configmap content",
			args: []string{"--file_content=/etc/configmap-volume/data-1"},
			out:  "content of file \"/etc/configmap-volume/data-1\": value-1\n",
		},
		{
			name:  "emptydir tmpfs, new file 0660",
			args:  []string{"--fs_type=/test-volume", "--new_file_0660=/test-volume/test-file", "--file_perm=/test-volume/test-file"},
			types: map[string]string{"/test-volume": "tmpfs"},
			out: "mount type of \"/test-volume\": tmpfs\n" +
				"content of file \"/test-volume/test-file\": mount-tester new file\n\n" +
				"perms of file \"/test-volume/test-file\": -rw-rw----\n",
		},
		{
			name: "disk is a magic number",
			args: []string{"--fs_type=/test-volume"},
			out:  "mount type of \"/test-volume\": 2035054128\n",
		},
		{
			name: "directory mode, perms and owner",
			args: []string{"--file_mode=/test-volume", "--file_perm=/test-volume", "--file_owner=/test-volume"},
			out: "mode of file \"/test-volume\": dgtrwxrwxrwx\n" +
				"perms of file \"/test-volume\": -rwxrwxrwx\n" +
				"owner UID of \"/test-volume\": 0\n" +
				"owner GID of \"/test-volume\": 0\n",
		},
		{
			name: "downward api mode",
			args: []string{"--file_mode=/etc/podinfo/podname"},
			out:  "mode of file \"/etc/podinfo/podname\": -r--------\n",
		},
		{
			name: "missing files",
			args: []string{"--fs-type=/nope", "--file_mode=/nope", "--file_owner=/nope", "--file_content=/nope"},
			code: 1,
			out: "error from statfs(\"/nope\"): no such file or directory\n" +
				"error from Stat(\"/nope\"): stat /nope: no such file or directory\n" +
				"error from stat(\"/nope\"): no such file or directory\n" +
				"error reading file content for \"/nope\": open /nope: no such file or directory\n",
		},
		{
			name: "new file in a missing directory",
			args: []string{"--new_file_0644=/missing/f"},
			code: 1,
			out:  "error writing new file \"/missing/f\": open /missing/f: no such file or directory\n",
		},
		{
			name: "loop until expected content",
			args: []string{"--file_content_in_loop=/test-volume/expected", "--retry_time=10"},
			out:  "content of file \"/test-volume/expected\": mount-tester new file\n\n",
		},
		{
			name: "loop without breaking reads every 2s",
			args: []string{"--file_content_in_loop=/etc/configmap-volume/data-1", "--retry_time=6", "--break_on_expected_content=false"},
			out:  strings.Repeat("content of file \"/etc/configmap-volume/data-1\": value-1\n", 3),
		},
		{
			name: "loop on a missing file fails",
			args: []string{"--file_content_in_loop=/nope", "--retry_time=3"},
			code: 1,
			out:  strings.Repeat("Error reading file /nope: open /nope: no such file or directory, retrying\n", 2),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := newMemFS().
				add("/etc/configmap-volume/data-1", "value-1", 0o644).
				add("/etc/podinfo/podname", "pod-1", 0o400).
				add("/test-volume", "", fs.ModeDir|fs.ModeSetgid|fs.ModeSticky|0o777).
				add("/test-volume/expected", initialContent, 0o644)
			fsys.types = tt.types
			e := newEnv(fsys, append([]string{"/agnhost", "mounttest"}, tt.args...)...)
			if code := e.run(t, context.Background()); code != tt.code {
				t.Errorf("status %d, want %d", code, tt.code)
			}
			if e.stdout.String() != tt.out {
				t.Errorf("stdout\n%q\nwant\n%q", e.stdout, tt.out)
			}
		})
	}
}
