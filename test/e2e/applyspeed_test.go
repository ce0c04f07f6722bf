package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUpApplyManyObjects applies 1,000 ConfigMaps and a Job with `up
// --apply`: one progress line per 1,000 objects (the output is not a
// terminal), a summary instead of a line per object, the Job's pod among
// where the pods landed; `kubectl apply -f` of the same files finds every
// object unchanged; then, with the cluster stopped, net says it is not
// running and how to start it.
func TestUpApplyManyObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a whole cluster")
	}
	in := t.TempDir()
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d}\ndata: {i: \"%d\"}\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(in, "cms.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// kubectl is built before the cluster starts: a build of minutes
	// beside a running cluster on a small machine starves both.
	kubectlBin := buildKubectl(t)
	dir := t.TempDir()
	up := startUp(t, "--data-dir", dir, "--port", "0", "--apply", in, "--apply", "examples/windows-job.yaml")
	out := up.output()
	t.Logf("winkube up:\n%s", out)
	for _, want := range []string{
		"Applying 1001 objects from ",
		"   applying: 1000/1001 objects\n",
		" ✓ 1001 objects applied in ",
		": 1000 ConfigMap, 1 Job\n",
		"  Job/win-batch: 1 pod: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "configmaps/cm-") {
		t.Error("a line per applied object")
	}
	// The objects are left as `kubectl apply` leaves them: kubectl's
	// client-side apply of the same files changes nothing.
	kubectl := exec.Command(kubectlBin, "--kubeconfig", filepath.Join(dir, "kubeconfig"),
		"apply", "-f", in, "-f", "examples/windows-job.yaml")
	kubectl.Dir = repoRoot
	applied, err := kubectl.CombinedOutput()
	if n := strings.Count(string(applied), " unchanged\n"); err != nil || n != 1001 {
		t.Errorf("kubectl apply -f of the same files: %v, %d of 1001 objects unchanged:\n%.2000s", err, n, applied)
	}
	up.stop(t, syscall.SIGINT)

	msg, err := exec.Command(winkube, "net", "hns", "win2019-1", "--data-dir", dir).CombinedOutput()
	want := "the cluster is not running (nothing answers at https://127.0.0.1:"
	if code := exitCode(err); code != 2 || !strings.Contains(string(msg), want) || !strings.Contains(string(msg), "start it with `winkube up --data-dir "+dir+"`") {
		t.Errorf("net against a stopped cluster: exit %d\n%s", code, msg)
	}
}

// `winkube up --version` prints the version and starts nothing.
func TestUpVersionStartsNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "never")
	out, err := exec.Command(winkube, "up", "--version", "--data-dir", dir, "--port", "0").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "winkube ") || strings.Count(string(out), "\n") != 1 {
		t.Errorf("up --version: %v\n%s", err, out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("up --version created %s", dir)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
