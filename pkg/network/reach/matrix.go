package reach

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Flow is one row of the flow matrix: a kind of connection (NET-9 plus the
// Windows-specific cases) and its verdict from a Windows and a Linux pod.
type Flow struct {
	Name    string  `json:"flow"`
	Windows *Result `json:"windows,omitempty"`
	Linux   *Result `json:"linux,omitempty"`
}

// Matrix is `winkube net matrix`: the flows of NET-9 from one Windows pod
// and one Linux pod of a namespace.
type Matrix struct {
	Namespace  string `json:"namespace"`
	WindowsPod string `json:"windowsPod"`
	LinuxPod   string `json:"linuxPod"`
	Service    string `json:"service"`
	Flows      []Flow `json:"flows"`
}

// External stand-ins for the pod → external flows. Nothing is sent: the
// model only decides which path such traffic takes.
const (
	externalIP   = "8.8.8.8"
	externalName = "example.com"
)

// Matrix checks every flow from the first running Windows pod and the
// first running Linux pod of namespace; a missing pod leaves its column
// empty.
func (c *Checker) Matrix(namespace string) (*Matrix, error) {
	win, lin := c.podOn(namespace, "windows"), c.podOn(namespace, "linux")
	if win == nil && lin == nil {
		return nil, inputErr("namespace %q has no running pods on Windows or Linux nodes", namespace)
	}
	svc := c.serviceIn(namespace)
	m := &Matrix{Namespace: namespace, WindowsPod: podRef(win), LinuxPod: podRef(lin)}
	if svc != nil {
		m.Service = "svc/" + svc.Namespace + "/" + svc.Name
	}
	for _, f := range c.flows(svc, win, lin) {
		row := Flow{Name: f.name}
		if win != nil && f.target(win) != "" {
			row.Windows = c.mustCheck(f.request(win))
		}
		if lin != nil && f.target(lin) != "" {
			row.Linux = c.mustCheck(f.request(lin))
		}
		m.Flows = append(m.Flows, row)
	}
	return m, nil
}

// flow is one row's recipe: a target chosen relative to the source pod.
type flow struct {
	name     string
	proto    string
	port     int
	fromNode bool // the source is the pod's node, not the pod
	target   func(src *corev1.Pod) string
}

func (f flow) request(src *corev1.Pod) Request {
	r := Request{Source: podRef(src), Target: f.target(src), Protocol: f.proto, Port: f.port}
	if f.fromNode {
		r.Source = "node/" + src.Spec.NodeName
	}
	return r
}

func (c *Checker) flows(svc *corev1.Service, win, lin *corev1.Pod) []flow {
	other := func(src *corev1.Pod) *corev1.Pod { return c.peer(src, svc) }
	podIP := func(src *corev1.Pod) string {
		if p := other(src); p != nil {
			return p.Status.PodIP
		}
		return ""
	}
	podName := func(src *corev1.Pod) string {
		if p := other(src); p != nil {
			return fmt.Sprintf("%s.%s.pod.%s", strings.ReplaceAll(p.Status.PodIP, ".", "-"), p.Namespace, c.domain())
		}
		return ""
	}
	svcRef := func(format string) func(*corev1.Pod) string {
		return func(*corev1.Pod) string {
			if svc == nil {
				return ""
			}
			return fmt.Sprintf(format, svc.Name, svc.Namespace, c.domain())
		}
	}
	fixed := func(s string) func(*corev1.Pod) string { return func(*corev1.Pod) string { return s } }
	otherNode := func(src *corev1.Pod) string {
		for _, n := range c.m.Nodes {
			if n.Name != src.Spec.NodeName {
				return "node/" + n.Name
			}
		}
		return ""
	}
	flows := []flow{
		{name: "pod → pod (IP)", target: podIP},
		{name: "pod → pod (name)", target: podName},
		{name: "pod → service (ClusterIP)", target: func(*corev1.Pod) string {
			if svc == nil {
				return ""
			}
			return "svc/" + svc.Namespace + "/" + svc.Name
		}},
		{name: "pod → service (PQDN, no dot)", target: svcRef("%[1]s")},
		{name: "pod → service (PQDN with a dot)", target: svcRef("%[1]s.%[2]s")},
		{name: "pod → service (FQDN)", target: svcRef("%[1]s.%[2]s.svc.%[3]s")},
		{name: "pod → external (IP)", target: fixed(externalIP), port: 443},
		{name: "pod → external (DNS)", target: fixed(externalName), port: 443},
		{name: "pod → external (ICMP)", target: fixed(externalIP), proto: ICMP},
		{name: "node → pod", target: podIP, fromNode: true},
		{name: "pod → node", target: otherNode, port: 10250},
	}
	if np := nodePortOf(svc); np > 0 {
		flows = append(flows, flow{name: "node → own NodePort", port: np, fromNode: true,
			target: func(src *corev1.Pod) string { return "node/" + src.Spec.NodeName }})
	}
	return flows
}

// peer is the pod a source talks to: a backend of the Service on another
// node when there is one, else any other running pod of the namespace.
func (c *Checker) peer(src *corev1.Pod, svc *corev1.Service) *corev1.Pod {
	var fallback *corev1.Pod
	for _, p := range c.podsOf(src.Namespace) {
		if p.UID == src.UID || !isRunning(p) || p.Spec.HostNetwork {
			continue
		}
		if svc != nil && selects(svc, p) && p.Spec.NodeName != src.Spec.NodeName {
			return p
		}
		if fallback == nil {
			fallback = p
		}
	}
	return fallback
}

// podOn is the first running pod of namespace on a node of the given OS.
func (c *Checker) podOn(namespace, os string) *corev1.Pod {
	for _, p := range c.podsOf(namespace) {
		n := c.m.Node(p.Spec.NodeName)
		if n != nil && n.OS == os && isRunning(p) && !p.Spec.HostNetwork {
			if _, err := netip.ParseAddr(p.Status.PodIP); err == nil {
				return p
			}
		}
	}
	return nil
}

// serviceIn is the first Service of namespace with a ClusterIP and a
// selector, preferring one with a NodePort.
func (c *Checker) serviceIn(namespace string) *corev1.Service {
	var first *corev1.Service
	for _, key := range sortedKeys(c.services) {
		s := c.services[key]
		if s.Namespace != namespace || len(s.Spec.Selector) == 0 || s.Spec.ClusterIP == "" || s.Spec.ClusterIP == corev1.ClusterIPNone {
			continue
		}
		if nodePortOf(s) > 0 {
			return s
		}
		if first == nil {
			first = s
		}
	}
	return first
}

func nodePortOf(s *corev1.Service) int {
	if s == nil {
		return 0
	}
	for _, p := range s.Spec.Ports {
		if p.NodePort > 0 {
			return int(p.NodePort)
		}
	}
	return 0
}

func podRef(p *corev1.Pod) string {
	if p == nil {
		return ""
	}
	return "pod/" + p.Namespace + "/" + p.Name
}

// mustCheck runs a request built from the model itself; an input error
// here would be a bug in the recipe, so it is reported in the result.
func (c *Checker) mustCheck(r Request) *Result {
	res, err := c.Check(r)
	if err != nil {
		return &Result{Source: r.Source, Target: r.Target, Reason: err.Error(), Hops: []Hop{}, Rules: []string{}}
	}
	return res
}
