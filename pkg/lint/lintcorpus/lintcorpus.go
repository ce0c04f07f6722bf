// Package lintcorpus generates the synthetic manifest corpus that the lint
// benchmarks read and hack/bench-lint.sh feeds to kubeconform, so both
// tools see the same files.
package lintcorpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// Corpus shape: Files files of DocsPerFile documents each.
const (
	Files       = 100
	DocsPerFile = 100
)

// templates are the documents the corpus cycles through: Linux and
// Windows Deployments, DaemonSets, Services, Jobs and Pods, some with
// findings, most without. %d makes names unique.
var templates = []string{
	`apiVersion: apps/v1
kind: Deployment
metadata: {name: web-%d, labels: {app: web-%[1]d}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web-%[1]d}}
  template:
    metadata: {labels: {app: web-%[1]d}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - name: nginx
        image: nginx:1.27
        resources: {limits: {cpu: 500m, memory: 256Mi}}
`,
	`apiVersion: apps/v1
kind: Deployment
metadata: {name: iis-%d, labels: {app: iis-%[1]d}}
spec:
  replicas: 2
  selector: {matchLabels: {app: iis-%[1]d}}
  template:
    metadata: {labels: {app: iis-%[1]d}}
    spec:
      os: {name: windows}
      nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: "10.0.17763"}
      tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
      containers:
      - name: iis
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019
        resources: {limits: {memory: 1Gi}, requests: {memory: 1Gi}}
`,
	`apiVersion: v1
kind: Service
metadata: {name: web-%d}
spec:
  type: NodePort
  selector: {app: iis-%[1]d}
  ports: [{port: 80, targetPort: 80}]
`,
	`apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent-%d, namespace: monitoring}
spec:
  selector: {matchLabels: {app: agent-%[1]d}}
  template:
    metadata: {labels: {app: agent-%[1]d}}
    spec:
      tolerations: [{operator: Exists}]
      containers:
      - name: agent
        image: fluent/fluent-bit:3.0
        volumeMounts: [{name: logs, mountPath: /var/log}]
      volumes: [{name: logs, hostPath: {path: /var/log}}]
`,
	`apiVersion: batch/v1
kind: Job
metadata: {name: report-%d}
spec:
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
      securityContext: {runAsUser: 1000}
      containers:
      - name: report
        image: mcr.microsoft.com/windows/nanoserver:ltsc2022
        command: [cmd, /c, echo done]
`,
	`apiVersion: v1
kind: Pod
metadata: {name: debug-%d}
spec:
  containers:
  - name: shell
    image: busybox:1.36
    command: [sleep, "3600"]
`,
}

// Render renders n documents into Files multi-document YAML files.
func Render(n int) [][]byte {
	files := make([][]byte, Files)
	per := (n + Files - 1) / Files
	i := 0
	for f := range files {
		var b bytes.Buffer
		for d := 0; d < per && i < n; d++ {
			if d > 0 {
				b.WriteString("---\n")
			}
			fmt.Fprintf(&b, templates[i%len(templates)], i)
			i++
		}
		files[f] = b.Bytes()
	}
	return files
}

// Write writes n documents as corpus-NNN.yaml files into dir, which must
// exist.
func Write(dir string, n int) error {
	for i, data := range Render(n) {
		name := filepath.Join(dir, fmt.Sprintf("corpus-%03d.yaml", i))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			return fmt.Errorf("write corpus file: %w", err)
		}
	}
	return nil
}
