package e2e

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/winkube/winkube/internal/mdblock"
	"github.com/winkube/winkube/internal/syncbuf"
)

// docPage is a page of docs/ (or the README) and how the test runs it:
// lines of its blocks that need what this machine does not have (kind,
// Docker, helm, the internet, a fixed port) are replaced, every other line
// runs as written, and each replaced line must still be in the page.
type docPage struct {
	file    string
	langs   []string          // the fenced blocks that run: ```sh unless given
	setup   []string          // lines run first: the files the page assumes its reader has
	replace map[string]string // page line → the line run instead (a comment saying why, when nothing runs)
	after   []string          // lines run last: checks of what the page set up
	expect  []string          // in the page's output
}

// docSession is pages run one after the other in one work dir and HOME,
// so that they share a cluster: a page whose `winkube up` would start a
// second one on the same data dir has it replaced by `winkube status`.
// Sessions run in parallel; every cluster a session left is stopped by
// the PID in its lock file.
type docSession struct {
	name    string
	standIn bool // a `winkube up --detach --name win` without nodes runs first: the user's cluster, or kind
	pages   []docPage
}

// Lines several pages share: the test runs the checkout it was built from.
var installLines = map[string]string{
	"git clone https://github.com/winkube/winkube": ": the checkout under test",
	"cd winkube":               ": the work dir links examples/ and test/",
	"go install ./cmd/winkube": ": winkube was built by TestMain and is on PATH",
	"go install ./cmd/winkube          # or: go build -o winkube ./cmd/winkube": ": winkube was built by TestMain and is on PATH",
	// metrics-server reads the kubelet's /metrics/resource; the stand-in's
	// own metrics API goes through the node proxy, which refuses the
	// loopback kubelet address the test must use.
	"kubectl top nodes": "top_nodes",
	"kubectl top pods":  "top_pods",
}

// sharedUp stands for a page's `winkube up` in a session whose cluster an
// earlier page started.
const sharedUp = "winkube status   # the session's cluster, which README.md started; a second up on its data dir is refused"

var docSessions = []docSession{
	{name: "join", standIn: true, pages: []docPage{
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
			file:  "docs/nodes.md",
			setup: []string{`sed -n '/^cat > windows-pools.yaml/,/^EOF$/{/^cat\|^EOF$/!p}' "$REPO/docs/existing-cluster.md" > pools.yaml   # the pools of existing-cluster.md`, "version=devel   # the tag of this build's image"},
			replace: map[string]string{
				// Each runs until Ctrl-C; kind.md, next in this session,
				// runs the same join in the background.
				`winkube nodes --kubeconfig ~/.kube/config --context kind-kind --config pools.yaml --kubelet-address "$gw" --approve-csr`: ": runs until Ctrl-C, as kind.md does next",
				"kind get kubeconfig > kind.kubeconfig": "winkube kubeconfig win > kind.kubeconfig",
				`gw=$(docker network inspect kind -f '{{range .IPAM.Config}}{{println .Gateway}}{{end}}' | grep -m1 '\.')`:              "gw=127.0.0.1",
				`winkube nodes --kubeconfig kind.kubeconfig --kubelet-address "$gw" --approve-csr`:                                      ": runs until Ctrl-C, as kind.md does next",
				`winkube nodes --kubeconfig kind.kubeconfig --config pools.yaml --shards 4 --kubelet-address "$gw"   # on each replica`: ": runs until Ctrl-C, the shards are tested in pkg/cmd/winkube/nodes",
				"go run ./hack/image -o winkube.tar          # prints the tag; -tag NAME, -arch arm64":                                  ": builds a static winkube, minutes of compiling",
				"kind load image-archive winkube.tar": ": no kind",
				"helm install winkube-nodes deploy/helm/winkube-nodes -n winkube-system --create-namespace --set image.tag=<version>": ": no helm here, pkg/nodes/install renders the chart with the code of helm",
			},
			expect: []string{"Installing the winkube node agent (ghcr.io/winkube/winkube:devel) in namespace winkube-system",
				" ✓ Deployment winkube-system/winkube-nodes", "kind: Namespace", " ✓ deleted Namespace winkube-system"},
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
	}},
	// The README's tour, then up.md and net.md on the same default cluster.
	// It is the only session that applies examples/: their iis
	// LoadBalancer takes 127.127.131.1:80, which one cluster can serve.
	{name: "tour", pages: []docPage{
		{
			file: "README.md",
			replace: map[string]string{
				// It runs until Ctrl-C: here in the background, on a free
				// port, then stopped as Ctrl-C stops it (state kept).
				"go run ./cmd/winkube up --apply examples/windows-web-server.yaml": "winkube up --detach --port 0 --apply examples/windows-web-server.yaml && winkube stop",
				"go test -timeout 30m ./...":                                       ": this test is part of it",
				"winkube up --gmsa":                                                "winkube up --gmsa --detach --port 0   # resumes the first command's cluster",
			},
			expect: []string{"Deployment/win-webserver: 2 pods: 2 Running on windows 10.0.17763 (win2019-1, win2019-2)",
				"Stopped. State kept in", "4 nodes Ready", " ✓ GMSACredentialSpec CRD installed, GMSA webhook registered",
				"GMSA webhook: https://127.0.0.1:", "Context winkube-winkube merged into", "deployment.apps/gmsa-demo created",
				"service/iis created", "deployment.apps/win-webserver "},
		},
		{
			file:  "docs/up.md",
			setup: []string{`block "$REPO/docs/up.md" yaml > cluster.yaml   # "the one below"`},
			replace: map[string]string{
				"winkube up                        # the default cluster, until Ctrl-C": sharedUp,
				// Port 6444 may be taken on a shared test machine.
				"winkube up --detach --name dev --port 6444 --config cluster.yaml   # returns once Ready": "winkube up --detach --name dev --port 0 --config cluster.yaml",
			},
			expect: []string{"Cluster winkube is running", "win2022-1   Ready", "deployment.apps/win-webserver unchanged",
				"Starting cluster \"dev\"", "3 nodes Ready", "winkube   running   4", "Cluster dev is running.",
				"Stopped. State kept in", "Removed context winkube-dev"},
		},
		{
			file: "docs/net.md",
			replace: map[string]string{
				"winkube up --gmsa --apply examples/":                                         sharedUp,
				"curl http://<EXTERNAL-IP>/        # e.g. curl http://127.127.131.1/ for iis": "lb_curl iis | grep '<title>'",
			},
			// The page's transcripts, with this run's pod names.
			after: []string{
				"kubectl get svc iis",
				"w=$(kubectl get pods -l app=win-webserver -o jsonpath='{.items[0].metadata.name}')",
				`winkube net check "pod/default/$w" nginx`,
				`winkube net check "pod/default/$w" nginx.default || [ $? = 1 ]`,
				`winkube net check "pod/default/$w" 8.8.8.8 --protocol icmp || [ $? = 1 ]`,
				`kubectl exec "$w" -- curl.exe -sS http://nginx.default/ || [ $? = 6 ]`,
				`kubectl exec "$w" -- curl.exe -sS http://nginx.default.svc.cluster.local/ -o NUL -w "%{http_code}\n"`,
				"kubectl get --raw /api/v1/namespaces/default/services/nginx:80/proxy/ | grep title",
				"winkube net matrix",
				// The README's LogMonitor transcript, once the pod's loop wrote its file.
				`for i in $(seq 120); do kubectl logs logmonitor-demo | grep -q '"Source": "File"' && break; sleep 1; done`,
				"kubectl logs logmonitor-demo   # all of it: which three lines are the last varies",
			},
			expect: []string{"Cluster winkube is running", iisTitle(), "LoadBalancer   ", "127.127.131.",
				"REACHABLE: delivered to pod default/nginx-", "[KP-3, NET-9]",
				`UNREACHABLE: "nginx.default" does not resolve in a Windows pod: Windows resolvers have one DNS suffix (default.svc.cluster.local) and treat any name with a dot as fully qualified; use "nginx" or the full name [DNS-1, TS-12]`,
				"UNREACHABLE: ICMP from a Windows pod to 8.8.8.8 needs OutBoundNAT, which VFP cannot apply to ICMP: the reply never returns; test with curl instead of ping [LIM-17, TS-3]",
				"curl: (6) Could not resolve host: nginx.default", "\n200\n", "<title>Welcome to nginx!</title>",
				"pod → service (PQDN with a dot)  ✗ [DNS-1, TS-12]  ✓", "pod → external (ICMP)            ✗ [LIM-17, TS-3]  ✓",
				`{"Source": "EventLog","LogEntry": {"EventSource": "DemoApp",`, `{"Source":"Process","LogEntry":{"Logline":"loop `,
				`{"Source": "File","LogEntry": {"Logline": "line `},
		},
	}},
	// webhook.md's cluster; doctor.md finds it clean once the webhook's
	// install is gone, and lint.md checks a chart against its nodes.
	{name: "webhook", pages: []docPage{
		{
			file: "docs/webhook.md",
			replace: map[string]string{
				"winkube up --webhook --apply test/e2e/testdata/webhook-placement.yaml": "winkube up --webhook --apply test/e2e/testdata/webhook-placement.yaml --detach --port 0",
				// K and HOST are the page's placeholders.
				"winkube webhook install --kubeconfig K --url https://HOST:9443   # served outside the cluster: prints the `winkube webhook serve` line to run": "winkube webhook install --kubeconfig ~/.kube/config --url https://127.0.0.1:9443",
				"helm install winkube-webhook deploy/helm/winkube-webhook -n winkube-system --create-namespace":                                                 ": no helm here, pkg/webhook/install renders the chart with the code of helm",
			},
			expect: []string{"Admission webhook:", "Deployment/iis-2022: 1 pod: 1 Running on windows 10.0.20348 (win2022-1)",
				"Deployment/iis-2019: 1 pod: 1 Running on windows 10.0.17763 (win2019-", "Deployment/nginx: 1 pod: 1 Running on linux (linux-1)",
				"Installed: serving certificate from a new CA", "Registered: serving certificate in", "winkube webhook serve --listen 127.0.0.1:9443",
				"Removed 9 objects."},
		},
		{
			file: "docs/doctor.md",
			// The page's transcript: the edit that drops
			// --hostname-override (the second of the Windows kube-proxy's
			// args), doctor's error, and the edit undone.
			after: []string{
				`kubectl -n kube-system patch daemonset kube-proxy-windows --type=json -p '[{"op":"test","path":"/spec/template/spec/containers/0/args/1","value":"--hostname-override=$(NODE_NAME)"},{"op":"remove","path":"/spec/template/spec/containers/0/args/1"}]'`,
				"winkube doctor || [ $? = 1 ]",
				`kubectl -n kube-system patch daemonset kube-proxy-windows --type=json -p '[{"op":"add","path":"/spec/template/spec/containers/0/args/1","value":"--hostname-override=$(NODE_NAME)"}]'`,
			},
			expect: []string{"0 errors, 0 warnings", `"errors": 0,`, `"warnings": 0,`,
				"error TS-5 Node win2019-1, DaemonSet kube-system/kube-proxy-windows: kube-proxy on win2019-1 has no --hostname-override: it uses the host name, which must equal the node name or the node's HNS endpoints get deleted",
				"  evidence: container kube-proxy args: --proxy-mode=kernelspace --network-name=vxlan0 --source-vip=$(SOURCE_VIP)",
				"  fix: add --hostname-override=$(NODE_NAME) to the Windows kube-proxy, with NODE_NAME from fieldRef spec.nodeName\n  see: KP-8"},
		},
		{
			file: "docs/lint.md",
			setup: []string{
				"mkdir -p deploy charts && cp examples/windows-web-server.yaml examples/linux-web.yaml deploy/   # your manifests, for cluster.yaml",
				`block "$REPO/docs/up.md" yaml > cluster.yaml`,
				"cp -r test/e2e/testdata/lint/chart charts/web && echo 'placeOnWindows: true' > prod.yaml",
			},
			replace: map[string]string{
				// Registries are on the internet (and their names would be
				// looked up off the loopback): the catalog answers instead.
				"winkube image mcr.microsoft.com/windows/servercore:ltsc2022 nginx:1.27":                                            "winkube image --resolve-images catalog mcr.microsoft.com/windows/servercore:ltsc2022 nginx:1.27",
				"winkube image --registry-mirror docker.io=127.0.0.1:5000 --pull-secret-file ~/.docker/config.json -o json app:1.0": ": no registry at 127.0.0.1:5000, TestDocsImageTranscript of test/agreement serves one",
				"winkube image --kubeconfig ~/.kube/config myregistry.example.com/web:2.1   # also: which node pools run it":        "winkube image --resolve-images catalog --kubeconfig ~/.kube/config mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022",
				"docker save -o agent.tar registry.example.com/team/agent:0.3 && winkube image import agent.tar":                    ": no Docker daemon, the tests of pkg/imageinfo import docker-archives",
				"winkube image import ./oci-layout/ web.oci.tar            # OCI image layouts, as directories or tars":             ": placeholders of the page, the tests of pkg/imageinfo import OCI layouts",
				"docker manifest inspect -v nginx:1.27 > nginx.json && winkube image import nginx.json":                             ": no Docker, no registry",
				"crane manifest mcr.microsoft.com/windows/nanoserver:ltsc2022 > nano.json":                                          "echo '" + nanoIndex + "' > nano.json   # no crane, no registry: an index as crane prints one",
			},
			expect: []string{"21 objects checked: 0 errors, 0 warnings, 2 infos, 1 ignored (winkube.io/ignore)", "4 objects checked: 0 errors",
				"(image index, from catalog)", "windows/amd64  10.0.20348.2227  Windows Server 2022 (LTSC)",
				"win2022  1      windows/amd64 10.0.20348 (containerd)  yes", "imported mcr.microsoft.com/windows/nanoserver:ltsc2022: [windows/amd64:10.0.20348.2227]"},
		},
	}},
	{name: "gmsa", pages: []docPage{
		{
			file: "docs/gmsa.md",
			replace: map[string]string{
				"winkube up --gmsa --apply examples/gmsa.yaml": "winkube up --gmsa --apply examples/gmsa.yaml --detach --port 0",
				// 10.0.0.5 is the page's machine the API server reaches; here
				// that is the loopback, on a port the test picked.
				"winkube gmsa install --kubeconfig ~/.kube/config --url https://10.0.0.5:9443":                `winkube gmsa install --kubeconfig ~/.kube/config --url "https://127.0.0.1:$FREE_PORT"`,
				"winkube gmsa serve --listen 10.0.0.5:9443 --tls-cert-file ~/.config/winkube/gmsa/tls.crt \\": `winkube gmsa serve --listen "127.0.0.1:$FREE_PORT" --tls-cert-file ~/.config/winkube/gmsa/tls.crt \`,
				"    --tls-private-key-file ~/.config/winkube/gmsa/tls.key --kubeconfig ~/.kube/config":       "    --tls-private-key-file ~/.config/winkube/gmsa/tls.key --kubeconfig ~/.kube/config > gmsa-serve.log 2>&1 & serve_pid=$!",
			},
			// With failurePolicy Fail, a new pod exists only if the served
			// webhook answered.
			after: []string{
				"kubectl rollout restart deployment/gmsa-demo && kubectl rollout status deployment/gmsa-demo --timeout=2m",
				`kubectl get pods -l app=gmsa-demo -o jsonpath='{.items[*].spec.securityContext.windowsOptions.gmsaCredentialSpec}' | grep -q WebApp01 && cat gmsa-serve.log`,
			},
			expect: []string{"GMSA webhook: https://127.0.0.1:", "Deployment/gmsa-demo: 1 pod: 1 Running on windows",
				"The webhook is not installed", "Registered the GMSA webhook at https://127.0.0.1:",
				"Serving the GMSA webhook on https://127.0.0.1:", "successfully rolled out"},
		},
	}},
	{name: "plan", pages: []docPage{
		{
			file:   "docs/plan.md",
			langs:  []string{"bash"},
			setup:  []string{`block "$REPO/docs/plan.md" yaml > cluster.yaml   # "the file above, saved as cluster.yaml"`},
			after:  []string{"ls out/windows/win-node-1/kubelet-flags.txt out/runtimeclasses.yaml"},
			expect: []string{"0 of 9 checks failed", "win-node-2  win   10.0.17763  192.168.1.22   Ethernet 2", `"check": "the proxy is bypassed for the cluster's own networks"`},
		},
	}},
}

// iisTitle is what net.md's curl of the iis LoadBalancer prints: the
// page's title when this machine lets winkube serve port 80 (as root, or
// with net.ipv4.ip_unprivileged_port_start at most 80), else lb_curl's
// line saying it was not fetched.
func iisTitle() string {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_unprivileged_port_start")
	start, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if os.Geteuid() == 0 || (err == nil && start <= 80) {
		return "<title>IIS Windows Server</title>"
	}
	return "not fetched: port 80"
}

// nanoIndex is what `crane manifest` prints for a Windows image index.
const nanoIndex = `{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.list.v2+json","manifests":[{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","size":1076,"digest":"sha256:5e1c2b1d9b1d4b1f3c8f2f6a3a9e0c1b2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a","platform":{"architecture":"amd64","os":"windows","os.version":"10.0.20348.2227"}}]}`

// The session's first lines: what a user's shell does not need but a
// test does. top_nodes and top_pods read /metrics/resource of the
// emulated nodes as metrics-server does, verifying the certificate the
// cluster's CA issued; block prints the first fenced block of a language
// of a page; lb_curl fetches / of a LoadBalancer Service from the host
// (port 80 needs root, else it says so); the EXIT trap stops what the page
// started in the background (by the PID it recorded) if the page fails
// before its cleanup.
const docPrologue = `set -euo pipefail
trap 'for p in ${nodes_pid:-} ${serve_pid:-}; do if kill -0 "$p" 2>/dev/null; then kill "$p"; wait "$p" || true; fi; done' EXIT
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
block() { awk -v open='` + "```" + `'"$2" '$0 == open {f=1; next} f && $0 == "` + "```" + `" {exit} f' "$1"; }
lb_curl() {
  local ip="" i
  for i in $(seq 60); do
    ip=$(kubectl get svc "$1" -o jsonpath='{.status.loadBalancer.ingress[0].ip}')
    [ -z "$ip" ] || break
    sleep 1
  done
  if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/net/ipv4/ip_unprivileged_port_start)" -gt 80 ]; then
    echo "<title>not fetched: port 80 of $ip needs root</title>"
    return 0
  fi
  curl -sS --retry 30 --retry-delay 1 --retry-all-errors "http://$ip/"
}
set -x
`

// TestDocs runs the walk-throughs of docs/ and the README's tour, each
// session in parallel with the others. In the join session a `winkube up
// --detach` with no nodes (its own process and CA) stands in for the
// user's cluster and for kind, and existing-cluster.md and kind.md join
// nodes to it from outside with `winkube nodes`; the other sessions start
// their clusters with the pages' own `winkube up` lines.
func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes")
	}
	kubectl := buildKubectl(t)
	for _, s := range docSessions {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			runDocSession(t, s, kubectl)
		})
	}
}

// runDocSession runs the pages of s in order in one work dir and HOME and
// checks each page's output.
func runDocSession(t *testing.T, s docSession, kubectl string) {
	base := t.TempDir()
	env := &lifecycleEnv{t: t, home: filepath.Join(base, "home"), kube: filepath.Join(base, "home", ".kube", "config")}
	t.Cleanup(func() { stopClusters(env.home) })
	vars := []string{"HOME=" + env.home, "REPO=" + repoRoot, "FREE_PORT=" + freePort(t),
		"PATH=" + filepath.Dir(kubectl) + string(os.PathListSeparator) + os.Getenv("PATH")} // winkube's dir too
	var pid int
	if s.standIn {
		env.kube = filepath.Join(base, "kube", "config")
		out, code := env.run("up", "--detach", "--name", "win", "--port", "0", "--config", writeFile(t, base, "none.yaml", noNodesConfig))
		if code != 0 {
			t.Fatalf("the stand-in cluster (up --detach) exited %d:\n%s", code, out)
		}
		dataDir := filepath.Join(env.home, ".winkube", "win")
		pid = lockPID(t, dataDir)
		vars = append(vars, "CLUSTER_CA="+filepath.Join(dataDir, "pki", "ca.crt"))
	}
	vars = append(vars, "KUBECONFIG="+env.kube)
	work := t.TempDir()
	for _, dir := range []string{"examples", "test"} {
		if err := os.Symlink(filepath.Join(repoRoot, dir), filepath.Join(work, dir)); err != nil {
			t.Fatal(err)
		}
	}
	for _, page := range s.pages {
		script, _ := pageScript(t, page)
		out, err := runDocScript(script, work, vars)
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
	if s.standIn && processAlive(pid) {
		t.Errorf("the stand-in cluster (PID %d) still runs after kind.md's clean-up", pid)
	}
}

// stopClusters stops every cluster under home/.winkube that still runs,
// by the PID of its lock file.
func stopClusters(home string) {
	locks, _ := filepath.Glob(filepath.Join(home, ".winkube", "*", "winkube.lock"))
	for _, lock := range locks {
		data, err := os.ReadFile(lock)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil {
			stopOurs(pid)
		}
	}
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// pageLines are the lines of a page's blocks fenced as one of langs (sh
// when none), in order.
func pageLines(t *testing.T, path string, langs []string) []string {
	t.Helper()
	if len(langs) == 0 {
		langs = []string{"sh"}
	}
	block, open, err := mdblock.Lines(path, langs...)
	if err != nil {
		t.Fatal(err)
	}
	if open || len(block) == 0 {
		t.Fatalf("%s: no closed block fenced as %v", path, langs)
	}
	lines := make([]string, len(block))
	for i, l := range block {
		lines[i] = l.Text
	}
	return lines
}

// docScript is the prologue, the page's setup, its lines, each replaced
// line swapped for its stand-in, and its checks. used are the lines of
// page.replace and installLines it replaced.
func docScript(page docPage, lines []string) (script string, used map[string]bool) {
	used = map[string]bool{}
	var b strings.Builder
	b.WriteString(docPrologue)
	for _, line := range page.setup {
		b.WriteString(line + "\n")
	}
	for _, line := range lines {
		if r, ok := page.replace[line]; ok {
			line, used[line] = r, true
		} else if r, ok := installLines[line]; ok {
			line, used[line] = r, true
		}
		b.WriteString(line + "\n")
	}
	for _, line := range page.after {
		b.WriteString(line + "\n")
	}
	return b.String(), used
}

// unused are the lines of m that used lacks, sorted.
func unused(m map[string]string, used map[string]bool) []string {
	var lines []string
	for line := range m {
		if !used[line] {
			lines = append(lines, line)
		}
	}
	sort.Strings(lines)
	return lines
}

// pageScript is docScript for a page of the repository, failing the test
// when a line it replaces is gone: the page changed and the test must
// follow.
func pageScript(t *testing.T, page docPage) (string, map[string]bool) {
	t.Helper()
	script, used := docScript(page, pageLines(t, filepath.Join(repoRoot, page.file), page.langs))
	missing := unused(page.replace, used)
	for _, line := range missing {
		t.Errorf("%s no longer has the line %q: update docSessions in docs_test.go", page.file, line)
	}
	if len(missing) > 0 {
		t.FailNow()
	}
	return script, used
}

// TestDocsLines runs without a cluster (also with -short): every line the
// test replaces is still in its page (each of installLines in some page),
// and a line that is gone is named.
func TestDocsLines(t *testing.T) {
	all := map[string]bool{}
	for _, s := range docSessions {
		for _, page := range s.pages {
			_, used := pageScript(t, page)
			for line := range used {
				all[line] = true
			}
		}
	}
	for _, line := range unused(installLines, all) {
		t.Errorf("no page has the line %q: update installLines in docs_test.go", line)
	}
	page := docPage{file: "x.md", replace: map[string]string{"kind create cluster --name old": "true"}}
	_, used := docScript(page, []string{"kind create cluster --name new", "go install ./cmd/winkube"})
	if missing := unused(page.replace, used); !slices.Equal(missing, []string{"kind create cluster --name old"}) || !used["go install ./cmd/winkube"] {
		t.Errorf("missing lines %q, used %v", missing, used)
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
