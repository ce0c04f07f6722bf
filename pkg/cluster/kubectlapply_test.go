package cluster

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/dynamic"
	"k8s.io/kubectl/pkg/cmd/apply"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util"

	"github.com/winkube/winkube/pkg/manifest"
)

// asKubectlFiles are what a user may give `up --apply` and then `kubectl
// apply -f`: built-in kinds (their patches strategic), a cluster-wide one,
// an object without a namespace, and a custom resource (its patches JSON
// merge patches). %s is the ConfigMap's data and %d the replicas and the
// size.
//
// (A pod template's `creationTimestamp: null`, as `kubectl create
// --dry-run -o yaml` writes it, is left out: this API server no longer
// returns it, so kubectl reports such a Deployment `configured` on every
// apply after its own create too.)
const asKubectlFiles = `apiVersion: v1
kind: Namespace
metadata: {name: as-kubectl}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: as-kubectl, labels: {app: web}}
data: %s
---
apiVersion: v1
kind: ConfigMap
metadata: {name: as-kubectl-defaulted}
data: {a: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: as-kubectl}
spec:
  replicas: %d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: web:1
        ports: [{containerPort: 80}]
        env: [{name: A, value: "1"}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: as-kubectl}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: as-kubectl-reader}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
---
apiVersion: example.org/v1
kind: Gadget
metadata: {name: g1, namespace: as-kubectl}
spec: {size: %d}
`

// `up --apply` leaves objects as `kubectl apply` does: the last-applied
// annotation is the one kubectl's own code computes from the same file,
// kubectl's own apply command then finds every object unchanged, an
// existing object gets kubectl's three-way patch (what the file dropped
// goes, what another writer added stays), and `kubectl apply
// --server-side` takes over the fields the file changed without
// conflicts, as after kubectl's own client-side apply.
func TestApplyObjectsAsKubectlApply(t *testing.T) {
	cfg := sharedControlPlane(t)
	ctx := context.Background()
	dir := t.TempDir()
	path := writeManifest(t, dir, "app.yaml", fmt.Sprintf(asKubectlFiles, `{a: "1", b: "2"}`, 2, 2))
	for _, o := range applyFiles(t, path) {
		// Where a workload's pods are is known for the placement report.
		if o.Obj.GetName() == "as-kubectl-defaulted" && o.Obj.GetNamespace() != "default" {
			t.Errorf("the applied object without a namespace says namespace %q, want default", o.Obj.GetNamespace())
		}
	}
	objects := kubectlInfos(t, path)
	client := dynamic.NewForConfigOrDie(cfg)
	for _, info := range objects {
		want, err := util.GetModifiedConfiguration(info.Object, false, unstructured.UnstructuredJSONScheme)
		if err != nil {
			t.Fatal(err)
		}
		live, err := client.Resource(info.Mapping.Resource).Namespace(info.Namespace).Get(ctx, info.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := live.GetAnnotations()[corev1.LastAppliedConfigAnnotation]; got != string(want) {
			t.Errorf("%s: last-applied annotation\n%s\nwant kubectl's\n%s", info.ObjectName(), got, want)
		}
	}
	wantUnchanged(t, kubectl(t, "apply", "-f", path), len(objects))

	// Another writer labels the ConfigMap; the next file drops b and adds
	// c, as on a resumed cluster applying its file again.
	cms := client.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace("as-kubectl")
	_, err := cms.Patch(ctx, "settings", types.MergePatchType, []byte(`{"metadata":{"labels":{"owner":"ops"}}}`), metav1.PatchOptions{FieldManager: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	// A new object among existing ones is created.
	path = writeManifest(t, dir, "app.yaml", fmt.Sprintf(asKubectlFiles, `{a: "1", c: "3"}`, 3, 3))
	added := writeManifest(t, dir, "added.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: added, namespace: as-kubectl}\n")
	applyFiles(t, path, added)
	cm, err := cms.Get(ctx, "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if data := fmt.Sprint(cm.Object["data"]); data != "map[a:1 c:3]" || cm.GetLabels()["owner"] != "ops" {
		t.Errorf("after the second apply, data %s and labels %v; want map[a:1 c:3] and the owner label kept", data, cm.GetLabels())
	}
	wantUnchanged(t, kubectl(t, "apply", "-f", path, "-f", added), len(objects)+1)

	path = writeManifest(t, dir, "app.yaml", fmt.Sprintf(asKubectlFiles, `{a: "1", c: "4"}`, 4, 4))
	out := kubectl(t, "apply", "--server-side", "-f", path)
	if n := strings.Count(out, " serverside-applied\n"); n != len(objects) {
		t.Errorf("kubectl apply --server-side of changed fields: %d of %d objects applied:\n%s", n, len(objects), out)
	}
}

// applyFiles applies the files as `up --apply` does and returns their
// objects.
func applyFiles(t *testing.T, paths ...string) []manifest.Object {
	t.Helper()
	m, err := LoadManifests(paths, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := applyObjects(context.Background(), shared.cfg, m.Objects, nil); err != nil {
		t.Fatal(err)
	}
	return m.Objects
}

// kubectlFlags are kubectl's connection flags for the shared control plane,
// with a discovery cache of the test's own.
func kubectlFlags(t *testing.T) *genericclioptions.ConfigFlags {
	flags := genericclioptions.NewConfigFlags(false)
	kubeconfig, cache := shared.kubeconfig, t.TempDir()
	flags.KubeConfig, flags.CacheDir = &kubeconfig, &cache
	return flags
}

// kubectlInfos are the objects of path as kubectl's apply reads them.
func kubectlInfos(t *testing.T, path string) []*resource.Info {
	t.Helper()
	infos, err := resource.NewBuilder(kubectlFlags(t)).Unstructured().
		NamespaceParam(metav1.NamespaceDefault).DefaultNamespace().
		FilenameParam(false, &resource.FilenameOptions{Filenames: []string{path}}).
		Flatten().Do().Infos()
	if err != nil {
		t.Fatal(err)
	}
	return infos
}

// kubectl runs kubectl's own command (apply is the one this file needs)
// in this process and returns what it printed.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	var fatal string
	cmdutil.BehaviorOnFatal(func(msg string, _ int) { fatal = msg })
	defer cmdutil.DefaultBehaviorOnFatal()
	cmd := apply.NewCmdApply("kubectl", cmdutil.NewFactory(kubectlFlags(t)), streams)
	cmd.SetArgs(args[1:])
	if err := cmd.Execute(); err != nil || fatal != "" {
		t.Fatalf("kubectl %s: %v%s\n%s", strings.Join(args, " "), err, fatal, errOut.String())
	}
	return out.String()
}

// wantUnchanged checks that kubectl apply found n objects unchanged.
func wantUnchanged(t *testing.T, out string, n int) {
	t.Helper()
	if got := strings.Count(out, " unchanged\n"); got != n {
		t.Errorf("kubectl apply: %d of %d objects unchanged:\n%s", got, n, out)
	}
}
