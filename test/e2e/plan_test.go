package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
)

// TestPlan runs `winkube plan` as a person with seed 004's inputs would.
func TestPlan(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(winkube, "plan", "--config", "pkg/plan/testdata/seed-overlay.yaml", "--output-dir", out)
	cmd.Dir = repoRoot
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("plan of the seed's inputs: %v\n%s", err, msg)
	}
	// rule: PLAN-1, PLAN-6, NET-2
	for _, want := range []string{"10.244.0.0/16", "10.96.0.0/12", "VNI 4096"} {
		if !strings.Contains(string(msg), want) {
			t.Errorf("plan output lacks %q:\n%s", want, msg)
		}
	}
	for _, f := range []string{"linux/kube-flannel.yaml", "runtimeclasses.yaml", "windows/win-node-1/kubelet-flags.txt", "windows/win-node-2/start-seed.ps1"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("plan --output-dir wrote no %s: %v", f, err)
		}
	}
	// A failing check: exit 1 and the field to change.
	cmd = exec.Command(winkube, "plan", "--config", "pkg/plan/testdata/fail-checks.yaml")
	cmd.Dir = repoRoot
	msg, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(msg), "network.flannel.vni") {
		t.Errorf("plan with failing checks: %v\n%s", err, msg)
	}
	// A file that does not exist: exit 2, one line.
	msg, err = exec.Command(winkube, "plan", "--config", "/nonexistent.yaml").CombinedOutput()
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || strings.Count(strings.TrimSpace(string(msg)), "\n") != 0 {
		t.Errorf("plan of a missing file: %v\n%s", err, msg)
	}
}

// checkDoctor runs `winkube doctor` on the running cluster, which holds
// the deliberately failing example: it must name it (IMG-4) and exit 1.
func checkDoctor(t *testing.T, _ kubernetes.Interface, dir string) {
	t.Helper()
	msg, err := exec.Command(winkube, "doctor", "-o", "json", "--kubeconfig", filepath.Join(dir, "kubeconfig")).Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("doctor: %v, want exit 1\n%s", err, msg)
	}
	var report struct {
		Findings []struct {
			Rule, Severity, Message string
		}
	}
	if err := json.Unmarshal(msg, &report); err != nil {
		t.Fatalf("doctor -o json: %v\n%s", err, msg)
	}
	found := false
	for _, f := range report.Findings {
		// rule: IMG-2 — a build the host cannot run, whatever stage fails
		found = found || (f.Rule == "IMG-2" && f.Severity == "error" && strings.Contains(f.Message, "iis-2022-on-2019"))
		if f.Severity == "error" && f.Rule != "IMG-2" {
			t.Errorf("doctor error on a healthy part of the cluster: %+v", f)
		}
	}
	if !found {
		t.Errorf("doctor did not report the failing example:\n%s", msg)
	}
}
