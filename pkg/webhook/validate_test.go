package webhook

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// On a 1.26 cluster the webhook applies the rules a 1.27 API server
// enforces: a Windows Deployment template with runAsUser is denied (API-2).
// A 1.36 API server rejects it itself, so the webhook leaves it alone.
// rule: API-2, API-8
func TestValidateAPIRulesOnOlderClusters(t *testing.T) {
	manifest := `
metadata: {name: web, namespace: apps}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      os: {name: windows}
      securityContext: {runAsUser: 1000}
      containers: [{name: web, image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}]
`
	h := newTestHandler(t, Options{KubernetesVersion: "1.26"}, nil)
	mustDeny(t, h.Validate(ctx, request(t, "apps", "Deployment", admissionv1.Create, manifest)),
		"API-2", "spec.template.spec.securityContext.runAsUser", "cannot be set for a windows pod")

	h = newTestHandler(t, Options{KubernetesVersion: "1.36"}, nil)
	if resp := h.Validate(ctx, request(t, "apps", "Deployment", admissionv1.Create, manifest)); !resp.Allowed {
		t.Errorf("1.36: denied: %s", resp.Result.Message)
	}

	// 1.23 drops spec.os: a warning when API-8 is listed.
	h = newTestHandler(t, Options{KubernetesVersion: "1.23", Enforce: []string{}, Warn: []string{"API-8"}}, nil)
	resp := h.Validate(ctx, request(t, "apps", "Deployment", admissionv1.Create, manifest))
	if !resp.Allowed || !warningWith(resp, "API-8") || warningWith(resp, "API-2") {
		t.Errorf("1.23: allowed=%v warnings=%q, want only an API-8 warning", resp.Allowed, resp.Warnings)
	}
}

// Windows limitations are warnings by default and denials when enforced;
// the image decides that the template runs Windows.
// rule: LIM-3, LIM-4
func TestValidateLimitations(t *testing.T) {
	manifest := `
metadata: {name: job, namespace: apps}
spec:
  schedule: "@hourly"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          dnsPolicy: ClusterFirstWithHostNet
          volumes: [{name: scratch, emptyDir: {medium: Memory}}]
          containers: [{name: job, image: "mcr.microsoft.com/windows/nanoserver:ltsc2022"}]
`
	h := newTestHandler(t, Options{}, nil)
	resp := h.Validate(ctx, request(t, "batch", "CronJob", admissionv1.Create, manifest))
	if !resp.Allowed || !warningWith(resp, "LIM-3: spec.jobTemplate.spec.template.spec.dnsPolicy") || !warningWith(resp, "LIM-4") {
		t.Errorf("defaults: allowed=%v warnings=%q, want LIM-3 and LIM-4 warnings", resp.Allowed, resp.Warnings)
	}
	h = newTestHandler(t, Options{Enforce: []string{"LIM-4"}}, nil)
	resp = h.Validate(ctx, request(t, "batch", "CronJob", admissionv1.Create, manifest))
	mustDeny(t, resp, "LIM-4", "emptyDir")
	if !warningWith(resp, "LIM-3") {
		t.Errorf("warnings %q lost LIM-3 next to the denial", resp.Warnings)
	}
	// A Linux image with the same settings is fine.
	linux := strings.Replace(manifest, "mcr.microsoft.com/windows/nanoserver:ltsc2022", "busybox", 1)
	if resp := h.Validate(ctx, request(t, "batch", "CronJob", admissionv1.Create, linux)); !resp.Allowed || len(resp.Warnings) > 0 {
		t.Errorf("linux: allowed=%v warnings=%q", resp.Allowed, resp.Warnings)
	}
}

// A workload mixing Windows and Linux images is denied by default.
// rule: LIM-1
func TestValidateMixedWorkload(t *testing.T) {
	h := newTestHandler(t, Options{}, nil)
	resp := h.Validate(ctx, request(t, "apps", "StatefulSet", admissionv1.Update, `
metadata: {name: db, namespace: apps}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - {name: db, image: "mcr.microsoft.com/windows/servercore:ltsc2019"}
      - {name: exporter, image: "nginx"}
`))
	mustDeny(t, resp, "LIM-1", "spec.template.spec.containers[1].image")
}

// The Docker runtime makes LIM-14 apply: a pod that can land on a Docker
// Windows node gets the grace-period warning.
// rule: LIM-14
func TestValidateDockerRuntime(t *testing.T) {
	nodes := mixedNodes()
	nodes[1].Status.NodeInfo.ContainerRuntimeVersion = "docker://19.3.14"
	h := newTestHandler(t, Options{}, nodes)
	resp := h.Validate(ctx, podRequest(t, `
metadata: {name: a}
spec:
  terminationGracePeriodSeconds: 60
  containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2019"}]
`))
	if !resp.Allowed || !warningWith(resp, "LIM-14") {
		t.Errorf("allowed=%v warnings=%q, want LIM-14", resp.Allowed, resp.Warnings)
	}
	// The 30 s the API server fills in is not the user's request.
	resp = h.Validate(ctx, podRequest(t, `
metadata: {name: a}
spec:
  terminationGracePeriodSeconds: 30
  containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2019"}]
`))
	if warningWith(resp, "LIM-14") {
		t.Errorf("warnings %q: LIM-14 for the default grace period", resp.Warnings)
	}
}

// Flags are checked and errors name them.
func TestOptionsErrors(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		flag string
	}{
		{Options{WindowsTaint: "os=windows"}, "--windows-taint"},
		{Options{WindowsTaint: "os=windows:Sometimes"}, "--windows-taint"},
		{Options{Enforce: []string{"LIM-99"}}, "--enforce"},
		{Options{Warn: []string{"NET"}}, "--warn"},
		{Options{Enforce: []string{"IMG-2"}}, "--enforce"},
		{Options{OnRegistryError: "deny"}, "--on-registry-error"},
		{Options{Mode: "audit"}, "--mode"},
		{Options{KubernetesVersion: "2.0"}, "--kubernetes-version"},
		{Options{RegistryTimeout: -1}, "--registry-timeout"},
	} {
		_, err := NewHandler(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%+v: err = %v, want one naming %s", tc.opts, err, tc.flag)
		}
	}
	if _, err := NewHandler(Options{Enforce: []string{"api, LIM-3"}, Warn: []string{}, WindowsTaint: "none"}); err != nil {
		t.Errorf("valid options: %v", err)
	}
}

// Bad reviews are 400s; a panicking decision admits with a warning;
// health, readiness and metrics answer.
func TestServeHTTP(t *testing.T) {
	h := newTestHandler(t, Options{}, mixedNodes())
	for _, body := range []string{"{not json", `{"kind":"AdmissionReview"}`} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, MutatePath, strings.NewReader(body)))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 400", body, rec.Code)
		}
	}
	req := podRequest(t, `{metadata: {name: a}, spec: {containers: [{name: a, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}]}}`)
	resp := h.safely(ctx, req, func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		var m map[string]int
		m["boom"]++ // a nil map write: a bug in a decision
		return nil
	})
	if !resp.Allowed || !warningWith(resp, "internal error") {
		t.Errorf("panic: allowed=%v warnings=%q", resp.Allowed, resp.Warnings)
	}

	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":` + string(mustJSON(t, req)) + `}`
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, MutatePath, bytes.NewBufferString(review)))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"uid":"uid-1"`) || !strings.Contains(rec.Body.String(), `"patchType":"JSONPatch"`) {
		t.Errorf("mutate: %d %s", rec.Code, rec.Body)
	}
	for path, want := range map[string]string{
		HealthzPath: "ok",
		ReadyzPath:  "ok",
		MetricsPath: `winkube_webhook_requests_total{path="/mutate",result="patched"} 1`,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %d, body lacks %q", path, rec.Code, want)
		}
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, MetricsPath, nil))
	for _, name := range []string{"winkube_webhook_request_duration_seconds_bucket", `winkube_webhook_decisions_total{action="placed",rule="IMG-2"}`, `winkube_webhook_image_answers_total{source="catalog"}`} {
		if !strings.Contains(rec.Body.String(), name) {
			t.Errorf("metrics lack %s", name)
		}
	}
}

// The configurations exclude kube-system and the webhook's namespace, are
// short and fail open by default, and carry the paths.
func TestConfigurations(t *testing.T) {
	url := "https://127.0.0.1:8443"
	mut, val := Configurations("winkube-webhook", "winkube-system", admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: []byte("ca")}, 0, "")
	m, v := mut.Webhooks[0], val.Webhooks[0]
	if *m.ClientConfig.URL != url+MutatePath || *v.ClientConfig.URL != url+ValidatePath {
		t.Errorf("urls %s %s", *m.ClientConfig.URL, *v.ClientConfig.URL)
	}
	if *m.TimeoutSeconds != 5 || *m.FailurePolicy != admissionregistrationv1.Ignore || *m.SideEffects != admissionregistrationv1.SideEffectClassNone {
		t.Errorf("timeout %d failure %s side effects %s", *m.TimeoutSeconds, *m.FailurePolicy, *m.SideEffects)
	}
	got := m.NamespaceSelector.MatchExpressions[0]
	if got.Key != "kubernetes.io/metadata.name" || strings.Join(got.Values, ",") != "kube-system,winkube-system" {
		t.Errorf("namespace selector %+v", got)
	}
	var resources []string
	for _, r := range v.Rules {
		resources = append(resources, r.Resources...)
	}
	if strings.Join(resources, ",") != "pods,replicationcontrollers,deployments,replicasets,statefulsets,daemonsets,jobs,cronjobs" {
		t.Errorf("validating resources %v", resources)
	}
	if m.Rules[0].Resources[0] != string(corev1.ResourcePods) {
		t.Errorf("mutating rules %+v", m.Rules)
	}
}

// Seed 003's RuntimeClass (handler docker) on containerd nodes: every pod
// using it fails its sandbox, so the validating webhook warns by default,
// in lint's words and with the node's error; --enforce KLT-11 denies.
// rule: KLT-11
func TestValidateRuntimeClassHandler(t *testing.T) {
	rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "windows-2019"}, Handler: "docker",
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{corev1.LabelOSStable: "windows", corev1.LabelWindowsBuild: build2019}}}
	manifest := `
metadata: {name: iis, namespace: apps}
spec:
  selector: {matchLabels: {app: iis}}
  template:
    metadata: {labels: {app: iis}}
    spec:
      runtimeClassName: windows-2019
      containers: [{name: iis, image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"}]
`
	want := `KLT-11: spec.template.spec.runtimeClassName: the runtime of every node it selects (win2019-1 (windows 10.0.17763)) has no runtime for handler "docker", ` +
		`so the sandbox of every pod using RuntimeClass windows-2019 fails there: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "docker" is configured`
	h := newTestHandler(t, Options{}, mixedNodes(), rc)
	resp := h.Validate(ctx, request(t, "apps", "Deployment", admissionv1.Create, manifest))
	if !resp.Allowed || !warningWith(resp, want) || !warningWith(resp, `(fix: set handler to "runhcs-wcow-process"`) {
		t.Errorf("allowed=%v warnings=%q, want a KLT-11 warning", resp.Allowed, resp.Warnings)
	}

	h = newTestHandler(t, Options{Enforce: []string{"KLT-11"}}, mixedNodes(), rc)
	mustDeny(t, h.Validate(ctx, request(t, "apps", "Deployment", admissionv1.Create, manifest)), want)

	// The default handler, and a docker node's "docker", are what the
	// runtimes have: nothing to say.
	for _, tc := range []struct {
		handler string
		nodes   []*corev1.Node
	}{
		{"runhcs-wcow-process", mixedNodes()},
		{"docker", []*corev1.Node{testNode("win2019-1", "windows", build2019, "docker")}},
	} {
		rc := rc.DeepCopy()
		rc.Handler = tc.handler
		h := newTestHandler(t, Options{}, tc.nodes, rc)
		if resp := h.Validate(ctx, request(t, "apps", "Deployment", admissionv1.Create, manifest)); warningWith(resp, "KLT-11") {
			t.Errorf("handler %s: %q", tc.handler, resp.Warnings)
		}
	}
	if _, err := NewHandler(Options{Warn: []string{"KLT-10"}}); err == nil || !strings.Contains(err.Error(), "checks only API-*, LIM-*, VER-* and KLT-11") {
		t.Errorf("--warn KLT-10: %v", err)
	}
}
