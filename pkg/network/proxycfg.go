package network

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/cni"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// proxyInput is what decides how kube-proxy starts on one Windows node.
type proxyInput struct {
	node    *corev1.Node
	n       *Node  // Build, Mode and PodCIDR are set
	network string // the HNS network flanneld created; "" when none
	minor   int
}

// readProxy fills n.Proxy from the Windows kube-proxy DaemonSet covering
// the node, and says why kube-proxy would not start (KP-1, KP-2, KP-5) or
// would delete the node's endpoints (KP-8).
func readProxy(daemons []proxyDaemon, cms []*corev1.ConfigMap, in proxyInput) []rules.Finding {
	d, ok := proxyFor(daemons, in.node)
	if !ok {
		in.n.Proxy = Proxy{}
		return []rules.Finding{rules.New("TS-1", "no-kube-proxy", fmt.Sprintf("no kube-proxy runs on Windows node %s (no kube-system DaemonSet for Windows covers it), so no Service load balancers are programmed there", in.n.Name))}
	}
	f, fs := applyConfigFile(readFlags(d.c, in.node), d, cms)
	p := &in.n.Proxy
	// kube-proxy lower-cases the override, as node names are.
	*p = Proxy{Found: true, DaemonSet: d.ds.Name, Mode: "kernelspace", HostnameOverride: strings.ToLower(strings.TrimSpace(value(f, "hostname-override")))}
	if m := value(f, "proxy-mode"); m != "" {
		p.Mode = m
	}
	p.EnableDSR = boolValue(f, "enable-dsr")
	more, err := startProxy(f, p, in, d.ds.Name)
	fs = append(fs, more...)
	p.Running = err == nil
	if err != nil {
		return append(fs, *err)
	}
	return append(fs, hostnameFindings(p, in.n.Name)...)
}

// startProxy follows winkernel's start: mode, gates, network name, DSR,
// then overlay's WinOverlay gate and --source-vip. The first failure is
// returned; kube-proxy exits (or waits forever) with it.
func startProxy(f proxyFlags, p *Proxy, in proxyInput, ds string) ([]rules.Finding, *rules.Finding) {
	if p.Mode != "kernelspace" {
		return nil, finding("TS-1", fmt.Sprintf("kube-proxy (DaemonSet %s) has --proxy-mode=%s; on Windows only kernelspace exists, so it does not start", ds, p.Mode))
	}
	gates, err := parseGates(value(f, "feature-gates"))
	if err != nil {
		return nil, finding("KP-2", fmt.Sprintf("kube-proxy (DaemonSet %s): %v", ds, err))
	}
	p.FeatureGates = gates
	dsr, errDSR := gateEnabled(gateWinDSR, in.minor, gates)
	overlay, errOverlay := gateEnabled(gateWinOverlay, in.minor, gates)
	for _, e := range []error{errDSR, errOverlay} {
		if e != nil {
			return nil, finding("KP-2", fmt.Sprintf("kube-proxy (DaemonSet %s) exits: %v", ds, e))
		}
	}
	if fail := networkName(f, p, in, ds); fail != nil {
		return nil, fail
	}
	if fail := checkDSR(p, dsr, in.n.Build, ds); fail != nil {
		return nil, fail
	}
	if in.n.Mode != cni.ModeOverlay {
		return nil, nil
	}
	return overlayStart(f, p, in, overlay, ds)
}

// networkName: --network-name, else KUBE_NETWORK, else kube-proxy exits
// (KP-1); a name HNS does not have makes it wait for that network forever.
func networkName(f proxyFlags, p *Proxy, in proxyInput, ds string) *rules.Finding {
	p.NetworkName = value(f, "network-name")
	if p.NetworkName == "" {
		p.NetworkName = envValue(f, "KUBE_NETWORK")
	}
	switch {
	case p.NetworkName == "":
		return finding("KP-1", fmt.Sprintf("kube-proxy (DaemonSet %s) has neither --network-name nor KUBE_NETWORK, so it exits at start; set it to the HNS network name (vxlan0 or cbr0 in the seeds)", ds))
	case in.network == "":
		return finding("KP-1", fmt.Sprintf("kube-proxy waits for HNS network %q, which flanneld never created on %s", p.NetworkName, in.n.Name))
	case !strings.EqualFold(p.NetworkName, in.network):
		return finding("KP-1", fmt.Sprintf("kube-proxy (DaemonSet %s) looks for HNS network %q but flanneld created %q on %s: it waits for it forever and programs nothing; set --network-name (or KUBE_NETWORK) to %q", ds, p.NetworkName, in.network, in.n.Name, in.network))
	}
	return nil
}

// checkDSR: --enable-dsr needs the WinDSR gate (KP-2) and a build whose
// HNS supports DSR, else kube-proxy exits.
func checkDSR(p *Proxy, gate bool, build windows.Build, ds string) *rules.Finding {
	switch {
	case !p.EnableDSR:
		return nil
	case !gate:
		return finding("KP-2", fmt.Sprintf("kube-proxy (DaemonSet %s) has --enable-dsr but the WinDSR feature gate is off (alpha before 1.33): it exits with \"WinDSR feature gate not enabled\"; add --feature-gates=WinDSR=true", ds))
	case !windows.Supports(windows.DSR, build):
		return finding("KP-5", fmt.Sprintf("kube-proxy (DaemonSet %s) has --enable-dsr but Windows build %s has no DSR (needs Windows Server 2019): it exits at start", ds, build.Label()))
	}
	return nil
}

// overlayStart: an overlay network needs the WinOverlay gate and a
// --source-vip (KP-2). A value that is not an address is filled in by the
// DaemonSet's start script with the address it reserves in the node's
// subnet (.2).
func overlayStart(f proxyFlags, p *Proxy, in proxyInput, gate bool, ds string) ([]rules.Finding, *rules.Finding) {
	if !gate {
		return nil, finding("KP-2", fmt.Sprintf("kube-proxy (DaemonSet %s) runs on an overlay network but the WinOverlay feature gate is off: it exits with \"WinOverlay feature gate not enabled\"; add --feature-gates=WinOverlay=true", ds))
	}
	v, ok := f.get("source-vip")
	if !ok || v == "" {
		return nil, finding("KP-2", fmt.Sprintf("kube-proxy (DaemonSet %s) runs on an overlay network without --source-vip: it exits with \"source-vip flag not set\"", ds))
	}
	if ip, err := netip.ParseAddr(v); err == nil {
		p.SourceVIP = ip
		if !in.n.PodCIDR.Contains(ip) {
			return []rules.Finding{rules.New("KP-2", "", fmt.Sprintf("kube-proxy --source-vip %s is outside %s's pod subnet %s", ip, in.n.Name, in.n.PodCIDR))}, nil
		}
		return nil, nil
	}
	p.SourceVIP = cni.HostAddress(in.n.PodCIDR)
	return nil, nil
}

// hostnameFindings: KP-8, kube-proxy must run as the node's name.
func hostnameFindings(p *Proxy, node string) []rules.Finding {
	switch {
	case p.HostnameOverride == "":
		return []rules.Finding{rules.New("TS-5", "", fmt.Sprintf("kube-proxy on %s has no --hostname-override: it uses the host name, which must equal the node name or the node's HNS endpoints get deleted", node))}
	case p.HostnameOverride != node:
		return []rules.Finding{rules.New("KP-8", "", fmt.Sprintf("kube-proxy on %s runs with --hostname-override=%s, not the node name: it takes the node's endpoints for another node's and deletes them, so its pods have no network and no load balancer works", node, p.HostnameOverride))}
	}
	return nil
}

func value(f proxyFlags, name string) string {
	v, _ := f.get(name)
	return v
}

func envValue(f proxyFlags, name string) string { return f.env[name] }

func boolValue(f proxyFlags, name string) bool {
	b, _ := strconv.ParseBool(value(f, name))
	return b
}

// finding is a kube-proxy finding in the rule's usual case.
func finding(rule, msg string) *rules.Finding {
	f := rules.New(rule, "", msg)
	return &f
}
