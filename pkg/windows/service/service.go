// Package service is the rule book's account of a Service whose backends
// run on Windows nodes: the limits of kube-proxy's winkernel proxier
// (LIM-10 … LIM-13, LIM-16), the features it needs a newer Windows build
// for (KP-5) and the known NodePort issue of overlay networks (KP-7).
// Like pkg/windows it is pure: no I/O.
package service

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/windows"
)

// Windows network modes that change the service rules (NET-1).
const (
	NetworkL2Bridge = "l2bridge"
	NetworkOverlay  = "overlay"
)

// Options describes the Windows nodes a Service's traffic reaches.
type Options struct {
	// K8sMinor is the cluster's Kubernetes minor version (LIM-11).
	K8sMinor int
	// DSR is true when kube-proxy runs with --enable-dsr (LIM-12, KP-5).
	DSR bool
	// NetworkMode is "l2bridge" or "overlay" (LIM-13); empty skips LIM-13's
	// overlay check.
	NetworkMode string
	// Backends is the number of backend pods; 0 skips LIM-11.
	Backends int
	// NodeBuild is the Windows nodes' build; zero skips the KP-5 checks.
	NodeBuild windows.Build
}

// Limitations checks a Service whose backends run on Windows nodes
// against LIM-10 … LIM-13, LIM-16 and the KP-5 build requirements (KP-7,
// which depends on each backend's node, is OverlayNodePortIssue).
func Limitations(svc *corev1.Service, opts Options) []windows.Violation {
	if svc == nil {
		return nil
	}
	path := field.NewPath("spec")
	var out []windows.Violation
	out = append(out, checkAffinityTimeout(&svc.Spec, path)...)
	out = append(out, checkBackends(opts, path)...)
	out = append(out, checkTrafficPolicy(&svc.Spec, opts, path)...)
	out = append(out, checkIPFamilies(&svc.Spec, opts, path)...)
	out = append(out, checkOwnNodePort(&svc.Spec, path)...)
	out = append(out, checkServiceFeatures(svc, opts, path)...)
	return out
}

// BackendNode is a node a Service's backend pods run on (doctor) or can
// land on (lint), as KP-7 reads it.
type BackendNode struct {
	Name        string
	Build       windows.Build
	NetworkMode string // NetworkOverlay or NetworkL2Bridge
}

// OverlayNodePortIssue is KP-7's first known issue, the one meaning lint
// and doctor share: the upstream warning (microsoft/Windows-Containers
// issue 204) is about the *destination* node. NodePort (and LoadBalancer)
// traffic a node forwards to a backend on a Windows Server 2022 node of an
// overlay network breaks unless the Service sets externalTrafficPolicy:
// Local, which keeps the traffic on the node that received it. nodes are
// the backends' nodes; dsr says whether kube-proxy runs with --enable-dsr
// (Local needs it, LIM-12), which picks the fix. Nil when nothing applies.
func OverlayNodePortIssue(spec *corev1.ServiceSpec, nodes []BackendNode, dsr bool) *windows.Violation {
	if spec.Type != corev1.ServiceTypeNodePort && spec.Type != corev1.ServiceTypeLoadBalancer ||
		spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		return nil
	}
	var hit []string
	for _, n := range nodes {
		if n.NetworkMode == NetworkOverlay && n.Build.Build == windows.Build2022 && !slices.Contains(hit, n.Name) {
			hit = append(hit, n.Name)
		}
	}
	if len(hit) == 0 {
		return nil
	}
	sort.Strings(hit)
	return &windows.Violation{
		Rule: "KP-7", Path: field.NewPath("spec", "externalTrafficPolicy").String(), Severity: windows.SeverityWarning,
		Message: fmt.Sprintf("known issue: NodePort traffic to the pods of this %s Service on Windows Server 2022 overlay nodes (%s) breaks unless the Service sets externalTrafficPolicy: Local",
			spec.Type, nameList(hit)),
		Fix: overlayNodePortFix(dsr),
	}
}

// overlayNodePortFix gets around KP-7's NodePort issue without running
// into LIM-12: Local is unsupported unless kube-proxy runs with DSR.
func overlayNodePortFix(dsr bool) string {
	if dsr {
		return "set spec.externalTrafficPolicy: Local (kube-proxy runs with --enable-dsr, which Local needs, LIM-12), or run the backends on Windows builds other than Server 2022"
	}
	return "run the backends on Windows builds other than Server 2022; or start kube-proxy with --feature-gates=WinDSR=true --enable-dsr=true and then set externalTrafficPolicy: Local, never Local alone: without DSR it is unsupported on Windows (LIM-12)"
}

// nameList shows up to three names and how many more there are.
func nameList(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

// checkAffinityTimeout: LIM-10.
func checkAffinityTimeout(spec *corev1.ServiceSpec, path *field.Path) []windows.Violation {
	c := spec.SessionAffinityConfig
	if c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
		return nil
	}
	return []windows.Violation{{
		Rule: "LIM-10", Path: path.Child("sessionAffinityConfig", "clientIP", "timeoutSeconds").String(), Severity: windows.SeverityWarning,
		Message: "sessionAffinityConfig.clientIP.timeoutSeconds is not honoured on Windows nodes",
		Fix:     "drop the timeout or do not rely on it for Windows backends",
	}}
}

// checkBackends: LIM-11.
func checkBackends(opts Options, path *field.Path) []windows.Violation {
	limit := windows.ServiceBackendLimit(opts.K8sMinor)
	if opts.Backends <= limit {
		return nil
	}
	return []windows.Violation{{
		Rule: "LIM-11", Path: path.String(), Severity: windows.SeverityError,
		Message: fmt.Sprintf("%d backend pods: Windows supports at most %d backend pods (unique destinations) per Service", opts.Backends, limit),
		Fix:     "split the backends over several Services, or scale down",
	}}
}

// checkTrafficPolicy: LIM-12 (Local needs DSR) and KP-5 client IP
// preservation.
func checkTrafficPolicy(spec *corev1.ServiceSpec, opts Options, path *field.Path) []windows.Violation {
	if spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal || opts.DSR {
		return nil
	}
	return []windows.Violation{{
		Rule: "LIM-12", Path: path.Child("externalTrafficPolicy").String(), Severity: windows.SeverityError,
		Message: "externalTrafficPolicy Local works on Windows only when kube-proxy runs with DSR",
		Fix:     "start kube-proxy with --feature-gates=WinDSR=true --enable-dsr=true, or use externalTrafficPolicy: Cluster",
	}}
}

// checkIPFamilies: LIM-13. IPv6-only is unsupported; IPv6 on overlay is
// unsupported, so dual-stack needs l2bridge.
func checkIPFamilies(spec *corev1.ServiceSpec, opts Options, path *field.Path) []windows.Violation {
	hasV4, hasV6 := false, false
	for _, f := range spec.IPFamilies {
		hasV4 = hasV4 || f == corev1.IPv4Protocol
		hasV6 = hasV6 || f == corev1.IPv6Protocol
	}
	p := path.Child("ipFamilies").String()
	switch {
	case hasV6 && !hasV4 && !requiresDualStack(spec):
		return []windows.Violation{{
			Rule: "LIM-13", Path: p, Severity: windows.SeverityError,
			Message: "IPv6-only single-stack Services are not supported on Windows",
			Fix:     "use IPv4, or dual-stack on an l2bridge network",
		}}
	case (hasV6 || requiresDualStack(spec)) && opts.NetworkMode == NetworkOverlay:
		return []windows.Violation{{
			Rule: "LIM-13", Path: p, Severity: windows.SeverityError,
			Message: "IPv6 is not supported on overlay (VXLAN) networks on Windows; dual-stack needs l2bridge",
			Fix:     "use IPv4 only, or switch the Windows nodes to l2bridge networking",
		}}
	}
	return nil
}

func requiresDualStack(spec *corev1.ServiceSpec) bool {
	return spec.IPFamilyPolicy != nil && *spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack
}

// checkOwnNodePort: LIM-16, as advice for NodePort and LoadBalancer Services.
func checkOwnNodePort(spec *corev1.ServiceSpec, path *field.Path) []windows.Violation {
	if spec.Type != corev1.ServiceTypeNodePort && spec.Type != corev1.ServiceTypeLoadBalancer {
		return nil
	}
	return []windows.Violation{{
		Rule: "LIM-16", Path: path.Child("type").String(), Severity: windows.SeverityInfo,
		Message: "a Windows node cannot reach its own NodePort or Service VIPs; other nodes, external clients and pods can",
		Fix:     "test the NodePort from another node or from outside the cluster",
	}}
}

// checkServiceFeatures: KP-5, features the node's build lacks. kube-proxy
// falls back silently, so these are warnings.
func checkServiceFeatures(svc *corev1.Service, opts Options, path *field.Path) []windows.Violation {
	if opts.NodeBuild.IsZero() {
		return nil
	}
	var out []windows.Violation
	need := func(f windows.Feature, p *field.Path, what string) {
		if windows.Supports(f, opts.NodeBuild) {
			return
		}
		min, _ := windows.MinBuild(f)
		out = append(out, windows.Violation{
			Rule: "KP-5", Path: p.String(), Severity: windows.SeverityWarning,
			Message: fmt.Sprintf("%s needs Windows build %d (%s) or newer; nodes run %s, so kube-proxy ignores it",
				what, min, windows.BuildName(min), opts.NodeBuild.Label()),
			Fix: "run the backends on newer Windows nodes",
		})
	}
	if svc.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
		need(windows.SessionAffinity, path.Child("sessionAffinity"), "sessionAffinity ClientIP")
	}
	if opts.DSR {
		need(windows.DSR, path, "DSR")
	}
	if svc.Annotations["preserve-destination"] == "true" {
		need(windows.PreserveDestination, field.NewPath("metadata", "annotations").Key("preserve-destination"), "preserve-destination")
	}
	if len(svc.Spec.IPFamilies) > 1 {
		need(windows.DualStack, path.Child("ipFamilies"), "dual-stack")
	}
	if svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal && opts.DSR {
		need(windows.ClientIPPreservation, path.Child("externalTrafficPolicy"), "client IP preservation")
	}
	return out
}
