package doctor

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/winkube/winkube/pkg/rules"
)

// A healthy seed-shaped cluster reports nothing above info; the info
// findings are the node-shell checks, each with its command.
// rule: TS-2, TS-6, TS-10, TS-13, TS-14, NET-6
func TestHealthyClusterOnlyInfo(t *testing.T) {
	r := Check(healthy())
	shell := map[string]bool{}
	for _, f := range r.Findings {
		if f.Severity > rules.SeverityInfo {
			t.Errorf("healthy cluster: %s %s %v: %s (evidence %s)", f.Severity, f.Rule, f.Objects, f.Message, f.Evidence)
		}
		if f.Command != "" {
			shell[f.Rule] = true
		}
	}
	for _, rule := range []string{"TS-2", "TS-6", "TS-10", "TS-13", "TS-14", "NET-6"} {
		if !shell[rule] {
			t.Errorf("no node-shell check for %s", rule)
		}
	}
	if r.Summary.Nodes != 3 || r.Summary.WindowsNodes != 2 || r.Fails(rules.SeverityWarning) {
		t.Errorf("summary %+v", r.Summary)
	}
}

func TestShellChecksUseClusterValues(t *testing.T) {
	// rule: NET-6, TS-10
	for _, f := range Check(healthy()).Findings {
		switch f.Rule {
		case "NET-6":
			if !strings.Contains(f.Fix, "10.244.0.0/16") || !strings.Contains(f.Fix, "10.96.0.0/12") {
				t.Errorf("NET-6 fix does not name the seed CIDRs: %s", f.Fix)
			}
		case "TS-10":
			if !strings.Contains(f.Message, "vxlan0") {
				t.Errorf("TS-10 does not name the HNS network vxlan0: %s", f.Message)
			}
		}
	}
}

// Each case breaks the healthy cluster one way; the doctor must report the
// rule at the severity on the object.
func TestChecks(t *testing.T) {
	cases := []struct {
		name     string
		rule     string
		severity rules.Severity
		object   string // an Object.String() the finding must name
		evidence string // a substring of the evidence
		mutate   func(s *State)
	}{
		{
			// rule: TS-1
			name: "node NotReady", rule: "TS-1", severity: rules.SeverityError, object: "Node win2019-1", evidence: "NodeStatusUnknown",
			mutate: func(s *State) {
				n := s.node("win2019-1")
				n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status."}}
				n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute})
			},
		},
		{
			// rule: TS-1
			name: "lease stale", rule: "TS-1", severity: rules.SeverityError, object: "Lease kube-node-lease/win2022-1", evidence: "renewTime",
			mutate: func(s *State) { s.Leases[2] = lease("win2022-1", now.Add(-5*time.Minute)) },
		},
		{
			// rule: TS-1
			name: "lease missing", rule: "TS-1", severity: rules.SeverityError, object: "Node linux-1", evidence: "not found",
			mutate: func(s *State) { s.Leases = s.Leases[1:] },
		},
		{
			// rule: TS-1
			name: "no kube-proxy pod on a covered Windows node", rule: "TS-1", severity: rules.SeverityError, object: "DaemonSet kube-system/kube-proxy-windows",
			mutate: func(s *State) { s.Pods = dropPod(s.Pods, "kube-proxy-win2019-1") },
		},
		{
			// rule: TS-1
			name: "no kube-proxy DaemonSet at all", rule: "TS-1", severity: rules.SeverityWarning, object: "Node win2022-1",
			mutate: func(s *State) { s.DaemonSets, s.AllDaemonSets = nil, nil },
		},
		{
			// rule: TS-5, KP-8
			name: "kube-proxy without --hostname-override", rule: "TS-5", severity: rules.SeverityError, object: "DaemonSet kube-system/kube-proxy-windows", evidence: "--network-name=vxlan0",
			mutate: func(s *State) { s.DaemonSets[0] = proxyDS(without(seedProxyArgs, "--hostname-override")...) },
		},
		{
			// rule: KP-8
			name: "kube-proxy --hostname-override is not the node name", rule: "KP-8", severity: rules.SeverityError, object: "Node win2019-1", evidence: "--hostname-override=win-host",
			mutate: func(s *State) {
				s.DaemonSets[0] = proxyDS(append(without(seedProxyArgs, "--hostname-override"), "--hostname-override=win-host")...)
			},
		},
		{
			// rule: KP-1
			name: "kube-proxy without --network-name", rule: "KP-1", severity: rules.SeverityError, object: "DaemonSet kube-system/kube-proxy-windows",
			mutate: func(s *State) { s.DaemonSets[0] = proxyDS(without(seedProxyArgs, "--network-name")...) },
		},
		{
			// rule: NET-2
			name: "VNI 1 Windows rejects", rule: "NET-2", severity: rules.SeverityError, object: "ConfigMap kube-system/kube-flannel-cfg", evidence: `"VNI": 1`,
			mutate: func(s *State) {
				s.ConfigMaps[0].Data["net-conf.json"] = `{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "VNI": 1, "Port": 4789}}`
			},
		},
		{
			// rule: TS-7
			name: "flannel pod not ready", rule: "TS-7", severity: rules.SeverityError, object: "Pod kube-system/flannel-win2022-1", evidence: "CrashLoopBackOff",
			mutate: func(s *State) {
				p := s.pod("flannel-win2022-1")
				p.Status.Conditions[0].Status = corev1.ConditionFalse
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container"}}}}
			},
		},
		{
			// rule: TS-8
			name: "node without pod CIDR", rule: "TS-8", severity: rules.SeverityError, object: "Node win2019-1",
			mutate: func(s *State) {
				n := s.node("win2019-1")
				n.Spec.PodCIDR, n.Spec.PodCIDRs = "", nil
			},
		},
		{
			// rule: TS-8
			name: "no flannel pod and no flannel annotations", rule: "TS-8", severity: rules.SeverityError, object: "Node win2022-1",
			mutate: func(s *State) {
				s.Pods = dropPod(s.Pods, "flannel-win2022-1")
				s.node("win2022-1").Annotations = nil
			},
		},
		{
			// rule: TS-11, IMG-5
			name: "pause image without the 2022 build", rule: "TS-11", severity: rules.SeverityError, object: "Node win2022-1", evidence: "windows/amd64:10.0.17763",
			mutate: func(s *State) {
				p := runningPod("shop", "iis", "win2022-1", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", "")
				p.Status = corev1.PodStatus{Phase: corev1.PodPending}
				s.Pods = append(s.Pods, p)
				s.Events = append(s.Events, &corev1.Event{
					ObjectMeta:     metav1.ObjectMeta{Name: "iis.1", Namespace: "shop"},
					InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "iis"},
					Reason:         "FailedCreatePodSandBox", Type: corev1.EventTypeWarning, Count: 3,
					Message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox image "mcr.microsoft.com/oss/kubernetes/pause:1.4.1": failed to pull image "mcr.microsoft.com/oss/kubernetes/pause:1.4.1": failed to pull and unpack image "mcr.microsoft.com/oss/kubernetes/pause:1.4.1": no match for platform in manifest: not found`,
				})
			},
		},
		{
			// rule: SCH-5
			name: "Linux DaemonSet tolerating everything", rule: "SCH-5", severity: rules.SeverityError, object: "DaemonSet kube-system/log-agent", evidence: "desired 3, ready 1",
			mutate: func(s *State) {
				ds := daemonSet("log-agent", corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers: []corev1.Container{{Name: "agent", Image: "busybox:1.36"}}})
				ds.Status.DesiredNumberScheduled, ds.Status.NumberReady = 3, 1
				s.AllDaemonSets = append(s.AllDaemonSets, ds)
				s.Pods = append(s.Pods, runningPod("kube-system", "log-agent-a", "linux-1", "busybox:1.36", "log-agent"))
			},
		},
		{
			// rule: IMG-2: a 2022-only index on 2019 nodes fails the pull
			// on containerd; the rule book's verdict names the build rule,
			// as lint and the webhook do.
			name: "Windows DaemonSet of another build", rule: "IMG-2", severity: rules.SeverityError, object: "DaemonSet kube-system/win-agent", evidence: "desired 2, ready 0",
			mutate: func(s *State) {
				ds := daemonSet("win-agent", corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/os": "windows"},
					Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers:  []corev1.Container{{Name: "agent", Image: "mcr.microsoft.com/windows/nanoserver:ltsc2022"}}})
				ds.Status.DesiredNumberScheduled, ds.Status.NumberReady = 2, 0
				s.AllDaemonSets = append(s.AllDaemonSets, ds)
			},
		},
		{
			// rule: SCH-5
			name: "Linux pod failing to pull on a Windows node", rule: "SCH-5", severity: rules.SeverityError, object: "Node win2019-1", evidence: "no match for platform",
			mutate: func(s *State) {
				p := runningPod("shop", "nginx", "win2019-1", "nginx:1.27", "")
				p.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "main", Image: "docker.io/library/nginx:1.27",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "nginx:1.27": ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.27": no match for platform in manifest: not found`}}}}}
				s.Pods = append(s.Pods, p)
			},
		},
		{
			// rule: IMG-2
			name: "Windows 2022 image on a 2019 node", rule: "IMG-2", severity: rules.SeverityError, object: "Node win2019-1", evidence: "StartError",
			mutate: func(s *State) {
				p := runningPod("shop", "app", "win2019-1", "registry.example.com/windows/app:ltsc2022", "")
				p.Status = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "main", Image: "registry.example.com/windows/app:ltsc2022",
					State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 10s"}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 128, Reason: "StartError", Message: "hcs::CreateComputeSystem main: The container operating system does not match the host operating system."}}}}}
				s.Pods = append(s.Pods, p)
			},
		},
		{
			// rule: TS-12, DNS-1
			name: "PQDN service name in a Windows pod", rule: "TS-12", severity: rules.SeverityWarning, object: "Pod shop/client", evidence: "http://kubernetes.default:443",
			mutate: func(s *State) {
				p := runningPod("shop", "client", "win2019-1", "mcr.microsoft.com/windows/servercore:ltsc2019", "")
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "API", Value: "http://kubernetes.default:443"}}
				s.Pods = append(s.Pods, p)
			},
		},
		{
			// rule: TS-3, LIM-17
			name: "ping probe in a Windows pod", rule: "TS-3", severity: rules.SeverityWarning, object: "Pod shop/pinger", evidence: "ping -n 1 8.8.8.8",
			mutate: func(s *State) {
				p := runningPod("shop", "pinger", "win2022-1", "mcr.microsoft.com/windows/servercore:ltsc2022", "")
				p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cmd", "/c", "ping -n 1 8.8.8.8"}}}}
				s.Pods = append(s.Pods, p)
			},
		},
		{
			// rule: TS-9, LIM-16
			name: "host-network Windows pod probing a Service IP", rule: "TS-9", severity: rules.SeverityWarning, object: "Node win2019-1", evidence: "10.96.0.20:80",
			mutate: func(s *State) {
				p := runningPod("kube-system", "monitor", "win2019-1", "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0", "")
				p.Spec.HostNetwork = true
				p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Host: "10.96.0.20", Port: intstr.FromInt32(80)}}}
				s.Pods = append(s.Pods, p)
			},
		},
		{
			// rule: TS-4, LIM-16
			name: "host-network Windows pod probing its own NodePort", rule: "TS-4", severity: rules.SeverityWarning, object: "Node win2022-1", evidence: "localhost:30080",
			mutate: func(s *State) {
				s.Services[2].Spec.Ports[0].NodePort = 30080
				p := runningPod("kube-system", "monitor", "win2022-1", "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0", "")
				p.Spec.HostNetwork = true
				p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(30080)}}}
				s.Pods = append(s.Pods, p)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := healthy()
			tc.mutate(s)
			r := Check(s)
			if f, ok := find(r, tc.rule, tc.object); !ok {
				t.Errorf("no %s finding on %s; findings:\n%s", tc.rule, tc.object, dump(r))
			} else if f.Severity != tc.severity || !strings.Contains(f.Evidence, tc.evidence) || f.Fix == "" {
				t.Errorf("%s on %s: severity %s (want %s), evidence %q (want %q), fix %q", tc.rule, tc.object, f.Severity, tc.severity, f.Evidence, tc.evidence, f.Fix)
			}
		})
	}
}

// A Linux DaemonSet whose pods fail on Windows nodes is reported once, as
// the DaemonSet, not once more per failing pod.
// rule: SCH-5
func TestDaemonSetNotReportedTwice(t *testing.T) {
	s := healthy()
	ds := daemonSet("log-agent", corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		Containers: []corev1.Container{{Name: "agent", Image: "busybox:1.36"}}})
	ds.Status.DesiredNumberScheduled, ds.Status.NumberReady = 3, 1
	s.AllDaemonSets = append(s.AllDaemonSets, ds)
	p := runningPod("kube-system", "log-agent-w", "win2019-1", "busybox:1.36", "log-agent")
	p.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "agent", Image: "docker.io/library/busybox:1.36",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: "no match for platform in manifest: not found"}}}}}
	s.Pods = append(s.Pods, p)
	n := 0
	for _, f := range Check(s).Findings {
		if f.Rule == "SCH-5" {
			n++
			if !strings.Contains(f.Fix, "operator Exists and no key") || !strings.Contains(f.Evidence, "ErrImagePull") {
				t.Errorf("SCH-5 fix %q, evidence %q", f.Fix, f.Evidence)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d SCH-5 findings, want 1", n)
	}
}

// rule: SCH-5
// A DaemonSet whose init and main containers share an image names each
// node it cannot run on once, in the message and in the objects.
func TestDaemonSetNodesListedOnce(t *testing.T) {
	s := healthy()
	ds := daemonSet("log-agent", corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		InitContainers: []corev1.Container{{Name: "setup", Image: "busybox:1.36"}},
		Containers:     []corev1.Container{{Name: "agent", Image: "busybox:1.36"}}})
	ds.Status.DesiredNumberScheduled, ds.Status.NumberReady = 3, 1
	s.AllDaemonSets = append(s.AllDaemonSets, ds)
	for _, f := range Check(s).Findings {
		if f.Rule != "SCH-5" {
			continue
		}
		seen := map[Object]bool{}
		for _, o := range f.Objects {
			if seen[o] {
				t.Errorf("%s listed twice: %v", o, f.Objects)
			}
			seen[o] = true
		}
		if strings.Count(f.Message, "win2019-1") != 1 {
			t.Errorf("message names win2019-1 %d times: %s", strings.Count(f.Message, "win2019-1"), f.Message)
		}
		return
	}
	t.Error("no SCH-5 finding")
}

// A FQDN, a bare name and a name of another namespace written in full are
// fine on Windows (DNS-1); so is a PQDN in a Linux pod.
// rule: DNS-1
func TestDNSNamesThatWork(t *testing.T) {
	s := healthy()
	win := runningPod("shop", "client", "win2019-1", "mcr.microsoft.com/windows/servercore:ltsc2019", "")
	win.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "web"}, {Name: "B", Value: "kubernetes.default.svc.cluster.local"}, {Name: "C", Value: "www.example.com"}}
	lin := runningPod("shop", "linux-client", "linux-1", "busybox:1.36", "")
	lin.Spec.Containers[0].Args = []string{"wget", "http://kubernetes.default"}
	s.Pods = append(s.Pods, win, lin)
	for _, f := range Check(s).Findings {
		if f.Rule == "TS-12" {
			t.Errorf("unexpected TS-12: %s", f.Message)
		}
	}
}

func find(r *Report, rule, object string) (Finding, bool) {
	for _, f := range r.Findings {
		if f.Rule != rule {
			continue
		}
		for _, o := range f.Objects {
			if o.String() == object {
				return f, true
			}
		}
	}
	return Finding{}, false
}

func dump(r *Report) string {
	var b strings.Builder
	_ = Text(&b, r)
	return b.String()
}

func dropPod(pods []*corev1.Pod, name string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if p.Name != name {
			out = append(out, p)
		}
	}
	return out
}

func without(args []string, flag string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, flag) {
			out = append(out, a)
		}
	}
	return out
}
