package vfs

import (
	"bytes"
	"io/fs"
	"strconv"
	"testing"
)

// A container's writable layer saved and loaded into a new filesystem of
// the same image brings back what it wrote (files, directories, links,
// modes and owners) over the image's files, and nothing of its volumes.
func TestLayerSurvivesSaveAndLoad(t *testing.T) {
	for _, win := range []bool{false, true} {
		build := func() (*FS, *Volume) {
			f := New(Options{Windows: win})
			root := f.Privileged()
			if err := root.MkdirAll(f.Abs("/", "/etc"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, root, f.Abs("/", "/etc/image.conf"), "from the image\n")
			vol := NewVolume()
			if err := root.MkdirAll(f.Abs("/", "/data"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := f.Mount(f.Abs("/", "/data"), vol, "", false); err != nil {
				t.Fatal(err)
			}
			return f, vol
		}
		before, _ := build()
		root := before.Privileged()
		writeFile(t, root, before.Abs("/", "/etc/image.conf"), "changed by the container\n")
		if err := root.MkdirAll(before.Abs("/", "/var/lib/app"), 0o700); err != nil {
			t.Fatal(err)
		}
		writeFile(t, root, before.Abs("/", "/var/lib/app/state"), "42\n")
		if err := root.Chmod(before.Abs("/", "/var/lib/app/state"), 0o600|fs.ModeSetuid); err != nil {
			t.Fatal(err)
		}
		if err := root.Lchown(before.Abs("/", "/var/lib/app/state"), 1000, 1000); err != nil {
			t.Fatal(err)
		}
		if !win {
			if err := root.Symlink("/var/lib/app/state", "/state"); err != nil {
				t.Fatal(err)
			}
		}
		writeFile(t, root, before.Abs("/", "/data/in-volume"), "volume\n")
		var layer bytes.Buffer
		if err := before.SaveLayer(&layer); err != nil {
			t.Fatal(err)
		}

		after, vol := build()
		if err := after.LoadLayer(bytes.NewReader(layer.Bytes())); err != nil {
			t.Fatal(err)
		}
		ar := after.Privileged()
		if got := readFile(t, ar, after.Abs("/", "/etc/image.conf")); got != "changed by the container\n" {
			t.Errorf("windows=%v: image.conf %q", win, got)
		}
		if got := readFile(t, ar, after.Abs("/", "/var/lib/app/state")); got != "42\n" {
			t.Errorf("windows=%v: state %q", win, got)
		}
		st, err := ar.Stat(after.Abs("/", "/var/lib/app/state"))
		if err != nil {
			t.Fatal(err)
		}
		// Windows shows no POSIX modes; the owner is kept on both.
		if (!win && st.Mode() != 0o600|fs.ModeSetuid) || st.Sys().(owner).uid != 1000 {
			t.Errorf("windows=%v: state mode %v owner %+v", win, st.Mode(), st.Sys())
		}
		if !win {
			if target, err := ar.Readlink("/state"); err != nil || target != "/var/lib/app/state" {
				t.Errorf("symlink %q %v", target, err)
			}
		}
		if _, err := vol.FS().Stat("/in-volume"); err == nil {
			t.Errorf("windows=%v: the volume's file came back through the layer", win)
		}
	}
}

// What a stop costs per container that wrote: saving a layer of 1000
// files of 1 KiB, and loading it back at the adoption.
func BenchmarkLayer(b *testing.B) {
	f := New(Options{})
	root := f.Privileged()
	data := bytes.Repeat([]byte("x"), 1024)
	for i := 0; i < 1000; i++ {
		dir := "/var/app/" + string(rune('a'+i%26))
		if err := root.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		writeFile(b, root, dir+"/f"+strconv.Itoa(i), string(data))
	}
	var layer bytes.Buffer
	b.Run("save", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			layer.Reset()
			if err := f.SaveLayer(&layer); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := New(Options{}).LoadLayer(bytes.NewReader(layer.Bytes())); err != nil {
				b.Fatal(err)
			}
		}
	})
}
