package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

// netResult is the JSON `winkube net check -o json` prints.
type netResult struct {
	Source, Target, Protocol, ResolvedIP, Backend, Reason string
	Port                                                  int
	Reachable                                             bool
	Rules                                                 []string
	Hops                                                  []struct{ At, What string }
}

// netCheck runs `winkube net check` against the cluster of dir and
// returns its exit code and, for exit 0 and 1, the parsed result.
func netCheck(t *testing.T, dir string, args ...string) (int, netResult, string) {
	t.Helper()
	cmd := exec.Command(winkube, append([]string{"net", "check", "--kubeconfig", filepath.Join(dir, "kubeconfig"), "-o", "json"}, args...)...)
	out, err := cmd.Output()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
		out = append(out, exit.Stderr...)
	} else if err != nil {
		t.Fatal(err)
	}
	var res netResult
	if code != 2 {
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("net check %v: exit %d, output is not JSON: %v\n%s", args, code, err, out)
		}
	}
	return code, res, string(out)
}

// checkNet runs the networking a user meets first on the running cluster:
// the kube-system add-ons, cluster DNS, a LoadBalancer address, and
// `winkube net` verdicts with their rule IDs and exit codes.
func checkNet(t *testing.T, cs kubernetes.Interface, dir string) {
	t.Helper()
	ctx := context.Background()
	checkAddons(t, cs)
	checkDNS(t, cs, dir)
	checkLoadBalancer(t, cs)

	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=win-webserver"})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("web server pods: %v", err)
	}
	web := "pod/default/" + pods.Items[0].Name
	node := "node/" + pods.Items[0].Spec.NodeName
	svc, err := cs.CoreV1().Services("default").Get(ctx, "win-webserver", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodePort := svc.Spec.Ports[0].NodePort
	for _, tc := range []struct {
		args      []string
		code      int
		rules     []string
		resolveTo string
	}{
		// rule: NET-9, KP-3
		{args: []string{web, "svc/default/win-webserver"}, code: 0, rules: []string{"KP-3", "NET-9"}, resolveTo: svc.Spec.ClusterIP},
		// rule: DNS-1 — the name without a dot resolves, with a dot it does not
		{args: []string{web, "win-webserver"}, code: 0, resolveTo: svc.Spec.ClusterIP},
		{args: []string{web, "win-webserver.default"}, code: 1, rules: []string{"DNS-1"}},
		{args: []string{web, "win-webserver.default.svc.cluster.local"}, code: 0},
		// rule: LIM-17
		{args: []string{web, "8.8.8.8", "--protocol", "icmp"}, code: 1, rules: []string{"LIM-17"}},
		{args: []string{web, "8.8.8.8", "--port", "443"}, code: 0, rules: []string{"NET-6"}},
		// rule: LIM-16
		{args: []string{node, node, "--port", strconv.Itoa(int(nodePort))}, code: 1, rules: []string{"LIM-16"}},
		{args: []string{"node/linux-1", node, "--port", strconv.Itoa(int(nodePort))}, code: 0},
		{args: []string{"external", "svc/default/win-webserver"}, code: 1},
	} {
		code, res, out := netCheck(t, dir, tc.args...)
		if code != tc.code {
			t.Errorf("net check %v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
			continue
		}
		for _, r := range tc.rules {
			if !strings.Contains(strings.Join(res.Rules, ","), r) {
				t.Errorf("net check %v: rules %v lack %s", tc.args, res.Rules, r)
			}
		}
		if tc.resolveTo != "" && res.ResolvedIP != tc.resolveTo {
			t.Errorf("net check %v: resolvedIP %q, want %q", tc.args, res.ResolvedIP, tc.resolveTo)
		}
	}
	// Bad input: one line, exit 2.
	code, _, out := netCheck(t, dir, "pod/default/no-such-pod", "svc/default/win-webserver")
	if code != 2 || strings.Count(strings.TrimSpace(out), "\n") != 0 || !strings.Contains(out, "no-such-pod") {
		t.Errorf("unknown pod: exit %d, output %q; want exit 2 and one line naming it", code, out)
	}
	checkMatrix(t, dir)
	hns, err := exec.Command(winkube, "net", "hns", pods.Items[0].Spec.NodeName, "--kubeconfig", filepath.Join(dir, "kubeconfig")).CombinedOutput()
	// rule: KP-3, NET-5
	if err != nil || !strings.Contains(string(hns), "default/win-webserver:80") || !strings.Contains(string(hns), "0E-2A-") || !strings.Contains(string(hns), "FLANNEL_SUBNET=") {
		t.Errorf("net hns: %v\n%s", err, hns)
	}
}

// checkAddons: the cluster looks like seed 004's when it is finished.
func podIsReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func checkAddons(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	want := map[string]int{"kube-flannel-ds-windows": 3, "kube-proxy-windows": 3, "coredns": 2}
	deadline := time.Now().Add(time.Minute)
	for {
		pods, err := cs.CoreV1().Pods("kube-system").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		running := map[string]int{}
		// Every add-on must be Ready too, not only these: doctor (TS-7)
		// reports a Linux flanneld still running its init containers.
		allReady := true
		for _, p := range pods.Items {
			allReady = allReady && podIsReady(p)
			for prefix := range want {
				if strings.HasPrefix(p.Name, prefix+"-") && p.Status.Phase == corev1.PodRunning {
					running[prefix]++
				}
			}
		}
		done := allReady
		for k, n := range want {
			done = done && running[k] >= n
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-system add-ons running: %v, want %v, all Ready: %v", running, want, allReady)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// checkDNS asks the cluster DNS server at the address up wrote.
func checkDNS(t *testing.T, cs kubernetes.Interface, dir string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "dns-address"))
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSpace(string(raw))
	if ap, err := netip.ParseAddrPort(addr); err != nil || !ap.Addr().IsLoopback() {
		t.Fatalf("dns-address %q is not a loopback address", addr)
	}
	svc, err := cs.CoreV1().Services("default").Get(context.Background(), "win-webserver", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := new(dns.Msg)
	m.SetQuestion("win-webserver.default.svc.cluster.local.", dns.TypeA)
	r, err := dns.Exchange(m, addr)
	if err != nil || len(r.Answer) != 1 || r.Answer[0].(*dns.A).A.String() != svc.Spec.ClusterIP {
		t.Errorf("DNS answer for win-webserver: %v, %v; want %s", r, err, svc.Spec.ClusterIP)
	}
	dnsSvc, err := cs.CoreV1().Services("kube-system").Get(context.Background(), "kube-dns", metav1.GetOptions{})
	if err != nil || dnsSvc.Spec.ClusterIP != "10.96.0.10" {
		t.Errorf("kube-dns Service: %v, %v; want ClusterIP 10.96.0.10", dnsSvc, err)
	}
}

// checkLoadBalancer creates a LoadBalancer Service and waits for its
// address from the default pool, inside 127.0.0.0/8, then deletes it.
func checkLoadBalancer(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	svcs := cs.CoreV1().Services("default")
	_, err := svcs.Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web-lb"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "win-webserver"},
			Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(80)}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer svcs.Delete(ctx, "web-lb", metav1.DeleteOptions{})
	pool := netip.MustParsePrefix("127.127.131.0/24") // served on the host's loopback
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := svcs.Get(ctx, "web-lb", metav1.GetOptions{})
		if err == nil && len(s.Status.LoadBalancer.Ingress) == 1 {
			ip, err := netip.ParseAddr(s.Status.LoadBalancer.Ingress[0].IP)
			if err != nil || !pool.Contains(ip) {
				t.Errorf("LoadBalancer ingress %q is not in the pool %s", s.Status.LoadBalancer.Ingress[0].IP, pool)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("LoadBalancer Service got no address within 30s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkMatrix: every NET-9 flow works from the Linux pod; from the Windows
// pod, the Windows cases fail with their rules.
func checkMatrix(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command(winkube, "net", "matrix", "-o", "json", "--kubeconfig", filepath.Join(dir, "kubeconfig")).Output()
	if err != nil {
		t.Fatalf("net matrix: %v\n%s", err, out)
	}
	var m struct {
		WindowsPod, LinuxPod string
		Flows                []struct {
			Flow           string
			Windows, Linux *netResult
		}
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("net matrix -o json: %v\n%s", err, out)
	}
	// rule: NET-9, DNS-1, LIM-17
	wantWindowsFails := map[string]string{"pod → service (PQDN with a dot)": "DNS-1", "pod → external (ICMP)": "LIM-17"}
	for _, f := range m.Flows {
		if f.Windows == nil {
			t.Errorf("flow %q has no Windows verdict (Windows pod %q)", f.Flow, m.WindowsPod)
			continue
		}
		if rule, ok := wantWindowsFails[f.Flow]; ok && (f.Windows.Reachable || !strings.Contains(strings.Join(f.Windows.Rules, ","), rule)) {
			t.Errorf("flow %q from Windows: reachable %t rules %v, want unreachable by %s", f.Flow, f.Windows.Reachable, f.Windows.Rules, rule)
		}
		if f.Flow == "pod → service (ClusterIP)" && !f.Windows.Reachable {
			t.Errorf("ClusterIP from the Windows pod: %s", f.Windows.Reason)
		}
	}
}
