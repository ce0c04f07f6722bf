package nodes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

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
