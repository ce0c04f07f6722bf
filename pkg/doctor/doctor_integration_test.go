package doctor_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/addons"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/doctor"
	"github.com/winkube/winkube/pkg/node"
	"github.com/winkube/winkube/pkg/rules"
)

// The tests below run in file order: the clean cluster first, then one
// injected fault each, undone when the test ends.

// A default `winkube up` cluster reports nothing at error: `winkube
// doctor` exits 0, and 1 with --fail-on info (the node-shell checks).
// rule: TS-1, TS-5, TS-7, TS-8, TS-11
func TestCleanClusterHasNoErrors(t *testing.T) {
	needCluster(t)
	r, err := doctor.Run(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if f.Severity == rules.SeverityError {
			t.Errorf("clean cluster: %s %v: %s (evidence: %s)", f.Rule, f.Objects, f.Message, f.Evidence)
		} else {
			t.Logf("%s %s %v: %s", f.Severity, f.Rule, f.Objects, f.Message)
		}
	}
	if r.Summary.WindowsNodes != 3 {
		t.Errorf("summary %+v, want the default cluster's 3 Windows nodes", r.Summary)
	}
	if code, out := runDoctor(t, "text", "error"); code != 0 || !strings.Contains(out, "0 errors") {
		t.Errorf("doctor: exit %d\n%s", code, out)
	}
	code, out := runDoctor(t, "json", "info")
	var report struct {
		Findings []struct{ Rule, Severity, Command string }
		Summary  doctor.Summary
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 1 || report.Summary.Infos == 0 || report.Findings[0].Severity != "info" {
		t.Errorf("doctor -o json --fail-on info: exit %d, %v, summary %+v\n%s", code, err, report.Summary, out)
	}
}

// A Linux DaemonSet that tolerates every taint lands on the Windows nodes,
// where its image fails to pull: the DaemonSet is never ready there.
// rule: SCH-5
func TestLinuxDaemonSetToleratingEverything(t *testing.T) {
	needCluster(t)
	ns := cptest.Namespace(t, client)
	labels := map[string]string{"app": "log-agent"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "log-agent", Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				Containers:  []corev1.Container{{Name: "agent", Image: "busybox:1.36"}},
			}},
		},
	}
	if _, err := client.AppsV1().DaemonSets(ns).Create(context.Background(), ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f := waitFinding(t, "SCH-5", "DaemonSet "+ns+"/log-agent")
	if !strings.Contains(f.Fix, "kubernetes.io/os: linux") || !strings.Contains(f.Evidence, "desired 4") {
		t.Errorf("SCH-5: fix %q, evidence %q", f.Fix, f.Evidence)
	}
	if code, out := runDoctor(t, "text", "error"); code != 1 || !strings.Contains(out, "SCH-5") {
		t.Errorf("doctor: exit %d, want 1 naming SCH-5:\n%s", code, out)
	}
}

// A pod whose sandbox image has no entry for Windows Server 2022 stays
// ContainerCreating with FailedCreatePodSandBox.
// rule: TS-11, IMG-5
func TestWrongPauseImage(t *testing.T) {
	needCluster(t)
	ns := cptest.Namespace(t, client)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "iis", Namespace: ns,
			Annotations: map[string]string{node.AnnotationSandboxImage: "mcr.microsoft.com/oss/kubernetes/pause:1.4.1"}},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.20348"},
			Tolerations:  []corev1.Toleration{{Key: v1alpha1.WindowsTaint.Key, Value: v1alpha1.WindowsTaint.Value, Effect: v1alpha1.WindowsTaint.Effect}},
			Containers:   []corev1.Container{{Name: "iis", Image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}},
		},
	}
	if _, err := client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f := waitFinding(t, "TS-11", "Pod "+ns+"/iis")
	if f.Severity != rules.SeverityError || !strings.Contains(f.Evidence, "pause:1.4.1") || !strings.Contains(f.Fix, node.AnnotationSandboxImage) {
		t.Errorf("TS-11: %s, evidence %q, fix %q", f.Severity, f.Evidence, f.Fix)
	}
}

// kube-proxy-windows without --hostname-override (TS-5), then without
// --network-name (KP-1).
// rule: TS-5, KP-1
func TestKubeProxyArgsEdited(t *testing.T) {
	needCluster(t)
	dss := client.AppsV1().DaemonSets("kube-system")
	orig, err := dss.Get(context.Background(), addons.KubeProxyWindowsDaemonSet, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { setProxyArgs(t, orig.Spec.Template.Spec.Containers[0].Args) })
	args := orig.Spec.Template.Spec.Containers[0].Args
	for _, tc := range []struct{ drop, rule string }{{"--hostname-override", "TS-5"}, {"--network-name", "KP-1"}} {
		setProxyArgs(t, dropArg(args, tc.drop))
		f := waitFinding(t, tc.rule, "DaemonSet kube-system/"+addons.KubeProxyWindowsDaemonSet)
		if f.Severity != rules.SeverityError || strings.Contains(f.Evidence, tc.drop) {
			t.Errorf("%s: %s, evidence %q still has %s", tc.rule, f.Severity, f.Evidence, tc.drop)
		}
		setProxyArgs(t, args)
	}
}

// A node whose kubelet stops renewing its lease: a second agent runs one
// more Windows node, stops, and its lease is dated back past its 40 s.
// rule: TS-1
func TestStoppedLease(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	cfg := &v1alpha1.Cluster{NodePools: []v1alpha1.NodePool{{Name: "stale", OS: v1alpha1.OSWindows, Release: "2022", Count: ptr.To(1),
		Nodes: []v1alpha1.PoolNode{{Name: "stale-1", ManagementIP: "10.127.130.99"}}}}}
	v1alpha1.SetDefaults(cfg)
	agent, err := node.Start(ctx, node.Options{Config: restConfig, Cluster: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().Nodes().Delete(ctx, "stale-1", metav1.DeleteOptions{})
		_ = client.CoordinationV1().Leases("kube-node-lease").Delete(ctx, "stale-1", metav1.DeleteOptions{})
	})
	select {
	case <-agent.Ready():
	case <-time.After(2 * time.Minute):
		t.Fatalf("stale-1 not Ready: %v", agent.NotReady())
	}
	// The node's lease is its own heartbeat, which may come a moment
	// after its Ready status (as a kubelet's lease controller runs beside
	// its status loop): wait for it before stopping the node.
	leases := client.CoordinationV1().Leases("kube-node-lease")
	var l *coordinationv1.Lease
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if l, err = leases.Get(ctx, "stale-1", metav1.GetOptions{}); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	agent.Close()
	if l, err = leases.Get(ctx, "stale-1", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	l.Spec.RenewTime = &metav1.MicroTime{Time: time.Now().Add(-5 * time.Minute)}
	if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f := waitFinding(t, "TS-1", "Lease kube-node-lease/stale-1")
	if f.Severity != rules.SeverityError || !strings.Contains(f.Message, "stopped being renewed") {
		t.Errorf("TS-1: %s %s", f.Severity, f.Message)
	}
}

// waitFinding runs the doctor until it reports rule on object.
func waitFinding(t *testing.T, rule, object string) doctor.Finding {
	t.Helper()
	var found doctor.Finding
	var last *doctor.Report
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		r, err := doctor.Run(ctx, client)
		if err != nil {
			return false, nil
		}
		last = r
		for _, f := range r.Findings {
			for _, o := range f.Objects {
				if f.Rule == rule && o.String() == object {
					found = f
					return true, nil
				}
			}
		}
		return false, nil
	})
	if err != nil {
		var b strings.Builder
		if last != nil {
			_ = doctor.Text(&b, last)
		}
		t.Fatalf("no %s finding on %s:\n%s", rule, object, b.String())
	}
	return found
}

func setProxyArgs(t *testing.T, args []string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		dss := client.AppsV1().DaemonSets("kube-system")
		ds, err := dss.Get(ctx, addons.KubeProxyWindowsDaemonSet, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		ds.Spec.Template.Spec.Containers[0].Args = args
		_, err = dss.Update(ctx, ds, metav1.UpdateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("update %s args: %v", addons.KubeProxyWindowsDaemonSet, err)
	}
}

func dropArg(args []string, flag string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, flag) {
			out = append(out, a)
		}
	}
	return out
}

// A pod that names a GMSA credential spec in a cluster without the
// windows-gmsa webhook keeps the name unresolved: doctor reads the
// cluster (no GMSACredentialSpec CRD here) and says its containers run
// without the identity.
// rule: GMSA-1
func TestUnresolvedGMSAName(t *testing.T) {
	needCluster(t)
	ns := cptest.Namespace(t, client)
	spec := "webapp01"
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "gmsa", Namespace: ns},
		Spec: corev1.PodSpec{
			OS:              &corev1.PodOS{Name: corev1.Windows},
			NodeSelector:    map[string]string{corev1.LabelOSStable: "windows"},
			Tolerations:     []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			SecurityContext: &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{GMSACredentialSpecName: &spec}},
			Containers:      []corev1.Container{{Name: "app", Image: "mcr.microsoft.com/windows/servercore:ltsc2022"}},
		},
	}
	if _, err := client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f := waitFinding(t, "GMSA-1", "Pod "+ns+"/gmsa")
	if f.Case != "unresolved" || f.Severity != rules.SeverityWarning || !strings.Contains(f.Message, `names GMSA cred spec "webapp01" but carries no gmsaCredentialSpec`) {
		t.Errorf("GMSA-1: %+v", f)
	}
}
