package node

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A CoreDNS pod answers the cluster zone on port 53 over UDP and TCP from
// the API's Services, as its kubernetes plugin does, and the e2e DNS
// probers' dig (jessie-dnsutils) gets the Service's ClusterIP back: the
// DNS conformance tests' probe path, end to end on the pod network.
// rule: DNS-1
func TestCoreDNSPodAnswersDig(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	webPod(t, ns, "linux-1")
	dns := simplePod("coredns", "linux-1", "registry.k8s.io/coredns/coredns:v1.12.0")
	dns.Spec.Containers[0].Args = []string{"-conf", "/etc/coredns/Corefile"}
	createPod(t, ns, dns)
	dnsIP := waitPod(t, ns, "coredns", 60*time.Second, "Running", func(p *corev1.Pod) bool {
		return p.Status.Phase == corev1.PodRunning && p.Status.PodIP != ""
	}).Status.PodIP
	digPod := simplePod("dig", "linux-1", "registry.k8s.io/e2e-test-images/jessie-dnsutils:1.7")
	digPod.Spec.Containers[0].Command = []string{"sleep", "3600"}
	createPod(t, ns, digPod)
	waitPod(t, ns, "dig", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	svc, err := client.CoreV1().Services(ns).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	web := svc.Spec.ClusterIP
	name := "web." + ns + ".svc.cluster.local"
	for _, transport := range []string{"+notcp", "+tcp"} {
		var out string
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			out, err = execIn(t, ns, "dig", "linux-1", []string{"dig", "@" + dnsIP, transport, "+noall", "+answer", name, "A"}, "")
			if (err == nil && strings.Contains(out, web)) || time.Now().After(deadline) {
				break
			}
		}
		if err != nil || !strings.Contains(out, name+".\t") || !strings.Contains(out, "\tIN\tA\t"+web) {
			t.Errorf("dig %s: %q (%v), want an A record of %s for %s", transport, out, err, web, name)
		}
	}
}
