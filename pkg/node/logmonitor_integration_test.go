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
	"k8s.io/apimachinery/pkg/util/intstr"
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

// iisETWConfig is LogMonitor's IIS sample configuration's ETW source.
const iisETWConfig = `{"LogConfig": {"logFormat": "json", "sources": [
  {"type": "ETW", "eventFormatMultiLine": false, "providers": [
    {"providerName": "IIS: WWW Server", "providerGuid": "3A2A4E84-4C21-4981-AE10-3FDA0D9B0F83", "level": "Information"},
    {"providerName": "Microsoft-Windows-IIS-Logging", "providerGuid": "7E8AD27F-B271-4EA2-A783-A47BDE29143B", "level": "Information"}]}]}}`

// iisETWAppHost is the part of applicationHost.config that sends the
// sites' W3C log to ETW as well as to files (logTargetW3C).
const iisETWAppHost = `<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <system.applicationHost>
    <sites>
      <site name="Default Web Site" id="1"><application path="/"/></site>
      <siteDefaults>
        <logFile logFormat="W3C" logTargetW3C="File,ETW" directory="%SystemDrive%\inetpub\logs\LogFiles"/>
      </siteDefaults>
    </sites>
  </system.applicationHost>
</configuration>
`

// IIS under LogMonitor with its sample's ETW source: once the site's W3C
// log goes to ETW, each request the kubelet's readiness probe makes is
// an event of Microsoft-Windows-IIS-Logging in the pod's log, in
// LogMonitor's ETW JSON.
func TestLogMonitorPrintsIISETWEvents(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "iis"}, Data: map[string]string{
		"LogMonitorConfig.json": iisETWConfig, "applicationHost.config": iisETWAppHost}}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := simplePod("iis", "win2022-1", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022")
	c := &pod.Spec.Containers[0]
	c.Command = []string{`C:\LogMonitor\LogMonitor.exe`, `C:\ServiceMonitor.exe`, "w3svc"}
	c.VolumeMounts = []corev1.VolumeMount{
		{Name: "cfg", MountPath: `C:\LogMonitor\LogMonitorConfig.json`, SubPath: "LogMonitorConfig.json"},
		{Name: "cfg", MountPath: `C:\Windows\System32\inetsrv\config\applicationHost.config`, SubPath: "applicationHost.config"},
	}
	c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(80)}}, PeriodSeconds: 1}
	pod.Spec.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "iis"}}}}}
	createPod(t, ns, pod)
	waitPod(t, ns, "iis", 60*time.Second, "Ready", podReady)
	want := []string{
		`{"Source":"ETW","LogEntry":{"Time":"`,
		`"ProviderName":"Microsoft-Windows-IIS-Logging","ProviderId":"{7E8AD27F-B271-4EA2-A783-A47BDE29143B}","DecodingSource":"DecodingSourceXMLFile"`,
		`"Level":"Information","Keyword":"0x0","EventId":"6200","EventData":{"EnabledFieldsFlags":`,
		`"csmethod":"GET","csuristem":"/","csuriquery":"-","scstatus":200,`,
		`"csUserAgent":"kube-probe/`,
	}
	var logs string
	deadline := time.Now().Add(60 * time.Second)
	for missing := want; len(missing) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the logs lack %q:\n%s", missing, logs)
		}
		time.Sleep(200 * time.Millisecond)
		logs = logsOf(t, ns, "iis", "win2022-1", "main")
		missing = nil
		for _, w := range want {
			if !strings.Contains(logs, w) {
				missing = append(missing, w)
			}
		}
	}
}
