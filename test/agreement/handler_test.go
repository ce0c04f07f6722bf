package agreement

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/webhook"
	"github.com/winkube/winkube/pkg/windows"
)

// handlerInput is seed 003's RuntimeClass for Windows Server 2019 (handler
// 'docker', at node.k8s.io/v1) and a Deployment using it.
const handlerInput = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: windows-2019}
handler: 'docker'
scheduling:
  nodeSelector: {kubernetes.io/os: 'windows', kubernetes.io/arch: 'amd64', node.kubernetes.io/windows-build: '10.0.17763'}
  tolerations: [{effect: NoSchedule, key: os, operator: Equal, value: "windows"}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: iis-2019}
spec:
  selector: {matchLabels: {app: iis-2019}}
  template:
    metadata: {labels: {app: iis-2019}}
    spec:
      runtimeClassName: windows-2019
      containers: [{name: iis, image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019}]
`

// rule: KLT-11
// A RuntimeClass whose handler the containerd nodes it selects lack: lint
// reports it on the class, the validating webhook on the Deployment that
// uses it, in the same words, and both quote the error the node's
// FailedCreatePodSandBox carries (windows.HandlerError, what the emulated
// runtime returns).
func TestRuntimeHandlerAgreement(t *testing.T) {
	file := filepath.Join(t.TempDir(), "iis.yaml")
	if err := os.WriteFile(file, []byte(handlerInput), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, errs := manifest.Load([]string{file}, manifest.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	target := cluster(t, kubeversion.DefaultMinor)

	var linted *lint.Finding
	for _, f := range lint.New(target).Lint(objs).Findings {
		if f.Rule == "KLT-11" {
			linted = &f
		}
	}
	if linted == nil || linted.Kind != "RuntimeClass" {
		t.Fatalf("lint: no KLT-11 on the RuntimeClass: %+v", linted)
	}
	nodeSays := windows.HandlerError(windows.RuntimeContainerd, "windows", "docker")
	if !strings.HasSuffix(linted.Message, nodeSays) {
		t.Errorf("lint's message %q does not end with the node's error %q", linted.Message, nodeSays)
	}

	var rc *nodev1.RuntimeClass
	for _, o := range objs {
		if o.Obj.GetKind() == "RuntimeClass" {
			rc = &nodev1.RuntimeClass{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Obj.Object, rc); err != nil {
				t.Fatal(err)
			}
		}
	}
	cluster := []runtime.Object{rc}
	for _, n := range nodes(target) {
		cluster = append(cluster, n)
	}
	h, err := webhook.NewHandler(webhook.Options{Client: fake.NewClientset(cluster...), Enforce: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	waitReady(t, h)
	w := workloadsOf(objs)[0]
	req := &admissionv1.AdmissionRequest{UID: "1", Kind: admissionGVK(w.kind), Namespace: "default", Operation: admissionv1.Create}
	req.Object.Raw = w.raw
	// lint names the class's field, the webhook the template's.
	words := strings.TrimPrefix(linted.Message, "handler: ")
	want := "winkube KLT-11: spec.template.spec.runtimeClassName: " + words + " (fix: " + linted.Fix + ")"
	resp := h.Validate(context.Background(), req)
	found := false
	for _, s := range resp.Warnings {
		found = found || s == want
	}
	if !resp.Allowed || !found {
		t.Errorf("webhook (default policy): allowed=%v warnings %q, want %q", resp.Allowed, resp.Warnings, want)
	}
}
