package agnhost

import (
	"context"
	"testing"

	"github.com/winkube/winkube/pkg/emu/vfs"
)

// TestMounttestMedium runs mounttest on the emulated container
// filesystem, as e2e's emptyDir tests do, for each medium and OS.
func TestMounttestMedium(t *testing.T) {
	const file = "/test-volume/test-file"
	args := []string{"--fs_type=/test-volume", "--new_file_0644=" + file, "--file_perm=" + file}
	tests := []struct {
		name    string
		windows bool
		memory  bool
		extra   []string
		out     string
	}{
		{
			name:   "linux memory",
			memory: true,
			out: "mount type of \"/test-volume\": tmpfs\n" +
				"content of file \"/test-volume/test-file\": mount-tester new file\n\n" +
				"perms of file \"/test-volume/test-file\": -rw-r--r--\n",
		},
		{
			name: "linux disk",
			out: "mount type of \"/test-volume\": 61267\n" +
				"content of file \"/test-volume/test-file\": mount-tester new file\n\n" +
				"perms of file \"/test-volume/test-file\": -rw-r--r--\n",
		},
		{
			name:    "windows disk",
			windows: true,
			out: "content of file \"/test-volume/test-file\": mount-tester new file\n\n" +
				"perms of Windows file \"/test-volume/test-file\": -rwxrwxr-x\n",
		},
		{
			// rule: LIM-4
			// Windows has no RAM-backed file system: the Windows tool
			// prints no mount type whatever backs the volume.
			name:    "windows memory",
			windows: true,
			memory:  true,
			out: "content of file \"/test-volume/test-file\": mount-tester new file\n\n" +
				"perms of Windows file \"/test-volume/test-file\": -rwxrwxr-x\n",
		},
		{
			name:    "windows default mode of a kubelet file",
			windows: true,
			extra:   []string{"--file_mode=" + file},
			out: "content of file \"/test-volume/test-file\": mount-tester new file\n\n" +
				"mode of Windows file \"/test-volume/test-file\": -rwxrwxr-x\n" +
				"perms of Windows file \"/test-volume/test-file\": -rwxrwxr-x\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := vfs.New(vfs.Options{Windows: tt.windows, Umask: vfs.NoUmask})
			v := vfs.NewVolumeWith(vfs.VolumeOptions{Memory: tt.memory})
			if err := f.Mount(f.Abs("/", "/test-volume"), v, "", false); err != nil {
				t.Fatal(err)
			}
			e := newEnv(f, append(append([]string{"/agnhost", "mounttest"}, args...), tt.extra...)...)
			e.p.Sys.Windows = tt.windows
			e.p.Dir = f.Abs("/", "/")
			if code := e.run(t, context.Background()); code != 0 {
				t.Errorf("status %d; stdout %q", code, e.stdout)
			}
			if e.stdout.String() != tt.out {
				t.Errorf("stdout\n%q\nwant\n%q", e.stdout, tt.out)
			}
		})
	}
}
