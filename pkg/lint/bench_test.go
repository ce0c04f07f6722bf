package lint

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/lint/load"
)

var corpusDir = flag.String("corpus-dir", "", "TestWriteCorpus writes the benchmark corpus here (hack/bench-lint.sh)")

// Corpus shape: corpusFiles files of corpusDocsPerFile documents each.
const (
	corpusFiles       = 100
	corpusDocsPerFile = 100
)

// corpusTemplates are the documents the corpus cycles through: Linux and
// Windows Deployments, DaemonSets, Services, Jobs and Pods, some with
// findings, most without. %d makes names unique.
var corpusTemplates = []string{
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

// corpus renders n documents into corpusFiles multi-document files.
func corpus(n int) [][]byte {
	files := make([][]byte, corpusFiles)
	per := (n + corpusFiles - 1) / corpusFiles
	i := 0
	for f := range files {
		var b bytes.Buffer
		for d := 0; d < per && i < n; d++ {
			if d > 0 {
				b.WriteString("---\n")
			}
			fmt.Fprintf(&b, corpusTemplates[i%len(corpusTemplates)], i)
			i++
		}
		files[f] = b.Bytes()
	}
	return files
}

func writeCorpus(t testing.TB, dir string, n int) {
	t.Helper()
	for i, data := range corpus(n) {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("corpus-%03d.yaml", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteCorpus writes the benchmark corpus for hack/bench-lint.sh, which
// feeds the same files to kubeconform.
func TestWriteCorpus(t *testing.T) {
	if *corpusDir == "" {
		t.Skip("pass -corpus-dir to write the corpus")
	}
	writeCorpus(t, *corpusDir, corpusFiles*corpusDocsPerFile)
}

func defaultTarget(b *testing.B) *Target {
	t, err := TargetFromCluster(v1alpha1.DefaultCluster())
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// BenchmarkLint measures linting a 10,000-object corpus against the default
// cluster, with the objects already loaded.
func BenchmarkLint(b *testing.B) {
	dir := b.TempDir()
	writeCorpus(b, dir, corpusFiles*corpusDocsPerFile)
	objs, errs := load.Load([]string{dir}, load.Options{})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	linter := New(defaultTarget(b))
	b.ResetTimer()
	for b.Loop() {
		if r := linter.Lint(objs); len(r.Errors) > 0 {
			b.Fatal(r.Errors)
		}
	}
	b.ReportMetric(float64(len(objs)*b.N)/b.Elapsed().Seconds(), "objects/s")
}

// BenchmarkLoadAndLint is the whole of `winkube lint DIR` without the
// report: a fresh Linter (cold caches), reading and decoding the YAML
// files, then linting.
func BenchmarkLoadAndLint(b *testing.B) {
	dir := b.TempDir()
	writeCorpus(b, dir, corpusFiles*corpusDocsPerFile)
	n := 0
	b.ResetTimer()
	for b.Loop() {
		linter := New(defaultTarget(b))
		objs, errs := load.Load([]string{dir}, load.Options{})
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		linter.Lint(objs)
		n += len(objs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "objects/s")
}
