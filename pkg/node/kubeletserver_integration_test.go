package node

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// kubeletClient reaches the nodes' kubelet endpoints the way kube-apiserver
// does through winkube's egress proxy: by node name and port 10250.
func kubeletClient(t testing.TB) *http.Client {
	t.Helper()
	return kubeletClientOf(t, agent)
}

// kubeletClientOf reaches the kubelets of the nodes of agent a.
func kubeletClientOf(t testing.TB, agent *Agent) *http.Client {
	t.Helper()
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // as the apiserver without --kubelet-certificate-authority
		DialContext: func(_ context.Context, _, addr string) (net.Conn, error) {
			conn, ok, err := agent.DialKubelet(addr)
			if !ok {
				t.Errorf("DialKubelet(%s): not a node of the agent", addr)
			}
			return conn, err
		},
	}}
}

func get(t testing.TB, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// kubectl logs on an emulated Windows node: what the container's cmd.exe
// printed, followed to the container's end; the previous run and missing
// pods answer with the kubelet's errors.
func TestKubeletLogs(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("logged", "win2022-1", "mcr.microsoft.com/windows/nanoserver:ltsc2022")
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod.Spec.Containers[0].Command = []string{"cmd", "/c", "echo one & ping -n 3 127.0.0.1 >nul & echo two & exit /b 4"}
	createPod(t, ns, pod)
	waitPod(t, ns, "logged", 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase != corev1.PodPending })

	c := kubeletClient(t)
	base := "https://win2022-1:10250/containerLogs/" + ns + "/logged/main"
	began := time.Now()
	code, body := get(t, c, base+"?follow=true")
	if code != http.StatusOK || body != "one \r\ntwo \r\n" {
		t.Errorf("followed log: %d %q", code, body)
	}
	t.Logf("follow ended %s after the request, with the container", time.Since(began).Round(time.Millisecond))
	p := waitPod(t, ns, "logged", 30*time.Second, "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	if term := p.Status.ContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != 4 {
		t.Errorf("exit: %+v", p.Status.ContainerStatuses[0].State)
	}

	code, body = get(t, c, base+"?tailLines=1&timestamps=true")
	if code != http.StatusOK || strings.Count(body, "\n") != 1 || !strings.Contains(body, "Z two \r\n") {
		t.Errorf("tail 1 with timestamps: %d %q", code, body)
	}
	code, body = get(t, c, base+"?previous=true")
	if code != http.StatusBadRequest || !strings.Contains(body, `previous terminated container "main" in pod "logged" not found`) {
		t.Errorf("previous: %d %q", code, body)
	}
	code, body = get(t, c, "https://win2022-1:10250/containerLogs/"+ns+"/missing/main")
	if code != http.StatusNotFound || !strings.Contains(body, `pod "missing" does not exist`) {
		t.Errorf("missing pod: %d %q", code, body)
	}
	code, body = get(t, c, "https://win2019-1:10250/containerLogs/"+ns+"/logged/main")
	if code != http.StatusNotFound {
		t.Errorf("pod asked of another node: %d %q", code, body)
	}
	if _, ok, _ := agent.DialKubelet("win2022-1:22"); ok {
		t.Error("DialKubelet answered for a port other than the kubelet's")
	}
}
