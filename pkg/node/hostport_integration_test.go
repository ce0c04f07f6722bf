package node

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Host ports forward the node's addresses to the pods that expose them,
// by host IP and protocol: one port number, three pods (127.0.0.1 TCP,
// the node's IP TCP, the node's IP UDP), reached from the node's own
// network namespace, as upstream's HostPort conformance test does.
func TestHostPortsByHostIPAndProtocol(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	node, err := client.CoreV1().Nodes().Get(context.Background(), "linux-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodeIP := node.Status.Addresses[0].Address
	const agnhost = "registry.k8s.io/e2e-test-images/agnhost:2.59"
	for _, p := range []struct {
		name, hostIP string
		proto        corev1.Protocol
	}{{"pod1", "127.0.0.1", corev1.ProtocolTCP}, {"pod2", nodeIP, corev1.ProtocolTCP}, {"pod3", nodeIP, corev1.ProtocolUDP}} {
		pod := simplePod(p.name, "linux-1", agnhost)
		pod.Spec.Containers[0].Args = []string{"netexec", "--http-port=8080", "--udp-port=8080"}
		pod.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 54323, HostIP: p.hostIP, Protocol: p.proto}}
		createPod(t, ns, pod)
	}
	exec := simplePod("exec", "linux-1", agnhost)
	exec.Spec.HostNetwork = true
	createPod(t, ns, exec)
	for _, name := range []string{"pod1", "pod2", "pod3", "exec"} {
		waitPod(t, ns, name, 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	}
	for _, tc := range []struct{ cmd, want string }{
		{"curl -g --connect-timeout 5 --interface " + nodeIP + " http://127.0.0.1:54323/hostname", "pod1"},
		{"curl -g --connect-timeout 5 http://" + nodeIP + ":54323/hostname", "pod2"},
		{"echo hostname | nc -u -w 5 " + nodeIP + " 54323", "pod3"},
	} {
		out, err := execIn(t, ns, "exec", "linux-1", []string{"/bin/sh", "-c", tc.cmd}, "")
		if err != nil || strings.TrimSpace(out) != tc.want {
			t.Errorf("%s = %q, %v; want %s", tc.cmd, out, err, tc.want)
		}
	}
}

// A probe with host: localhost on a host-network pod reaches the server
// on the node's loopback, as the kubelet's resolver and the node's
// network namespace make it (the CSI node plugins' liveness probes).
func TestLocalhostProbeOfHostNetworkPod(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("local", "linux-1", "registry.k8s.io/e2e-test-images/agnhost:2.59")
	pod.Spec.HostNetwork = true
	pod.Spec.Containers[0].Args = []string{"netexec", "--http-port=29641"}
	pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 1, ProbeHandler: corev1.ProbeHandler{
		HTTPGet: &corev1.HTTPGetAction{Host: "localhost", Path: "/healthz", Port: intstr.FromInt32(29641)}}}
	createPod(t, ns, pod)
	waitPod(t, ns, "local", 60*time.Second, "Ready", podReady)
}

// A sidecar (restartable init container) is probed like a regular
// container: its readiness gates the pod's, and a failing liveness probe
// restarts it while the main container keeps running.
func TestSidecarProbes(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	always := corev1.ContainerRestartPolicyAlways
	mk := func(name string, readyPort, livePort int32) *corev1.Pod {
		pod := simplePod(name, "linux-1", "registry.k8s.io/e2e-test-images/agnhost:2.59")
		pod.Spec.Containers[0].Args = []string{"pause"}
		pod.Spec.InitContainers = []corev1.Container{{
			Name: "side", Image: "registry.k8s.io/e2e-test-images/agnhost:2.59", RestartPolicy: &always,
			Args:           []string{"netexec", "--http-port=8080"},
			ReadinessProbe: &corev1.Probe{PeriodSeconds: 1, ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(readyPort)}}},
			LivenessProbe:  &corev1.Probe{PeriodSeconds: 1, FailureThreshold: 1, ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(livePort)}}},
		}}
		return pod
	}
	createPod(t, ns, mk("ok", 8080, 8080))
	createPod(t, ns, mk("unready", 8081, 8080))
	createPod(t, ns, mk("dying", 8080, 8081))
	waitPod(t, ns, "ok", 60*time.Second, "Ready", podReady)
	waitPod(t, ns, "dying", 60*time.Second, "sidecar restarted", func(p *corev1.Pod) bool {
		return len(p.Status.InitContainerStatuses) == 1 && p.Status.InitContainerStatuses[0].RestartCount > 0
	})
	p := waitPod(t, ns, "unready", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	time.Sleep(3 * time.Second)
	p, _ = client.CoreV1().Pods(ns).Get(context.Background(), "unready", metav1.GetOptions{})
	if podReady(p) {
		t.Errorf("pod Ready with its sidecar's readiness probe failing: %v", statusOf(p))
	}
}
