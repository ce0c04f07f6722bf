package agreement

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
	imagecmd "github.com/winkube/winkube/pkg/cmd/winkube/image"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
	"github.com/winkube/winkube/pkg/imageinfo/report"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/windows"
)

// agentImage is outside the catalog and no registry is asked.
const agentImage = "ghcr.io/example/windows-agent:0.3"

// agentDeployment runs agentImage on every Windows node.
const agentDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: agent}
spec:
  replicas: 3
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{operator: Exists}]
      containers: [{name: agent, image: "` + agentImage + `"}]
`

// saveWindowsImage writes what `docker save` writes for agentImage, a
// single image of the given release's build.
func saveWindowsImage(t *testing.T, release string) string {
	t.Helper()
	r, ok := windows.ReleaseByName(release)
	if !ok {
		t.Fatalf("no release %s", release)
	}
	return registrytest.DockerSave(t, agentImage, r.Version().String())
}

// rule: IMG-3, IMG-2
// An image outside the catalog, offline: lint says IMG-3 (not checked)
// and nothing fails. Once `winkube image import` stored its facts in the
// data dir, lint, the webhook, the node, doctor and `winkube image` all
// read them through the same resolver and name the same rule for it.
func TestImportedImageAgreement(t *testing.T) {
	dataDir := t.TempDir()
	images, err := (&registry.Flags{Mode: registry.ModeCatalog, DataDir: dataDir}).Resolver()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(file, []byte(agentDeployment), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, errs := manifest.Load([]string{file}, manifest.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	w := workloadsOf(objs)[0]
	minor := kubeversion.DefaultMinor
	target := cluster(t, minor)
	all := nodes(target)

	before, beforeErrs := lintVerdictsWith(target, objs, images)
	if key := w.key(); !before[key]["IMG-3"] || len(beforeErrs[key]) > 0 {
		t.Fatalf("before the import, lint says %v (errors %v); want IMG-3 and no error", before[key], beforeErrs[key])
	}

	var out, errOut bytes.Buffer
	c := imagecmd.NewCommand(cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	c.SetArgs([]string{"import", "--data-dir", dataDir, saveWindowsImage(t, "ltsc2022")})
	if err := c.Execute(); err != nil {
		t.Fatalf("image import: %v\n%s", err, errOut.String())
	}

	var lint lintSays
	lint.all, lint.errs = lintVerdictsWith(target, objs, images)
	key := w.key()
	if lint.all[key]["IMG-3"] || len(lint.errs[key]) == 0 {
		t.Fatalf("after the import, lint says %v (errors %v); want the 2022 image's failure on the 2019 nodes, no IMG-3", lint.all[key], lint.errs[key])
	}
	h := newWebhookWith(t, target, nil, images)
	f := runFleetWith(t, []*workload{w}, all, nil, images)
	checkWorkload(t, "imported", minor, w, lint, admit(t, h, w), f.node, doctorVerdicts(f.state))
	if len(f.node.sorted(key, placementRule)) == 0 {
		t.Errorf("the node runs the imported 2022 image on 2019 nodes without failing")
	}

	rep := report.Describe(context.Background(), images, []string{agentImage}, nil, nil)[0]
	if rep.Source != imageinfo.SourceImported || !rep.Known || rep.Index || len(rep.Platforms) != 1 || rep.Platforms[0].OS != "windows" {
		t.Errorf("winkube image: %+v", rep)
	}
}
