package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

func TestParseStat(t *testing.T) {
	// A command name with spaces and a ')' must not shift the fields.
	line := "4242 (kube apiserver) x) S 4200 4242 4242 0 -1 4194560 1 0 0 0 1234 567 0 0 20 0 12 0 100 1000 50 0\n"
	st, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != 4200 || st.ticks != 1234+567 {
		t.Errorf("parseStat = %+v, want ppid 4200 and ticks 1801", st)
	}
	for _, bad := range []string{"", "12 (x) S 1 2", "12 (x) S p 1 1 0 -1 0 0 0 0 0 1 2"} {
		if _, err := parseStat(bad); err == nil {
			t.Errorf("parseStat(%q) accepted a malformed line", bad)
		}
	}
}

func TestParseStatus(t *testing.T) {
	text := "Name:\twinkube\nVmPeak:\t 9000 kB\nVmHWM:\t  218112 kB\nVmRSS:\t  204800 kB\nThreads:\t40\n"
	m, err := parseStatus(text)
	if err != nil {
		t.Fatal(err)
	}
	if m.rssKiB != 204800 || m.peakKiB != 218112 {
		t.Errorf("parseStatus = %+v", m)
	}
	if _, err := parseStatus("Name:\tkthreadd\nThreads:\t1\n"); err == nil {
		t.Error("a status without VmRSS (a kernel thread) was accepted")
	}
}

func TestCPUFromSamples(t *testing.T) {
	at := time.Unix(1000, 0)
	from := sample{at: at, ticks: map[string]uint64{"winkube": 100, "kube-apiserver": 500}}
	to := sample{at: at.Add(10 * time.Second), ticks: map[string]uint64{"winkube": 150, "kube-apiserver": 700}}
	secs := cpuSeconds(from, to)
	if secs["winkube"] != 0.5 || secs["kube-apiserver"] != 2 {
		t.Errorf("cpuSeconds = %v, want winkube 0.5 s and kube-apiserver 2 s", secs)
	}
	pct := cpuPercent(from, to)
	if pct["winkube"] != 5 || pct["kube-apiserver"] != 20 {
		t.Errorf("cpuPercent = %v, want winkube 5 %% and kube-apiserver 20 %%", pct)
	}
}

func TestParseUpLines(t *testing.T) {
	var times upTimes
	for _, l := range []string{
		`Starting cluster "bench" in /tmp/x: 500 × win2019 (windows 10.0.17763)`,
		" ✓ kube-apiserver                     6.6s",
		" ✓ 1000 nodes Ready                   52.8s",
		"Cluster ready in 1m1.8s.",
	} {
		if err := times.parseUpLine(l); err != nil {
			t.Fatal(err)
		}
	}
	if times.nodesReady != 52800*time.Millisecond || times.clusterReady != 61800*time.Millisecond {
		t.Errorf("parsed %+v, want nodes Ready 52.8s and cluster ready 1m1.8s", times)
	}
}

func TestPoolsSplitNodesAndPods(t *testing.T) {
	ps := pools(1000, 10000, "")
	var nodes, pods int
	for _, p := range ps {
		nodes += p.count
		pods += p.pods
	}
	if nodes != 1000 || pods != 10000 || ps[0].count != 500 || ps[1].count != 250 || ps[0].pods != 5000 {
		t.Errorf("pools(1000, 10000) = %+v", ps)
	}
	if odd := pools(7, 9, ""); odd[2].count != 3 || odd[2].pods != 3 {
		t.Errorf("the Linux pool takes the remainder: %+v", odd)
	}
	// POOL puts every pod on one pool, one Deployment, the others idle.
	dense := pools(1000, 10000, "win2019")
	if dense[0].pods != 10000 || dense[1].pods != 0 || dense[2].pods != 0 || dense[0].count != 500 {
		t.Errorf("pools(1000, 10000, win2019) = %+v", dense)
	}
	cmd := []string{"cmd", "/c", "ping -t localhost > NUL"}
	deps := deployments(dense, "mcr.microsoft.com/windows/servercore:ltsc2019", cmd)
	if len(deps) != 1 {
		t.Fatalf("%d Deployments for one dense pool, want 1", len(deps))
	}
	spec := deps[0].Spec.Template.Spec
	if *deps[0].Spec.Replicas != 10000 || spec.NodeSelector["node.kubernetes.io/windows-build"] != dense[0].build ||
		len(spec.Tolerations) != 1 || spec.Containers[0].Image != "mcr.microsoft.com/windows/servercore:ltsc2019" ||
		strings.Join(spec.Containers[0].Command, "|") != strings.Join(cmd, "|") {
		t.Errorf("dense Deployment: %d replicas, spec %+v", *deps[0].Spec.Replicas, spec)
	}
}

func TestParseCommand(t *testing.T) {
	for in, want := range map[string]string{
		"cmd /c ping -t localhost > NUL":           "cmd|/c|ping|-t|localhost|>|NUL",
		`["cmd", "/c", "ping -t localhost > NUL"]`: "cmd|/c|ping -t localhost > NUL",
		"": "",
	} {
		got, err := parseCommand(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("parseCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := parseCommand(`["cmd", 1]`); err == nil || !strings.Contains(err.Error(), "COMMAND") {
		t.Errorf("a malformed JSON command gave %v, want an error naming COMMAND", err)
	}
}

// The cluster network grows with NODES, so every size passes winkube's
// capacity check (a fixed /12 held only 4,096 node subnets), and a size
// no network of the layout holds is refused with an error naming NODES.
func TestNetworkSizedForNodes(t *testing.T) {
	for _, nodes := range []int{4, 1000, 4096, 4097, 5000, 10000, 16384, 20000, 32768} {
		data, err := clusterConfig("bench-winkube", nodes, pools(nodes, nodes, ""), nil)
		if err != nil {
			t.Fatalf("%d nodes: %v", nodes, err)
		}
		path := filepath.Join(t.TempDir(), "cluster.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := v1alpha1.Load(path)
		if err != nil {
			t.Errorf("%d nodes: %v\n%s", nodes, err, data)
			continue
		}
		if c.NodeCount() != nodes {
			t.Errorf("%d nodes: the config has %d", nodes, c.NodeCount())
		}
	}
	if _, err := network(40000); err == nil || !strings.Contains(err.Error(), "NODES") {
		t.Errorf("network(40000) gave %v, want an error naming NODES", err)
	}
}

// The generated configs must pass winkube's own validation, including its
// network capacity check at the full size.
func TestClusterConfigsValidate(t *testing.T) {
	cp := map[string]map[string]string{"kube-controller-manager": {"kube-api-qps": "200"}}
	for name, cfg := range map[string]func() ([]byte, error){
		"winkube 1000 nodes": func() ([]byte, error) { return clusterConfig("bench-winkube", 1000, pools(1000, 10000, ""), nil) },
		"kwok no nodes":      func() ([]byte, error) { return clusterConfig("bench-kwok", 1000, nil, cp) },
	} {
		data, err := cfg()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "cluster.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := v1alpha1.Load(path)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, data)
		}
		if name == "kwok no nodes" && (c.NodeCount() != 0 || c.ControlPlane["kube-controller-manager"]["kube-api-qps"] != "200") {
			t.Errorf("%s: %d nodes, controlPlane %v", name, c.NodeCount(), c.ControlPlane)
		}
		if name == "winkube 1000 nodes" && c.NodeCount() != 1000 {
			t.Errorf("%s: %d nodes", name, c.NodeCount())
		}
	}
}

func TestSizedFlags(t *testing.T) {
	args := []string{"/tmp/winkube", "component", "kube-controller-manager",
		"--kubeconfig=/x/kcm.conf", "--concurrent-gc-syncs=200", "--kube-api-burst=300", "--kube-api-qps=200", "--v=2"}
	got := sizedFlags(args)
	want := map[string]string{"concurrent-gc-syncs": "200", "kube-api-burst": "300", "kube-api-qps": "200"}
	if len(got) != len(want) {
		t.Fatalf("sizedFlags = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("sizedFlags[%s] = %q, want %q", k, got[k], v)
		}
	}
}

func TestTable(t *testing.T) {
	wk := result{ClusterReady: 5, NodesReady: 2, PodsRunning: 10, IdleNodesCPU: map[string]float64{"winkube": 3, "kube-apiserver": 6}}
	kw := result{ClusterReady: 5, NodesReady: 4, PodsRunning: 10, IdleNodesCPU: map[string]float64{"winkube": 1, "kwok": 2, "kube-apiserver": 6}}
	var b bytes.Buffer
	if err := writeTable(&b, rows(20, 100, wk, kw)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	cells := map[string][]string{}
	for _, l := range lines {
		f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1)
		if _, seen := cells[f[0]]; !seen {
			cells[f[0]] = f[1:] // the first section's rows
		}
		// Values are right-aligned: every row with values is as wide as the header.
		if len(f) > 1 && len(l) != len(lines[0]) {
			t.Errorf("row %q is %d wide, the header %d", l, len(l), len(lines[0]))
		}
	}
	for label, want := range map[string][]string{
		"20 nodes Ready": {"2.0 s", "4.0 s", "0.50"},
		"kwok":           {"-", "2.0 %", "-"},
		"winkube":        {"3.0 %", "1.0 %", "3.00"},
		"total":          {"9.0 %", "9.0 %", "1.00"},
	} {
		if got := cells[label]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("row %q = %q, want %q\n%s", label, got, want, b.String())
		}
	}
}

// A skipped kwok run prints "-" in its column and no ratio.
func TestTableWithoutKwok(t *testing.T) {
	wk := result{ClusterReady: 5, NodesReady: 2, PodsRunning: 10, IdleNodesCPU: map[string]float64{"winkube": 3}}
	var b strings.Builder
	if err := writeTable(&b, rows(20, 100, wk, result{})); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1)
		if len(f) == 4 && f[0] != "metric" && (f[2] != "-" || f[3] != "-") {
			t.Errorf("row %q has a kwok value or ratio", l)
		}
	}
}

func TestPodStateAndCounts(t *testing.T) {
	waiting := &corev1.Pod{
		Spec: corev1.PodSpec{NodeName: "win2019-1"},
		Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{
			{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}},
		}},
	}
	for want, p := range map[string]*corev1.Pod{
		"Running":                   {Status: corev1.PodStatus{Phase: corev1.PodRunning}},
		"unscheduled":               {Status: corev1.PodStatus{Phase: corev1.PodPending}},
		"Pending/ContainerCreating": waiting,
		"Terminating":               {ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &metav1.Time{}}, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
	} {
		if got := podState(p); got != want {
			t.Errorf("podState = %q, want %q", got, want)
		}
	}
	w := &watcher{
		nodes: map[string]string{"a": "Ready", "b": "NotReady"},
		pods:  map[string]string{"p1": "Running", "p2": "Pending/ContainerCreating", "p3": "Pending/ContainerCreating", "p4": "unscheduled"},
	}
	want := "1/2 nodes Ready, 1/4 pods Running (2 Pending/ContainerCreating, 1 unscheduled)"
	if got := w.counts().String(); got != want {
		t.Errorf("counts = %q, want %q", got, want)
	}
}
