package atomicwrite

import (
	"io"
	"os"
	"testing"

	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
)

func files(ts string, kv ...string) kubeletenv.Files {
	f := kubeletenv.Files{TimestampDir: ts, DirMode: 0o755}
	for i := 0; i < len(kv); i += 2 {
		f.Entries = append(f.Entries, kubeletenv.File{Path: kv[i], Data: []byte(kv[i+1]), Mode: 0o644})
		f.Top = append(f.Top, kv[i])
	}
	return f
}

func names(t *testing.T, v *vfs.Volume) map[string]bool {
	t.Helper()
	entries, err := v.FS().ReadDir("/")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out
}

// An update swaps ..data to a new timestamped directory, adds and removes
// the top-level links and removes the old directory; the same payload
// writes nothing; on Windows ..data is removed and made again.
func TestUpdate(t *testing.T) {
	for _, windows := range []bool{false, true} {
		v := vfs.NewVolume()
		first := files("..2026_11_27_10_00_00.1", "a", "1", "b", "2")
		Write(v, first)
		if Update(v, first, files("..2026_11_27_10_01_00.2", "a", "1", "b", "2"), windows) {
			t.Errorf("windows=%v: an unchanged payload was written again", windows)
		}
		second := files("..2026_11_27_10_02_00.3", "a", "changed", "c", "3")
		if !Update(v, first, second, windows) {
			t.Fatalf("windows=%v: a changed payload was not written", windows)
		}
		got := names(t, v)
		want := map[string]bool{"..data": true, "..2026_11_27_10_02_00.3": true, "a": true, "c": true}
		if len(got) != len(want) {
			t.Errorf("windows=%v: volume root holds %v, want %v", windows, got, want)
		}
		for n := range want {
			if !got[n] {
				t.Errorf("windows=%v: %s missing from %v", windows, n, got)
			}
		}
		data, err := readFile(v, "/a")
		if err != nil || string(data) != "changed" {
			t.Errorf("windows=%v: a reads %q, %v", windows, data, err)
		}
		if target, _ := v.FS().Readlink("/..data"); target != "..2026_11_27_10_02_00.3" {
			t.Errorf("windows=%v: ..data -> %q", windows, target)
		}
	}
}

func readFile(v *vfs.Volume, name string) ([]byte, error) {
	f, err := v.FS().OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
