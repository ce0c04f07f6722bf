package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/winkube/winkube/internal/mdblock"
	"github.com/winkube/winkube/internal/syncbuf"
)

// docPage is a walk-through in docs/ and how the test runs it: lines of
// its sh blocks that need what this machine does not have (kind, Docker,
// metrics-server, a fixed kubelet port) are replaced, every other line
// runs as written, and each replaced line must still be in the page.
type docPage struct {
	file    string
	replace map[string]string
	expect  []string // in the session's output
}

// Lines both pages share: the test runs the checkout it was built from.
var installLines = map[string]string{
	"git clone https://github.com/winkube/winkube": ": the checkout under test",
	"cd winkube":               ": the work dir links examples/",
	"go install ./cmd/winkube": ": winkube was built by TestMain and is on PATH",
	// metrics-server reads the kubelet's /metrics/resource; the stand-in's
	// own metrics API goes through the node proxy, which refuses the
	// loopback kubelet address the test must use.
	"kubectl top nodes": "top_nodes",
	"kubectl top pods":  "top_pods",
}

var docPages = []docPage{
	{
		file: "docs/existing-cluster.md",
		replace: map[string]string{
			`winkube nodes --kubeconfig "$KUBECONFIG" --config windows-pools.yaml > winkube-nodes.log 2>&1 &`: `winkube nodes --kubeconfig "$KUBECONFIG" --config windows-pools.yaml --kubelet-port 0 > winkube-nodes.log 2>&1 &`,
		},
		expect: []string{"3 nodes Ready", "winkube-win2022-1-", "approved", "hello from Windows Server 2022",
			"Listening at http://*:80/", `user manager\containeradministrator`, "Windows Container Web Server",
			"node_cpu_usage_seconds_total", "pod_cpu_usage_seconds_total"},
	},
	{
		file: "docs/kind.md",
		replace: map[string]string{
			"kind create cluster --name win":                   "winkube status win",
			"kind get kubeconfig --name win > kind.kubeconfig": "winkube kubeconfig win > kind.kubeconfig",
			`gw=$(docker network inspect kind -f '{{range .IPAM.Config}}{{println .Gateway}}{{end}}' | grep -m1 '\.')`:                                                                 "gw=127.0.0.1",
			`winkube nodes --kubeconfig kind.kubeconfig --config windows-pools.yaml --kubelet-address "$gw" --approve-csr > winkube-nodes.log 2>&1 &`:                                  `winkube nodes --kubeconfig kind.kubeconfig --config windows-pools.yaml --kubelet-address "$gw" --kubelet-port 0 --approve-csr > winkube-nodes.log 2>&1 &`,
			"kubectl apply -f https://github.com/kubernetes-sigs/metrics-server/releases/download/v0.7.2/components.yaml":                                                              ": no metrics-server: top_nodes reads what it reads",
			`kubectl -n kube-system patch deployment metrics-server --type=json -p '[{"op":"add","path":"/spec/template/spec/containers/0/args/-","value":"--kubelet-insecure-tls"}]'`: ": no metrics-server",
			"kubectl -n kube-system rollout status deployment/metrics-server --timeout=3m":                                                                                             ": no metrics-server",
			"kind delete cluster --name win": "winkube down win",
		},
		expect: []string{"Cluster win is running", "kubelet address: 127.0.0.1", "3 nodes Ready", "Approved 3 kubelet serving certificate requests",
			"hello from Windows Server 2022", "Listening at http://*:80/", `user manager\containeradministrator`,
			"node_cpu_usage_seconds_total", "pod_cpu_usage_seconds_total"},
	},
}

// The session's first lines: what a user's shell does not need but a
// test does. top_nodes and top_pods read /metrics/resource of the
// emulated nodes as metrics-server does, verifying the certificate the
// cluster's CA issued; the EXIT trap stops `winkube nodes` (by the PID
// the page itself records) if the page fails before its cleanup.
const docPrologue = `set -euo pipefail
trap 'if [ -n "${nodes_pid:-}" ] && kill -0 "$nodes_pid" 2>/dev/null; then kill "$nodes_pid"; wait "$nodes_pid" || true; fi' EXIT
scrape() {
  local port i
  port=$(kubectl get node "$1" -o jsonpath='{.status.daemonEndpoints.kubeletEndpoint.Port}')
  [ -n "$port" ] || { echo "node $1 has no kubelet port"; return 1; }
  for i in $(seq 60); do
    if kubectl --server "https://127.0.0.1:$port" --certificate-authority "$CLUSTER_CA" get --raw /metrics/resource > metrics.txt 2> metrics.err && grep -q "$2" metrics.txt; then
      grep -m2 "$2" metrics.txt
      return 0
    fi
    sleep 1
  done
  cat metrics.err
  return 1
}
top_nodes() { local n; for n in $(kubectl get nodes -l winkube.io/pool -o jsonpath='{.items[*].metadata.name}'); do scrape "$n" '^node_cpu_usage_seconds_total'; done; }
top_pods() { scrape "$(kubectl get pods -l app=win-webserver -o jsonpath='{.items[0].spec.nodeName}')" '^pod_cpu_usage_seconds_total.*win-webserver'; }
set -x
`

// TestDocs runs docs/existing-cluster.md and docs/kind.md against a
// control plane winkube does not own: a `winkube up --detach` with no
// nodes (its own process and CA) stands in for the user's cluster and for
// kind, and the pages join nodes to it from outside with `winkube nodes`.
func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	kubectl := buildKubectl(t)
	base := t.TempDir()
	env := &lifecycleEnv{t: t, home: filepath.Join(base, "home"), kube: filepath.Join(base, "kube", "config")}
	out, code := env.run("up", "--detach", "--name", "win", "--port", "0", "--config", writeFile(t, base, "none.yaml", noNodesConfig))
	if code != 0 {
		t.Fatalf("the stand-in cluster (up --detach) exited %d:\n%s", code, out)
	}
	dataDir := filepath.Join(env.home, ".winkube", "win")
	pid := lockPID(t, dataDir)
	t.Cleanup(func() { stopOurs(pid) })

	for _, page := range docPages {
		script := pageScript(t, page)
		work := t.TempDir()
		if err := os.Symlink(filepath.Join(repoRoot, "examples"), filepath.Join(work, "examples")); err != nil {
			t.Fatal(err)
		}
		out, err := runDocScript(script, work, []string{
			"HOME=" + env.home, "KUBECONFIG=" + env.kube,
			"PATH=" + filepath.Dir(kubectl) + string(os.PathListSeparator) + os.Getenv("PATH"), // winkube's dir too
			"CLUSTER_CA=" + filepath.Join(dataDir, "pki", "ca.crt"),
		})
		if err != nil {
			t.Fatalf("%s failed (%v):\n%s", page.file, err, out)
		}
		for _, want := range page.expect {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the output lacks %q:\n%s", page.file, want, out)
			}
		}
	}
	// kind.md's last step, `winkube down win`, removed the stand-in.
	if processAlive(pid) {
		t.Errorf("the stand-in cluster (PID %d) still runs after kind.md's clean-up", pid)
	}
}

// shLines are the lines of a page's ```sh blocks, in order.
func shLines(t *testing.T, path string) []string {
	t.Helper()
	block, open, err := mdblock.Lines(path, "sh")
	if err != nil {
		t.Fatal(err)
	}
	if open || len(block) == 0 {
		t.Fatalf("%s: no closed ```sh block", path)
	}
	lines := make([]string, len(block))
	for i, l := range block {
		lines[i] = l.Text
	}
	return lines
}

// docScript is the prologue and the page's lines, each replaced line
// swapped for its stand-in. missing lists the replaced lines the page no
// longer has: the page changed and the test must follow.
func docScript(page docPage, lines []string) (script string, missing []string) {
	used := map[string]bool{}
	var b strings.Builder
	b.WriteString(docPrologue)
	for _, line := range lines {
		if r, ok := page.replace[line]; ok {
			line, used[line] = r, true
		} else if r, ok := installLines[line]; ok {
			line, used[line] = r, true
		}
		b.WriteString(line + "\n")
	}
	for _, m := range []map[string]string{page.replace, installLines} {
		for line := range m {
			if !used[line] {
				missing = append(missing, line)
			}
		}
	}
	sort.Strings(missing)
	return b.String(), missing
}

// pageScript is docScript for a page of the repository, failing the test
// when a replaced line is gone.
func pageScript(t *testing.T, page docPage) string {
	t.Helper()
	script, missing := docScript(page, shLines(t, filepath.Join(repoRoot, page.file)))
	for _, line := range missing {
		t.Errorf("%s no longer has the line %q: update docPages or installLines in docs_test.go", page.file, line)
	}
	if len(missing) > 0 {
		t.FailNow()
	}
	return script
}

// TestDocsLines runs without a cluster (also with -short): every line the
// test replaces is still in its page, and a line that is gone is named.
func TestDocsLines(t *testing.T) {
	for _, page := range docPages {
		pageScript(t, page)
	}
	page := docPage{file: "x.md", replace: map[string]string{"kind create cluster --name old": "true"}}
	_, missing := docScript(page, []string{"kind create cluster --name new"})
	if len(missing) != 1+len(installLines) || !slices.Contains(missing, "kind create cluster --name old") {
		t.Errorf("missing lines %q", missing)
	}
}

// runDocScript runs the script in bash within 4 minutes; past that bash
// gets SIGTERM, so its EXIT trap still stops the nodes it started.
func runDocScript(script, dir string, env []string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	return out.String(), err
}

// buildKubectl builds the kubectl of the control plane's version from the
// module's tool dependency (go.mod: tool k8s.io/kubernetes/cmd/kubectl),
// so the test does not depend on whatever kubectl the machine has.
func buildKubectl(t *testing.T) string {
	t.Helper()
	path := filepath.Join(filepath.Dir(winkube), "kubectl")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	build := exec.Command("go", "build", "-o", path, "k8s.io/kubernetes/cmd/kubectl")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl: %v\n%s", err, out)
	}
	return path
}
