package facts_test

import (
	"archive/tar"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/winkube/winkube/pkg/imageinfo/facts"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
)

// image is a one-layer random image whose config names p and a default
// process.
func image(t *testing.T, p v1.Platform) v1.Image {
	t.Helper()
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.OSVersion = p.OS, p.Architecture, p.OSVersion
	cfg.Config.Entrypoint = []string{`C:\app\agent.exe`}
	cfg.Config.Cmd = []string{"--serve"}
	cfg.Config.Env = []string{"MODE=prod"}
	cfg.Config.User = "ContainerUser"
	out, err := mutate.ConfigFile(img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// index is an OCI index of one image per platform, with a BuildKit
// attestation entry (unknown/unknown) that is not runnable.
func index(t *testing.T, ps ...v1.Platform) v1.ImageIndex {
	t.Helper()
	var idx v1.ImageIndex = mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range ps {
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: image(t, p), Descriptor: v1.Descriptor{Platform: &p}})
	}
	att := image(t, v1.Platform{OS: "linux", Architecture: "amd64"})
	return mutate.AppendManifests(idx, mutate.IndexAddendum{Add: att, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "unknown", Architecture: "unknown"}}})
}

var (
	win2022 = v1.Platform{OS: "windows", Architecture: "amd64", OSVersion: rt.Version2022}
	win2019 = v1.Platform{OS: "windows", Architecture: "amd64", OSVersion: rt.Version2019}
	linux   = v1.Platform{OS: "linux", Architecture: "amd64"}
)

func platforms(ps ...v1.Platform) []facts.Platform {
	var out []facts.Platform
	for _, p := range ps {
		out = append(out, facts.Platform{OS: p.OS, Architecture: p.Architecture, OSVersion: p.OSVersion})
	}
	return out
}

func importOne(t *testing.T, file, ref string) []facts.Fact {
	t.Helper()
	got, err := facts.Import(file, ref, time.Now())
	if err != nil {
		t.Fatalf("Import(%s): %v", file, err)
	}
	return got
}

// rule: IMG-3 — a docker-archive (docker save) is one single-platform
// image per tag: its config's platform and default process.
func TestImportDockerArchive(t *testing.T) {
	file := filepath.Join(t.TempDir(), "agent.tar")
	tag, err := name.NewTag("registry.example.com/team/agent:0.3")
	if err != nil {
		t.Fatal(err)
	}
	if err := tarball.WriteToFile(file, tag, image(t, win2022)); err != nil {
		t.Fatal(err)
	}
	got := importOne(t, file, "")
	if len(got) != 1 {
		t.Fatalf("facts %+v, want one", got)
	}
	f := got[0]
	if f.Ref != "registry.example.com/team/agent:0.3" || f.Index || !reflect.DeepEqual(f.Platforms, platforms(win2022)) {
		t.Errorf("fact %+v", f)
	}
	if !reflect.DeepEqual(f.Entrypoint, []string{`C:\app\agent.exe`}) || !reflect.DeepEqual(f.Cmd, []string{"--serve"}) ||
		!reflect.DeepEqual(f.Env, []string{"MODE=prod"}) || f.User != "ContainerUser" {
		t.Errorf("process %q %q %q %q", f.Entrypoint, f.Cmd, f.Env, f.User)
	}
	if abs, _ := filepath.Abs(file); f.From != abs {
		t.Errorf("from %q, want %q", f.From, abs)
	}
}

// writeLayout writes idx to an OCI layout directory, named as
// containerd and docker save name it.
func writeLayout(t *testing.T, idx v1.ImageIndex, ref string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "layout")
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"io.containerd.image.name": ref, "org.opencontainers.image.ref.name": "1.0"})); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tarDir packs a directory as a tar, as `docker save` writes a layout.
func tarDir(t *testing.T, dir string) string {
	t.Helper()
	file := dir + ".tar"
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	tw := tar.NewWriter(out)
	if err := tw.AddFS(os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return file
}

// rule: IMG-3 — an OCI layout, as a directory or a tar, gives its index's
// platforms (attestations left out) under the name containerd wrote,
// and under the index's digest.
func TestImportOCILayout(t *testing.T) {
	idx := index(t, linux, win2019, win2022)
	digest, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	dir := writeLayout(t, idx, "ghcr.io/example/web:1.0")
	for _, file := range []string{dir, tarDir(t, dir)} {
		got := importOne(t, file, "")
		if len(got) != 2 {
			t.Fatalf("%s: facts %+v, want the tag and the digest", file, got)
		}
		if got[0].Ref != "ghcr.io/example/web:1.0" || got[1].Ref != "ghcr.io/example/web@"+digest.String() {
			t.Errorf("%s: refs %s, %s", file, got[0].Ref, got[1].Ref)
		}
		for _, f := range got {
			if !f.Index || !reflect.DeepEqual(f.Platforms, platforms(linux, win2019, win2022)) {
				t.Errorf("%s: fact %+v", file, f)
			}
		}
		if got[0].Entrypoint == nil {
			t.Errorf("%s: no entrypoint read from the layout's configs", file)
		}
	}
}

// rule: IMG-3 — the JSON of crane manifest (an index, named with --ref),
// of docker manifest inspect -v (which names the image) and of crane
// config (a single image).
func TestImportJSON(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, v any) string {
		var b []byte
		switch v := v.(type) {
		case []byte:
			b = v
		default:
			var err error
			if b, err = json.MarshalIndent(v, "", "   "); err != nil {
				t.Fatal(err)
			}
		}
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	raw, err := index(t, linux, win2022).RawManifest()
	if err != nil {
		t.Fatal(err)
	}
	crane := write("crane.json", raw)
	got := importOne(t, crane, "ghcr.io/example/web:1.0")
	if got[0].Ref != "ghcr.io/example/web:1.0" || !got[0].Index || !reflect.DeepEqual(got[0].Platforms, platforms(linux, win2022)) {
		t.Errorf("crane manifest: %+v", got[0])
	}

	type entry struct {
		Ref        string
		Descriptor v1.Descriptor
	}
	inspect := write("inspect.json", []entry{
		{Ref: "docker.io/example/agent:2@sha256:" + strings.Repeat("a", 64), Descriptor: v1.Descriptor{MediaType: types.DockerManifestSchema2, Digest: v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("a", 64)}, Platform: &linux}},
		{Ref: "docker.io/example/agent:2@sha256:" + strings.Repeat("b", 64), Descriptor: v1.Descriptor{MediaType: types.DockerManifestSchema2, Digest: v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("b", 64)}, Platform: &win2019}},
	})
	got = importOne(t, inspect, "")
	if got[0].Ref != "docker.io/example/agent:2" || !got[0].Index || !reflect.DeepEqual(got[0].Platforms, platforms(linux, win2019)) {
		t.Errorf("docker manifest inspect -v: %+v", got[0])
	}

	cfg, err := image(t, win2022).RawConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	got = importOne(t, write("config.json", cfg), "agent:0.3")
	if got[0].Ref != "docker.io/library/agent:0.3" || got[0].Index || !reflect.DeepEqual(got[0].Platforms, platforms(win2022)) || got[0].User != "ContainerUser" {
		t.Errorf("crane config: %+v", got[0])
	}
}

// A file that is not an image is one error naming the file and saying
// what it lacks.
func TestImportRejectsWhatIsNotAnImage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	plainTar := filepath.Join(dir, "plain.tar")
	{
		f, _ := os.Create(plainTar)
		tw := tar.NewWriter(f)
		_ = tw.WriteHeader(&tar.Header{Name: "hello.txt", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg})
		_, _ = tw.Write([]byte("hi"))
		_ = tw.Close()
		_ = f.Close()
	}
	raw, err := image(t, linux).RawManifest()
	if err != nil {
		t.Fatal(err)
	}
	emptyDir := filepath.Join(dir, "empty")
	if err := os.Mkdir(emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		file, ref, want string
	}{
		{write("notes.txt", "shopping list\n"), "", "not an image: reading it as a tar"},
		{plainTar, "", "not an image: a tar must hold a docker-archive's manifest.json or an OCI layout's index.json"},
		{emptyDir, "", "not an image: a directory must be an OCI image layout"},
		{write("pod.json", `{"apiVersion":"v1","kind":"Pod"}`), "", "not an image: JSON that is neither"},
		{write("manifest.json", string(raw)), "x:1", "a single image's manifest does not say its platform"},
		{write("index.json", `{"schemaVersion":2,"manifests":[]}`), "x:1", "the index has no entry with a platform"},
		{write("config.json", `{"os":"windows","architecture":"amd64"}`), "", "the JSON names no image; give its name with --ref"},
		{filepath.Join(dir, "absent.tar"), "", "no such file or directory"},
	}
	for _, c := range cases {
		_, err := facts.Import(c.file, c.ref, time.Now())
		if err == nil || !strings.HasPrefix(err.Error(), c.file+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Import(%s): %v, want an error naming the file and %q", filepath.Base(c.file), err, c.want)
		}
	}
}
