package nodes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

// In a pod with neither --kubeconfig nor $KUBECONFIG, the agent uses the
// pod's service account; elsewhere it still asks for a kubeconfig.
func TestInClusterConfig(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	if _, _, err := loadingRules(""); err == nil || !strings.Contains(err.Error(), "set --kubeconfig or $KUBECONFIG") {
		t.Errorf("outside a pod: err = %v", err)
	}

	t.Setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	rules, source, err := loadingRules("")
	if err != nil || rules != nil || !strings.Contains(source, "service account") {
		t.Fatalf("in a pod: rules %v, source %q, err %v", rules, source, err)
	}
	cfg, err := restConfig(rules, "")
	if err == nil {
		// This machine is a pod with a service account token: the config
		// must point at the service variables.
		if cfg.Host != "https://10.96.0.1:443" {
			t.Errorf("host = %s", cfg.Host)
		}
		return
	}
	if !strings.Contains(err.Error(), "token") {
		t.Errorf("in a pod without a token: err = %v, want it to name the token file", err)
	}
	// A kubeconfig still wins in a pod.
	if rules, _, _ := loadingRules("/some/kubeconfig"); rules == nil || rules.ExplicitPath != "/some/kubeconfig" {
		t.Errorf("--kubeconfig in a pod: rules = %+v", rules)
	}
}

func TestInstallDryRun(t *testing.T) {
	out, err := runNodes("install", "--dry-run", "--image", "winkube:dev", "--replicas", "1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: Deployment", "image: winkube:dev", "kind: ClusterRole", "namespace: kube-node-lease", "--kubelet-address=$(POD_IP)"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q", want)
		}
	}
}

// Bad flags are usage errors that name the flag, before any cluster is
// contacted.
func TestInstallUsageErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "pools.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: winkube.io/v1alpha1\nkind: Cluster\nnodePools:\n- name: w\n  os: windows\n  release: \"2077\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"install", "--dry-run", "--replicas", "0"}, "--replicas"},
		{[]string{"install", "--dry-run", "--config", bad}, "--config"},
		{[]string{"install", "--dry-run", "--image", "winkube@sha256:00"}, "--image"},
	} {
		_, err := runNodes(tc.args...)
		var exit *cmd.ExitError
		if !errors.As(err, &exit) || exit.Code != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want a usage error naming %s", tc.args, err, tc.want)
		}
	}
}
