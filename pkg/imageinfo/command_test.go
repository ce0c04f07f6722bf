package imageinfo

import (
	"reflect"
	"testing"
)

// Default commands as the images' Dockerfiles set them (agnhost:
// test/images/agnhost/Dockerfile; busybox: its official image).
func TestDefaultCommand(t *testing.T) {
	c, ok := DefaultCommand("k8s.gcr.io/e2e-test-images/agnhost:2.53")
	if !ok || !reflect.DeepEqual(c, Command{Entrypoint: []string{"/agnhost"}, Cmd: []string{"pause"}}) {
		t.Errorf("agnhost = %+v %v", c, ok)
	}
	if c, ok := DefaultCommand("busybox:1.36"); !ok || !reflect.DeepEqual(c.Cmd, []string{"sh"}) {
		t.Errorf("busybox = %+v %v", c, ok)
	}
	if _, ok := DefaultCommand("example.com/app:1"); ok {
		t.Error("an image outside the catalog has a default command")
	}
}
