package node

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// fluentBitConf is a Windows node agent's configuration as platform
// teams write it: the kubelet's container logs tailed with the CRI
// parser, the kubernetes filter's pod metadata, stdout.
const fluentBitConf = `[SERVICE]
    Flush         1
    HTTP_Server   On
    HTTP_Port     2020
    Health_Check  On
    Parsers_File  C:\fluent-bit\etc\parsers.conf
[INPUT]
    Name              tail
    Path              C:\var\log\containers\*.log
    Exclude_Path      C:\var\log\containers\fluent-bit*.log
    Tag               kube.*
    multiline.parser  cri
    Read_from_Head    On
    Refresh_Interval  1
[FILTER]
    Name             kubernetes
    Match            kube.*
    Kube_Tag_Prefix  kube.C.var.log.containers.
    Kube_URL         https://%s
[OUTPUT]
    Name   stdout
    Match  kube.*
`

// Fluent Bit's Windows image on a Windows node, as a DaemonSet runs it:
// its ConfigMap config, the node's C:\var\log through hostPath. Another
// pod's output reaches fluent-bit's stdout (kubectl logs) through the
// CRI log file the node writes, with the pod's metadata the kubernetes
// filter asked the API server for with the pod's service account; its
// HTTP server answers the readiness probe and a request in the pod.
func TestFluentBitTailsContainerLogsOnWindows(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	ctx := context.Background()
	const node = "win2022-1"
	// The cluster runs no kube-proxy on its Windows nodes, so the
	// kubernetes Service's address is not load-balanced there (TS-1):
	// the filter is given the API server's endpoint, as such clusters'
	// configurations do.
	slices, err := client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
	if err != nil || len(slices.Items) == 0 || len(slices.Items[0].Endpoints) == 0 || len(slices.Items[0].Ports) == 0 {
		t.Fatalf("kubernetes EndpointSlice: %v %v", slices, err)
	}
	es := slices.Items[0]
	apiserver := net.JoinHostPort(es.Endpoints[0].Addresses[0], strconv.Itoa(int(*es.Ports[0].Port)))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "fluent-bit-config"}, Data: map[string]string{"fluent-bit.conf": fmt.Sprintf(fluentBitConf, apiserver)}}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The kubernetes filter gets pods with the default service account.
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pod-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}}}}
	if _, err := client.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "pod-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "pod-reader"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: ns}}}
	if _, err := client.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	app := simplePod("app", node, "mcr.microsoft.com/windows/servercore:ltsc2022")
	app.Labels = map[string]string{"app": "demo"}
	app.Spec.Containers[0].Command = []string{"powershell", "-Command",
		`$i = 0; while ($true) { $i++; Write-Output "app line $i"; Start-Sleep -Seconds 1 }`}
	createPod(t, ns, app)

	fb := simplePod("fluent-bit", node, "cr.fluentbit.io/fluent/fluent-bit:windows-2022-5.1.1")
	c := &fb.Spec.Containers[0]
	c.Args = []string{`-c`, `C:\fluent-bit\etc\conf\fluent-bit.conf`}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: `C:\fluent-bit\etc\conf`}, {Name: "varlog", MountPath: `C:\var\log`}}
	c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/api/v1/health", Port: intstr.FromInt32(2020)}}, PeriodSeconds: 1}
	fb.Spec.Volumes = []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "fluent-bit-config"}}}},
		{Name: "varlog", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: `C:\var\log`}}},
	}
	createPod(t, ns, fb)
	p := waitPod(t, ns, "fluent-bit", 90*time.Second, "Ready", podReady)

	var logs string
	waitFor(t, 90*time.Second, "the app's lines with its metadata in fluent-bit's stdout", func(context.Context) (bool, error) {
		logs = logsOf(t, ns, "fluent-bit", node, "main")
		return strings.Contains(logs, `"log"=>"app line 2"`) && strings.Contains(logs, `"kubernetes"=>{"pod_name"=>"app", "namespace_name"=>"`+ns+`"`), nil
	})
	for _, want := range []string{
		"Fluent Bit v5.1.1\n",
		"[ info] [filter:kubernetes:kubernetes.0] connectivity OK",
		`"stream"=>"stdout", "_p"=>"F", "log"=>"app line 1"`,
		`"labels"=>{"app"=>"demo"}`,
		`"host"=>"` + node + `"`,
		`"container_name"=>"main"`,
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("fluent-bit's log lacks %q:\n%s", want, logs)
		}
	}
	out, err := execIn(t, ns, "fluent-bit", node, []string{"curl.exe", "-s", "http://" + p.Status.PodIP + ":2020/api/v1/health"}, "")
	if err != nil || out != "ok\n" {
		t.Errorf("health endpoint: %q %v", out, err)
	}
}
