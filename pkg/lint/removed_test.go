package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/rules"
)

// rule: API-9
// The verdict follows the target's version: an error from the release
// that stopped serving the version, the API server's deprecation warning
// while it is deprecated but served, nothing before that.
func TestRemovedAPIFollowsTargetVersion(t *testing.T) {
	file := filepath.Join("testdata", "golden", "removed-apis.yaml")
	cases := []struct {
		minor    int
		name     string
		severity rules.Severity // 0: no API-9 finding
		message  string
		fix      string
	}{
		{36, "ext-deployment", rules.SeverityError, `no matches for kind "Deployment" in version "extensions/v1beta1"`, "set apiVersion: apps/v1"},
		{15, "ext-deployment", rules.SeverityWarning, "extensions/v1beta1 Deployment is deprecated in v1.8+, unavailable in v1.16+; use apps/v1 Deployment", "before upgrading to 1.16"},
		{21, "ext-ingress", rules.SeverityWarning, "extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1 Ingress", "service.port.number"},
		{22, "ext-ingress", rules.SeverityError, "is not served from Kubernetes 1.22", "set apiVersion: networking.k8s.io/v1"},
		{20, "beta1-cronjob", 0, "", ""},
		{24, "beta1-cronjob", rules.SeverityWarning, "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob", "set apiVersion: batch/v1"},
		// flowcontrol v1beta1 → v1beta3 (removed 1.32) → v1: the fix names
		// the first version the target still serves.
		{30, "beta1-flowschema", rules.SeverityError, "not served from Kubernetes 1.26", "set apiVersion: flowcontrol.apiserver.k8s.io/v1beta3"},
		{36, "beta1-flowschema", rules.SeverityError, "not served from Kubernetes 1.26", "set apiVersion: flowcontrol.apiserver.k8s.io/v1"},
	}
	for _, tc := range cases {
		r := lintFiles(t, "", tc.minor, file)
		var got *Finding
		for i, f := range r.Findings {
			if f.Rule == "API-9" && f.Name == tc.name {
				got = &r.Findings[i]
			}
		}
		switch {
		case tc.severity == 0 && got != nil:
			t.Errorf("1.%d %s: unexpected %s %s", tc.minor, tc.name, got.Severity, got.Message)
		case tc.severity == 0:
		case got == nil:
			t.Errorf("1.%d %s: no API-9 finding", tc.minor, tc.name)
		case got.Severity != tc.severity || !strings.Contains(got.Message, tc.message) || !strings.Contains(got.Fix, tc.fix):
			t.Errorf("1.%d %s: got %s %q (fix %q), want %s containing %q (fix %q)",
				tc.minor, tc.name, got.Severity, got.Message, got.Fix, tc.severity, tc.message, tc.fix)
		}
	}
}

// rule: API-9
// The removed version does not stop the other checks: the pod template of
// an extensions/v1beta1 Deployment is still checked (IMG-2 on the 2022
// node its 2019 image cannot run on).
func TestRemovedAPIStillChecksTemplate(t *testing.T) {
	r := lintFiles(t, "", 0, filepath.Join("testdata", "rules", "api-9-bad.yaml"))
	if got := rulesOf(r); got["API-9"] != 1 {
		t.Errorf("findings:\n%s", dump(r))
	}
	if len(r.Errors) != 0 {
		t.Errorf("input errors: %v", r.Errors)
	}
	r = lintFiles(t, "", 0, filepath.Join("testdata", "golden", "removed-apis.yaml"))
	if got := rulesOf(r); got["IMG-2"] == 0 || got["SCH-3"] == 0 {
		t.Errorf("pod templates of removed versions were not checked:\n%s", dump(r))
	}
}
