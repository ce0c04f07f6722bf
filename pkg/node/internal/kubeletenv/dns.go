package kubeletenv

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/network/dns"
)

// DNS is the DNS configuration the kubelet gives a pod sandbox.
type DNS struct {
	Servers, Searches, Options []string
	// Warnings are the DNSConfigForming / MissingClusterDNS event
	// messages the kubelet records when it trims or falls back.
	Warnings []string
}

// PodDNS runs the kubelet's own Configurer (pkg/kubelet/network/dns) with
// no resolver file (--resolv-conf=""), since an emulated node has no host
// resolver: dnsPolicy Default (and ClusterFirst on the host network, or
// with no cluster DNS configured) then yields what upstream yields for an
// empty resolver config — nameserver 127.0.0.1 (::1 for an IPv6 node IP)
// and the search list ".". ClusterFirst gives the cluster DNS servers,
// <ns>.svc.<domain> svc.<domain> <domain> and ndots:5; None only the pod's
// dnsConfig; dnsConfig is merged and the limits (3 nameservers, 32 search
// domains, 2048 characters) are applied by upstream.
//
// Upstream merges dnsConfig options through a map, so their order is
// random; here options keep the order: existing ones first, then the
// pod's, in the order they are written.
func PodDNS(ctx context.Context, pod *corev1.Pod, node Node) (DNS, error) {
	rec := &eventLog{}
	var nodeIPs, clusterDNS []net.IP
	for _, s := range node.HostIPs {
		if ip := net.ParseIP(s); ip != nil {
			nodeIPs = append(nodeIPs, ip)
		}
	}
	for _, s := range node.ClusterDNS {
		if ip := net.ParseIP(s); ip != nil {
			clusterDNS = append(clusterDNS, ip)
		}
	}
	ref := &corev1.ObjectReference{Kind: "Node", Name: node.Name}
	c := dns.NewConfigurer(rec, ref, nodeIPs, clusterDNS, node.ClusterDomain, "")
	cfg, err := c.GetPodDNS(klog.NewContext(ctx, logr.Discard()), pod)
	if err != nil {
		return DNS{}, err
	}
	out := DNS{Servers: cfg.Servers, Searches: cfg.Searches, Options: cfg.Options, Warnings: rec.messages}
	if pod.Spec.DNSConfig != nil && len(pod.Spec.DNSConfig.Options) > 0 {
		out.Options = orderOptions(out.Options, pod)
	}
	return out, nil
}

// orderOptions puts merged options in a stable order: the policy's own
// options (ndots:5 for ClusterFirst) first, then the pod's.
func orderOptions(opts []string, pod *corev1.Pod) []string {
	rank := map[string]int{"ndots": -1}
	for i, o := range pod.Spec.DNSConfig.Options {
		if _, ok := rank[o.Name]; !ok {
			rank[o.Name] = i
		}
	}
	out := append([]string{}, opts...)
	name := func(o string) string { n, _, _ := strings.Cut(o, ":"); return n }
	for i := 1; i < len(out); i++ { // insertion sort: few options
		for j := i; j > 0 && rank[name(out[j])] < rank[name(out[j-1])]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// ResolvConf is /etc/resolv.conf as containerd writes it from the sandbox
// DNS config (parseDNSOptions in internal/cri/server/sandbox_run_linux.go):
// a search line, one nameserver line per server, an options line. An
// empty config makes containerd copy the host's file; the emulated node's
// stand-in is the Default answer (nameserver 127.0.0.1).
func ResolvConf(ctx context.Context, pod *corev1.Pod, node Node) ([]byte, error) {
	d, err := PodDNS(ctx, pod, node)
	if err != nil {
		return nil, err
	}
	return formatResolvConf(d), nil
}

func formatResolvConf(d DNS) []byte {
	var b strings.Builder
	if len(d.Searches) > 0 {
		b.WriteString("search " + strings.Join(d.Searches, " ") + "\n")
	}
	if len(d.Servers) > 0 {
		b.WriteString("nameserver " + strings.Join(d.Servers, "\nnameserver ") + "\n")
	}
	if len(d.Options) > 0 {
		b.WriteString("options " + strings.Join(d.Options, " ") + "\n")
	}
	if b.Len() == 0 {
		return []byte("nameserver 127.0.0.1\n")
	}
	return []byte(b.String())
}

// WindowsDNS is the same configuration as a Windows kubelet hands it to
// containerd, which sets it on the container's HNS endpoint: the DNS
// servers and the DNS suffix search list (options have no Windows
// counterpart).
func WindowsDNS(ctx context.Context, pod *corev1.Pod, node Node) (servers, suffixes []string, err error) {
	d, err := PodDNS(ctx, pod, node)
	if err != nil {
		return nil, nil, err
	}
	return d.Servers, d.Searches, nil
}

// eventLog records event messages instead of sending them.
type eventLog struct{ messages []string }

var _ record.EventRecorderLogger = (*eventLog)(nil)

func (e *eventLog) Event(_ runtime.Object, _, _, message string) {
	e.messages = append(e.messages, message)
}

func (e *eventLog) Eventf(_ runtime.Object, _, _, format string, args ...interface{}) {
	e.messages = append(e.messages, fmt.Sprintf(format, args...))
}

func (e *eventLog) AnnotatedEventf(_ runtime.Object, _ map[string]string, _, _, format string, args ...interface{}) {
	e.messages = append(e.messages, fmt.Sprintf(format, args...))
}

func (e *eventLog) WithLogger(klog.Logger) record.EventRecorderLogger { return e }
