package cluster

import (
	"context"
	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/windows"
)

// rule: IMG-3 — the config's images section is what the data dir's
// resolver answers, as imported facts are: a single Windows image of the
// 2022 build, which the catalog does not know.
func TestConfigImagesAreStoredFacts(t *testing.T) {
	dir := t.TempDir()
	ltsc2022, _ := windows.ReleaseByName("ltsc2022")
	cfg := v1alpha1.DefaultCluster()
	cfg.Images = []v1alpha1.Image{{Image: "registry.example.com/team/agent:0.3", Single: true,
		Platforms: []v1alpha1.ImagePlatform{{OS: "windows", Architecture: "amd64", OSVersion: ltsc2022.Version().String()}}}}
	if err := storeImages(cfg, dir); err != nil {
		t.Fatal(err)
	}
	r, err := (&registry.Flags{Mode: registry.ModeCatalog, DataDir: dir}).Resolver()
	if err != nil {
		t.Fatal(err)
	}
	a := r.Resolve(context.Background(), imageinfo.Request{Ref: "registry.example.com/team/agent:0.3"})
	if a.Source != imageinfo.SourceImported || a.Image.Index || !a.Image.HasOS("windows") {
		t.Fatalf("answer %s %+v", a.Source, a.Image)
	}
	if b := a.Image.WindowsBuilds(); len(b) != 1 || b[0].Build != ltsc2022.Build {
		t.Errorf("builds %v", b)
	}
}
