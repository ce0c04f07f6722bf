package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
	"github.com/winkube/winkube/pkg/rules"
)

// logShipper is a DaemonSet that tolerates every taint and pins no OS.
const logShipper = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: shipper, namespace: logging}
spec:
  selector: {matchLabels: {app: shipper}}
  template:
    metadata: {labels: {app: shipper}}
    spec:
      tolerations: [{operator: Exists}]
      containers:
      - {name: shipper, image: IMAGE}
`

func writeShipper(t *testing.T, image string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ds.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(logShipper, "IMAGE", image, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rule: SCH-5: a DaemonSet that tolerates every taint, pins no OS and
// runs an image the catalog does not know lands on every Windows node:
// lint warns and names the Windows builds the image would need.
func TestDaemonSetUnknownImageOnWindowsNodes(t *testing.T) {
	r := lintFiles(t, "", 0, writeShipper(t, "example.com/logs/shipper:2.1"))
	var found bool
	for _, f := range r.Findings {
		if f.Rule == "IMG-3" {
			t.Errorf("the SCH-5 warning should replace the IMG-3 info: %s", f.Message)
		}
		if f.Rule == "SCH-5" && f.Severity == rules.SeverityWarning &&
			strings.Contains(f.Message, "10.0.17763 and 10.0.20348") && strings.Contains(f.Fix, "kubernetes.io/os: linux") {
			found = true
		}
	}
	if !found {
		t.Errorf("want an SCH-5 warning naming builds 10.0.17763 and 10.0.20348:\n%s", dump(r))
	}
	// With the OS pinned the DaemonSet stays off the Windows nodes.
	pinned := strings.Replace(logShipper, "      tolerations:", "      nodeSelector: {kubernetes.io/os: linux}\n      tolerations:", 1)
	path := filepath.Join(t.TempDir(), "pinned.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(pinned, "IMAGE", "example.com/logs/shipper:2.1", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range lintFiles(t, "", 0, path).Findings {
		if f.Rule == "SCH-5" {
			t.Errorf("a DaemonSet pinned to Linux got %s %s", f.Rule, f.Message)
		}
	}
}

// rule: SCH-5: once the registry says the DaemonSet's image is
// Linux-only, its pods on the Windows nodes are an error.
func TestDaemonSetLinuxOnlyImageFromRegistry(t *testing.T) {
	reg := registrytest.Start(t)
	reg.PushIndex(t, "logs/shipper:2.1", registrytest.Linux("amd64"))
	path := writeShipper(t, reg.Ref("logs/shipper:2.1"))
	r := lintWithRegistry(t, path)
	for _, f := range r.Findings {
		if f.Rule == "SCH-5" && f.Severity == rules.SeverityError && strings.Contains(f.Message, "10.0.17763") {
			return
		}
	}
	t.Errorf("want an SCH-5 error for the Linux-only image on the Windows nodes:\n%s", dump(r))
}
