package lint

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/manifest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// lintFiles loads paths and lints them against the cluster in clusterFile
// ("" = the default cluster), optionally at another Kubernetes minor.
func lintFiles(t testing.TB, clusterFile string, minor int, paths ...string) *Result {
	t.Helper()
	c, err := v1alpha1.Load(clusterFile)
	if err != nil {
		t.Fatalf("loading cluster %q: %v", clusterFile, err)
	}
	if minor == 0 {
		minor = kubeversion.DefaultMinor
	}
	target, err := TargetFromClusterAt(c, minor)
	if err != nil {
		t.Fatal(err)
	}
	objs, errs := manifest.Load(paths, manifest.Options{})
	if len(errs) > 0 {
		t.Fatalf("loading %v: %v", paths, errs)
	}
	return New(target).Lint(objs)
}

func rulesOf(r *Result) map[string]int {
	out := map[string]int{}
	for _, f := range r.Findings {
		out[f.Rule]++
	}
	return out
}

// ruleCase proves one rule: bad breaks it, good follows it.
type ruleCase struct {
	rule    string
	bad     string
	good    string
	cluster string // testdata/clusters/<name>.yaml; "" = default cluster
	minor   int
}

func TestRules(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.rule+"/"+tc.bad, func(t *testing.T) {
			cluster := ""
			if tc.cluster != "" {
				cluster = filepath.Join("testdata", "clusters", tc.cluster+".yaml")
			}
			bad := lintFiles(t, cluster, tc.minor, filepath.Join("testdata", "rules", tc.bad))
			if rulesOf(bad)[tc.rule] == 0 {
				t.Errorf("%s: %s did not fire; findings:\n%s", tc.bad, tc.rule, dump(bad))
			}
			good := lintFiles(t, cluster, tc.minor, filepath.Join("testdata", "rules", tc.good))
			if n := rulesOf(good)[tc.rule]; n != 0 {
				t.Errorf("%s: %s fired %d times; findings:\n%s", tc.good, tc.rule, n, dump(good))
			}
		})
	}
}

func dump(r *Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.Rule + " " + f.Severity.String() + " " + f.Object() + ": " + f.Message + " (fix: " + f.Fix + ")\n")
	}
	for _, e := range r.Errors {
		b.WriteString(e.Error() + "\n")
	}
	return b.String()
}

// TestGolden lints each testdata/golden/*.yaml against the default cluster
// and compares the findings, edits and input errors as JSON with the
// .golden file.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.yaml"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := lintFiles(t, "", 0, f)
			var errs []string
			for _, e := range r.Errors {
				errs = append(errs, e.Error())
			}
			got, err := json.MarshalIndent(struct {
				Findings []Finding
				Edits    []Edit
				Errors   []string `json:",omitempty"`
			}{r.Findings, r.Edits, errs}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(bytes.TrimSpace(want), bytes.TrimSpace(got)) {
				t.Errorf("%s differs from %s (go test -update rewrites it):\n%s", f, golden, got)
			}
		})
	}
}
