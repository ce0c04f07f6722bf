package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/windows"
)

// validate checks values against the chart's schema as `helm install`
// does before it renders anything.
func validate(t *testing.T, values map[string]any) error {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := chartutil.CoalesceValues(chrt, values)
	if err != nil {
		t.Fatal(err)
	}
	return chartutil.ValidateAgainstSchema(chrt, vals)
}

func pools(ps ...map[string]any) map[string]any {
	list := make([]any, len(ps))
	for i, p := range ps {
		list[i] = p
	}
	return map[string]any{"nodePools": list}
}

// A value that is not a valid pool is refused at install, naming the
// field; what v1alpha1 accepts, the schema accepts.
func TestSchemaRefusesInvalidPools(t *testing.T) {
	bad := map[string]map[string]any{
		"unknown os":           {"name": "mac", "os": "darwin"},
		"no os":                {"name": "x"},
		"name not a DNS label": {"name": "Win_2019", "os": "linux"},
		"windows, no release":  {"name": "w", "os": "windows"},
		"release and build":    {"name": "w", "os": "windows", "release": "2019", "build": "10.0.17763"},
		"linux with release":   {"name": "l", "os": "linux", "release": "2019"},
		"unknown release":      {"name": "w", "os": "windows", "release": "2077"},
		"negative count":       {"name": "l", "os": "linux", "count": -1},
		"typo field":           {"name": "l", "os": "linux", "cout": 2},
		"bad runtime":          {"name": "l", "os": "linux", "runtime": "cri-o"},
		"bad taint effect":     {"name": "l", "os": "linux", "taints": []any{map[string]any{"key": "a", "effect": "Never"}}},
		"bad memory":           {"name": "l", "os": "linux", "memory": "lots"},
	}
	for what, pool := range bad {
		err := validate(t, pools(pool))
		if err == nil {
			t.Errorf("%s: accepted %v", what, pool)
			continue
		}
		if !strings.Contains(err.Error(), "nodePools") {
			t.Errorf("%s: error does not name nodePools: %v", what, err)
		}
	}
	if err := validate(t, map[string]any{"nodePools": []any{}}); err == nil {
		t.Error("no pools accepted")
	}
	if err := validate(t, map[string]any{"replicas": -1}); err == nil {
		t.Error("replicas -1 accepted")
	}
}

// Everything a winkube cluster config's pools may hold passes the schema:
// the default pools after defaulting (every field set), and the examples.
func TestSchemaAcceptsConfigPools(t *testing.T) {
	opts := Options{Pools: v1alpha1.DefaultCluster().NodePools}
	v, err := opts.Values()
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, v); err != nil {
		t.Errorf("defaulted pools refused: %v", err)
	}
	root := filepath.Join("..", "..", "..")
	var files []string
	for _, g := range []string{"pkg/apis/config/v1alpha1/testdata/valid-*.yaml", "pkg/plan/testdata/*.yaml", "test/e2e/testdata/*.yaml"} {
		m, _ := filepath.Glob(filepath.Join(root, g))
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if !strings.Contains(string(data), "nodePools:") {
			continue
		}
		ps, err := LoadPools(f)
		if err != nil || ps == nil {
			continue // not a config the agent would run
		}
		v, err := Options{Pools: ps}.Values()
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, v); err != nil {
			t.Errorf("%s: refused: %v", f, err)
		}
		checked++
	}
	if checked < 3 {
		t.Errorf("checked %d config files, want the repository's valid ones", checked)
	}
}

// The schema's release pattern names every release winkube knows, by each
// of its names and its build, and nothing else.
func TestSchemaReleasesAreTheRuleBook(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Definitions struct {
			NodePool struct {
				Properties struct {
					Release struct{ Pattern string }
				}
			} `json:"nodePool"`
		}
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	var names, builds []string
	for _, r := range windows.Releases() {
		names = append(names, r.Names...)
		builds = append(builds, strconv.Itoa(r.Build))
	}
	want := `^(?i:` + strings.Join(names, "|") + `|(10\.0\.)?(` + strings.Join(builds, "|") + `))$`
	if got := schema.Definitions.NodePool.Properties.Release.Pattern; got != want {
		t.Fatalf("values.schema.json release pattern\n got %s\nwant %s", got, want)
	}
	re := regexp.MustCompile(want)
	for _, n := range append(names, "LTSC2022", "10.0.20348") {
		if _, ok := windows.ReleaseByName(n); !ok || !re.MatchString(n) {
			t.Errorf("release %q: rule book %v, schema %v", n, ok, re.MatchString(n))
		}
	}
}
