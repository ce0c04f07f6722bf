package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// action is what the test reads of action.yml.
type action struct {
	Description string
	Inputs      map[string]struct{ Description, Default string }
	Outputs     map[string]struct{ Description, Value string }
	Runs        struct {
		Using string
		Steps []actionStep
	}
}

type actionStep struct {
	ID    string `json:"id"`
	Shell string
	Run   string
	Env   map[string]string
}

func readAction(t *testing.T) (*action, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	a := &action{}
	if err := yaml.Unmarshal(data, a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a, string(data)
}

func (a *action) step(t *testing.T, id string) actionStep {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("action.yml has no step %q", id)
	return actionStep{}
}

// TestActionFile: the action is composite, every input and output is
// described, used and listed in docs/github-action.md, and every script is
// valid bash that takes inputs only through its environment (an input
// spliced into a script with ${{ }} would run as shell code).
func TestActionFile(t *testing.T) {
	a, text := readAction(t)
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "github-action.md"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" || a.Description == "" || len(a.Runs.Steps) == 0 {
		t.Fatalf("action.yml: runs.using %q, %d steps, description %q", a.Runs.Using, len(a.Runs.Steps), a.Description)
	}
	for name, in := range a.Inputs {
		if in.Description == "" || !strings.Contains(text, "inputs."+name+" }}") {
			t.Errorf("input %s: no description or never used", name)
		}
		if !strings.Contains(string(doc), "| `"+name+"` |") {
			t.Errorf("input %s is not in the inputs table of docs/github-action.md", name)
		}
	}
	for name, out := range a.Outputs {
		if out.Description == "" || !strings.Contains(out.Value, "steps.") {
			t.Errorf("output %s: description %q, value %q", name, out.Description, out.Value)
		}
		if !strings.Contains(string(doc), "| `"+name+"` |") {
			t.Errorf("output %s is not in the outputs table of docs/github-action.md", name)
		}
	}
	for i, s := range a.Runs.Steps {
		if s.Shell != "bash" || s.Run == "" {
			t.Errorf("step %d (%s): shell %q, want bash and a script", i, s.ID, s.Shell)
			continue
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %d (%s): the script splices an expression; pass it through env", i, s.ID)
		}
		check := exec.Command("bash", "-n")
		check.Stdin = strings.NewReader(s.Run)
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("step %d (%s): bash -n: %v\n%s", i, s.ID, err, out)
		}
	}
}

// The pools the action test starts: one Windows node in `up` mode, and
// one more joined in `nodes` mode under another pool name.
const (
	actionUpConfig = `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
- name: win2022
  os: windows
  release: "2022"
  count: 1
`
	actionNodesConfig = `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
- name: joined
  os: windows
  release: "2019"
  count: 1
`
)

// TestActionUpAndNodes runs the action's `up` script as a runner would,
// with the built winkube where the install step puts it, checks what it
// exports, then runs the `nodes` script against that cluster (no Docker
// here, so the kubelet address is winkube's default) and stops both as
// docs/github-action.md says: kill the nodes' PID, `winkube down NAME`.
func TestActionUpAndNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	a, _ := readAction(t)
	runner := newRunner(t)
	upOut, err := runner.run(t, a.step(t, "up"), map[string]string{
		"WINKUBE_NAME": "ci", "WINKUBE_CONFIG": writeFile(t, runner.temp, "up.yaml", actionUpConfig),
		"WINKUBE_WAIT": "3m", "WINKUBE_ARGS": "--port 0",
	})
	dataDir := filepath.Join(runner.home, ".winkube", "ci")
	if pid, err := os.ReadFile(filepath.Join(dataDir, "winkube.lock")); err == nil {
		if n, _ := strconv.Atoi(strings.TrimSpace(string(pid))); n > 1 {
			t.Cleanup(func() { stopOurs(n) })
		}
	}
	if err != nil {
		t.Fatalf("the up step failed: %v\n%s", err, upOut)
	}
	pid := lockPID(t, dataDir)
	outputs := runner.file(t, "GITHUB_OUTPUT")
	kubeconfig := filepath.Join(runner.temp, "winkube-ci.kubeconfig")
	if outputs["kubeconfig"] != kubeconfig || outputs["context"] != "winkube-ci" || runner.file(t, "GITHUB_ENV")["KUBECONFIG"] != kubeconfig {
		t.Errorf("outputs %v, env %v", outputs, runner.file(t, "GITHUB_ENV"))
	}
	checkExportedKubeconfig(t, kubeconfig, dataDir)
	cs := clientFor(t, dataDir)
	waitReadyNodes(t, cs, 1)

	nodesOut, err := runner.run(t, a.step(t, "nodes"), map[string]string{
		"WINKUBE_NAME": "ci", "WINKUBE_CONFIG": writeFile(t, runner.temp, "nodes.yaml", actionNodesConfig),
		"WINKUBE_WAIT": "2m", "WINKUBE_ARGS": "--kubelet-port 0", "WINKUBE_KUBELET_ADDRESS": "",
		"KUBECONFIG": kubeconfig,
	})
	outputs = runner.file(t, "GITHUB_OUTPUT")
	nodesPID, _ := strconv.Atoi(outputs["nodes-pid"])
	if nodesPID > 1 {
		t.Cleanup(func() { stopOurs(nodesPID) })
	}
	if err != nil {
		t.Fatalf("the nodes step failed: %v\n%s", err, nodesOut)
	}
	if outputs["context"] != "winkube-ci" || outputs["kubeconfig"] != kubeconfig || !strings.HasSuffix(outputs["log"], "winkube-nodes-ci.log") {
		t.Errorf("nodes outputs %v", outputs)
	}
	waitReadyNodes(t, cs, 2)

	// The documented clean-up.
	stopOurs(nodesPID)
	if out, err := exec.Command(winkube, "down", "--data-dir", dataDir).CombinedOutput(); err != nil {
		t.Errorf("winkube down: %v\n%s", err, out)
	}
	if processAlive(pid) || processAlive(nodesPID) {
		t.Errorf("still running after the clean-up: up %v, nodes %v", processAlive(pid), processAlive(nodesPID))
	}
}

// runner stands in for a GitHub runner: its temp dir, the files steps
// write their env, outputs and path to, and a HOME of its own.
type runner struct {
	temp, home string
}

func newRunner(t *testing.T) *runner {
	t.Helper()
	base := t.TempDir()
	r := &runner{temp: filepath.Join(base, "runner-temp"), home: filepath.Join(base, "home")}
	bin := filepath.Join(r.temp, "winkube-bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// Where the install step puts winkube.
	if err := os.Symlink(winkube, filepath.Join(bin, "winkube")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH"} {
		writeFile(t, r.temp, f, "")
	}
	return r
}

// run runs a step's script with its env as the runner would set it.
func (r *runner) run(t *testing.T, s actionStep, env map[string]string) (string, error) {
	t.Helper()
	for k := range s.Env {
		if _, ok := env[k]; !ok {
			t.Fatalf("step %s takes %s, which the test does not set", s.ID, k)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-c", s.Run)
	cmd.Dir = r.temp
	cmd.Env = append(os.Environ(), "HOME="+r.home, "RUNNER_TEMP="+r.temp, "KUBECONFIG=",
		"GITHUB_ENV="+filepath.Join(r.temp, "GITHUB_ENV"), "GITHUB_OUTPUT="+filepath.Join(r.temp, "GITHUB_OUTPUT"),
		"GITHUB_PATH="+filepath.Join(r.temp, "GITHUB_PATH"))
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// file reads a runner file of KEY=VALUE lines; a later line wins.
func (r *runner) file(t *testing.T, name string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.temp, name))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// checkExportedKubeconfig: the kubeconfig the action exports reaches the
// cluster of dataDir at context winkube-NAME.
func checkExportedKubeconfig(t *testing.T, path, dataDir string) {
	t.Helper()
	got, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := clientcmd.LoadFromFile(filepath.Join(dataDir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := got.Contexts[got.CurrentContext]
	if got.CurrentContext != "winkube-ci" || ctx == nil || got.Clusters[ctx.Cluster] == nil {
		t.Fatalf("exported kubeconfig: current context %q", got.CurrentContext)
	}
	for _, c := range want.Clusters {
		if got.Clusters[ctx.Cluster].Server != c.Server {
			t.Errorf("exported kubeconfig's server %s, the cluster's %s", got.Clusters[ctx.Cluster].Server, c.Server)
		}
	}
}

func waitReadyNodes(t *testing.T, cs kubernetes.Interface, want int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		ready := 0
		if err == nil {
			for _, n := range nodes.Items {
				for _, c := range n.Status.Conditions {
					if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
						ready++
					}
				}
			}
		}
		if ready == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d nodes Ready, want %d (%v)", ready, want, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
