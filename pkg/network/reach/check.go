package reach

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/proxy"
)

// Check walks one request through the model. An *InputError means the
// request itself is wrong (an unknown pod, a bad protocol).
func (c *Checker) Check(req Request) (*Result, error) { return c.check(req, false) }

// Verdict is Check without the hops: the verdict, backend, reason and
// rules, which is what the emulated pod network needs for every new
// connection. Formatting the hops' text was most of a check's cost.
func (c *Checker) Verdict(req Request) (*Result, error) { return c.check(req, true) }

func (c *Checker) check(req Request, quiet bool) (*Result, error) {
	proto := strings.ToLower(req.Protocol)
	if proto == "" {
		proto = TCP
	}
	if proto != TCP && proto != UDP && proto != ICMP {
		return nil, inputErr("--protocol %q: want tcp, udp or icmp", req.Protocol)
	}
	if req.Port < 0 || req.Port > 65535 {
		return nil, inputErr("--port %d: want 1-65535", req.Port)
	}
	w := &walk{res: &Result{Source: req.Source, Target: req.Target, Port: req.Port, Protocol: proto}, quiet: quiet}
	if proto == ICMP {
		w.res.Port = 0
	}
	src, err := c.source(req.Source)
	if err != nil {
		return nil, err
	}
	w.srcIP = src.ip
	if src.pod != nil && !hasNetwork(src.pod) {
		w.fail(fmt.Sprintf("source pod %s/%s is not running (phase %s)", src.pod.Namespace, src.pod.Name, src.pod.Status.Phase))
		return w.finish(), nil
	}
	if src.pod != nil && !src.ip.IsValid() {
		w.fail(fmt.Sprintf("source pod %s/%s has no IP yet", src.pod.Namespace, src.pod.Name))
		return w.finish(), nil
	}
	tgt, ok, err := c.target(w, src, req.Target)
	if err != nil {
		return nil, err
	}
	if !ok {
		return w.finish(), nil
	}
	if tgt.ip.IsValid() {
		c.resolvedIP(w, tgt.ip)
	}
	if src.pod != nil && c.endpointsDeleted(w, src.node) {
		return w.finish(), nil
	}
	c.route(w, src, tgt)
	return w.finish(), nil
}

// route sends the connection to the kind of address the target is.
func (c *Checker) route(w *walk, src *source, tgt *target) {
	switch {
	case tgt.vip != nil:
		c.toService(w, src, tgt.vip)
	case tgt.pod != nil:
		c.toPod(w, src, tgt.pod, w.res.Port)
	case tgt.node != nil:
		c.toNode(w, src, tgt.node)
	default:
		c.toExternal(w, src, tgt)
	}
}

// servicePort picks the Service port a request means: the one with the
// request's port and protocol, or the first port when no port was given.
func servicePort(svc *corev1.Service, port int, proto string) (*corev1.ServicePort, bool) {
	want := corev1.ProtocolTCP
	if proto == UDP {
		want = corev1.ProtocolUDP
	}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		p := sp.Protocol
		if p == "" {
			p = corev1.ProtocolTCP
		}
		if (port == 0 || int(sp.Port) == port) && (proto == ICMP || p == want) {
			return sp, true
		}
	}
	return nil, false
}

func protoName(p corev1.Protocol) string { return string(proxy.Protocol(p)) }
