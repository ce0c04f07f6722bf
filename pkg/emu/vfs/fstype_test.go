package vfs

import "testing"

func TestMountType(t *testing.T) {
	f := New(Options{})
	mustOK(t, f.Mount("/mem", NewVolumeWith(VolumeOptions{Memory: true}), "", false))
	mustOK(t, f.Mount("/disk", NewVolume(), "", false))
	mustOK(t, f.Mount("/mem-sub", NewVolumeWith(VolumeOptions{Memory: true}), "a/b", false))
	writeFile(t, f, "/mem/file", "x")
	mustOK(t, f.Symlink("/mem", "/to-mem"))
	tests := []struct{ name, want string }{
		{"/mem", Tmpfs},
		{"/mem/file", Tmpfs},
		{"/mem-sub", Tmpfs},
		{"/to-mem", Tmpfs},
		{"/disk", ""},
		{"/", ""},
		{"/missing", ""},
	}
	for _, tt := range tests {
		if got := f.MountType(tt.name); got != tt.want {
			t.Errorf("MountType(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
