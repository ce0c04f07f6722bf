package imageinfo

import (
	"slices"
	"strings"
	"testing"
)

// kitten is agnhost plus /kitten.jpg and /data.json (test/images/kitten),
// on agnhost's Alpine 3.22: what an image volume of it shows.
func TestKittenFiles(t *testing.T) {
	c, ok := DefaultCommand("registry.k8s.io/e2e-test-images/kitten:1.8")
	if !ok || !slices.Equal(c.Entrypoint, []string{"/agnhost"}) || !slices.Equal(c.Cmd, []string{"test-webserver"}) {
		t.Fatalf("kitten = %+v %v", c, ok)
	}
	if !slices.Contains(c.Files, "/kitten.jpg") || !slices.Contains(c.Files, "/agnhost") {
		t.Errorf("kitten files %v", c.Files)
	}
	if got := c.Text["/data.json"]; got != "{\n  \"image\": \"kitten.jpg\"\n}\n" {
		t.Errorf("data.json %q", got)
	}
	if n, _ := DefaultCommand("registry.k8s.io/e2e-test-images/nautilus:1.7"); n.Text["/data.json"] != "{\n  \"image\": \"nautilus.jpg\"\n}\n" || n.Cmd[0] != "test-webserver" {
		t.Errorf("nautilus %+v", n)
	}
	for _, ref := range []string{"registry.k8s.io/e2e-test-images/kitten:1.8", "registry.k8s.io/e2e-test-images/agnhost:2.63.0"} {
		c, _ := DefaultCommand(ref)
		if !strings.Contains(c.Text["/etc/os-release"], `PRETTY_NAME="Alpine Linux v3.22"`) {
			t.Errorf("%s os-release %q", ref, c.Text["/etc/os-release"])
		}
	}
	// The agnhost entry's file list is not changed by kitten's.
	if a, _ := DefaultCommand("registry.k8s.io/e2e-test-images/agnhost:2.63.0"); slices.Contains(a.Files, "/kitten.jpg") {
		t.Errorf("agnhost files %v", a.Files)
	}
}
