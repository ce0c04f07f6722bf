package imageinfo

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/winkube/winkube/pkg/windows"
)

// recorded is testdata/recorded-answers.json.
type recorded struct {
	Answers []struct {
		Ref       string
		Source    string
		Index     bool
		Platforms []struct {
			OS           string `json:"os"`
			Architecture string `json:"architecture"`
			OSVersion    string `json:"os.version"`
		}
	}
}

// platformKey is what a platform claim is compared by: os, architecture
// and, for Windows, the build (the UBR changes every month).
func platformKey(os, arch, version string) string {
	k := os + "/" + arch
	if b, err := windows.ParseBuild(version); err == nil {
		k += ":" + b.Label()
	}
	return k
}

// rule: IMG-3 — no catalog entry claims a platform its image lacks: every
// platform the catalog gives a recorded image is in the registry's
// answer, and the catalog says index or single as the registry does.
func TestCatalogAgreesWithRecordedAnswers(t *testing.T) {
	b, err := os.ReadFile("testdata/recorded-answers.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec recorded
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for _, a := range rec.Answers {
		has := map[string]bool{}
		for _, p := range a.Platforms {
			has[platformKey(p.OS, p.Architecture, p.OSVersion)] = true
		}
		img := Lookup(a.Ref)
		if !img.Cataloged || !img.Known {
			t.Errorf("%s: the catalog does not know it (Cataloged=%v Known=%v)", a.Ref, img.Cataloged, img.Known)
			continue
		}
		for _, p := range img.Platforms {
			if k := platformKey(p.OS, p.Architecture, p.OSVersion); !has[k] {
				t.Errorf("%s: the catalog claims %s, which the image lacks (%s)", a.Ref, k, a.Source)
			}
		}
		if img.Index != a.Index {
			t.Errorf("%s: the catalog says index=%v, the registry %v", a.Ref, img.Index, a.Index)
		}
	}
}
