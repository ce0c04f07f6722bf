package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

func runPlan(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := NewCommand(cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&errOut)
	err := c.Execute()
	var exit *cmd.ExitError
	switch {
	case errors.As(err, &exit):
		if exit.Err != nil {
			errOut.WriteString(exit.Err.Error() + "\n")
		}
		return out.String(), errOut.String(), exit.Code
	case err != nil:
		return out.String(), err.Error(), -1
	}
	return out.String(), errOut.String(), 0
}

const testdata = "../../../plan/testdata/"

// rule: PLAN-1, NET-2
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"default cluster", nil, 0, "0 of 9 checks failed"},
		{"seed writes files", []string{"--config", testdata + "seed-overlay.yaml", "--output-dir", dir}, 0, "wrote 24 files"},
		{"failing checks", []string{"--config", testdata + "fail-checks.yaml", "--output-dir", filepath.Join(dir, "never")}, 1, "network.flannel.vni: Invalid value: 4097"},
		{"old -o DIR still writes, with a warning", []string{"--config", testdata + "seed-overlay.yaml", "-o", filepath.Join(dir, "old")}, 0, "write the files with --output-dir"},
		{"input errors", []string{"--config", testdata + "bad-input.yaml"}, 2, "kubernetesVersion: Invalid value"},
		{"missing file", []string{"--config", testdata + "missing.yaml"}, 2, "missing.yaml"},
		{"bad format", []string{"-o", "yaml"}, 2, "--output \"yaml\""},
		{"old --format still works, with a warning", []string{"--format", "yaml"}, 2, "--format is deprecated"},
		{"extra argument", []string{"cluster.yaml"}, 2, "--config"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runPlan(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			if !strings.Contains(out+errOut, tc.want) {
				t.Errorf("output lacks %q:\n%s%s", tc.want, out, errOut)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "never")); !os.IsNotExist(err) {
		t.Errorf("a failing plan wrote files: %v", err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "old")} {
		if _, err := os.Stat(filepath.Join(d, "windows", "win-node-1", "start-seed.ps1")); err != nil {
			t.Errorf("seed plan did not write start-seed.ps1 to %s: %v", d, err)
		}
	}
}

func TestJSON(t *testing.T) {
	out, _, code := runPlan(t, "--config", testdata+"fail-checks.yaml", "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var got struct {
		Capacity struct {
			Required int64 `json:"requiredAddresses"`
		} `json:"capacity"`
		Checks []struct {
			Rule string `json:"rule"`
			Pass bool   `json:"pass"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// rule: PLAN-1 (5 nodes × 100 pods → 505)
	if got.Capacity.Required != 505 {
		t.Errorf("required addresses = %d, want 505", got.Capacity.Required)
	}
	failedRules := map[string]bool{}
	for _, c := range got.Checks {
		if !c.Pass {
			failedRules[c.Rule] = true
		}
	}
	for _, r := range []string{"PLAN-1", "NET-2", "VER-1"} {
		if !failedRules[r] {
			t.Errorf("%s did not fail: %+v", r, got.Checks)
		}
	}
}
