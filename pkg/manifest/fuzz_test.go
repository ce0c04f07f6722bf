package manifest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes through the YAML and JSON paths. They must
// never panic or hang, every object must have a kind and survive a deep
// copy (which panics on values that are not JSON-shaped), and every error
// must be an *InputError with a line inside the input.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.*")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("---\n--- |\n  x\n...\n---\n"))
	f.Add([]byte("<<: {kind: Pod, apiVersion: v1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, parse := range []func() ([]Object, []error){
			func() ([]Object, []error) { return parseYAML(source{file: "f.yaml", fixable: true}, data) },
			func() ([]Object, []error) { return parseJSON("f.json", data) },
		} {
			objs, errs := parse()
			for _, o := range objs {
				if o.Obj.GetKind() == "" || o.Obj.GetAPIVersion() == "" {
					t.Fatalf("object without kind or apiVersion: %v", o.Obj.Object)
				}
				if o.Line < 1 || o.Line > lines {
					t.Fatalf("object line %d outside 1..%d", o.Line, lines)
				}
				o.Obj.DeepCopy()
			}
			for _, err := range errs {
				ie, ok := err.(*InputError)
				if !ok {
					t.Fatalf("error %T is not an *InputError: %v", err, err)
				}
				if ie.Line < 1 || ie.Line > lines {
					t.Fatalf("error line %d outside 1..%d: %v", ie.Line, lines, err)
				}
			}
		}
	})
}

// deployment is a small Deployment as found in real repositories.
const deployment = `# web tier
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-%d
  namespace: shop
  labels:
    app: web
    tier: frontend
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      nodeSelector:
        kubernetes.io/os: windows
      containers:
      - name: web
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
        ports:
        - containerPort: 80
        resources:
          limits:
            cpu: 500m
            memory: 1Gi
`

// BenchmarkLoadYAML loads one file of 10,000 small Deployments through
// Load, from disk to objects, and reports objects per second.
func BenchmarkLoadYAML(b *testing.B) {
	var buf bytes.Buffer
	const n = 10000
	for i := range n {
		fmt.Fprintf(&buf, "---\n"+deployment, i)
	}
	path := filepath.Join(b.TempDir(), "deployments.yaml")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		objs, errs := Load([]string{path}, Options{})
		if len(objs) != n || len(errs) != 0 {
			b.Fatalf("got %d objects, %v", len(objs), errs)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "objects/s")
}
