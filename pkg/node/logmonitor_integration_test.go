package node

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// The LogMonitor example as a user applies it: a ConfigMap with
// LogMonitorConfig.json and a Windows pod whose entrypoint is
// LogMonitor.exe. Its kubectl logs (the kubelet's containerLogs) show the
// three kinds of source the config names, in LogMonitor's JSON lines: the
// wrapped process's output, the Application event log entries the script
// writes, and the lines it appends to C:\logs\app.log.
func TestLogMonitorExample(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	ctx := context.Background()
	data, err := os.ReadFile("../../examples/logmonitor.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var cm corev1.ConfigMap
	var pod corev1.Pod
	if err := dec.Decode(&cm); err != nil {
		t.Fatal(err)
	}
	if err := dec.Decode(&pod); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod.Spec.NodeName = "win2022-1"
	createPod(t, ns, &pod)
	waitPod(t, ns, pod.Name, 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	want := []string{
		`{"Source":"Process","LogEntry":{"Logline":"loop 1"}`,
		`{"Source": "EventLog","LogEntry": {"EventSource": "DemoApp"`,
		`"Channel": "Application","Level": "Information","EventId": 1000,"Message": "tick 1"}}`,
		`{"Source": "File","LogEntry": {"Logline": "line 1","FileName": "app.log"}`,
	}
	var logs string
	waitFor(t, 60*time.Second, "the three sources in the logs", func(context.Context) (bool, error) {
		logs = logsOf(t, ns, pod.Name, "win2022-1", "app")
		for _, w := range want {
			if !strings.Contains(logs, w) {
				return false, nil
			}
		}
		return true, nil
	})
}
