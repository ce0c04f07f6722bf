package imageinfo

import "testing"

// Fluent Bit's Linux tags are indexes of Linux builds; its windows-2022
// tags are single manifests of Server Core 2022, started as
// Dockerfile.windows starts them.
func TestFluentBitImages(t *testing.T) {
	img := Lookup("cr.fluentbit.io/fluent/fluent-bit:5.1.1")
	if !img.Known || !img.Index || len(img.Platforms) != 3 || img.Platforms[0].OS != "linux" {
		t.Errorf("5.1.1: %+v", img)
	}
	win := Lookup("fluent/fluent-bit:windows-2022-5.1.1")
	if !win.Known || win.Index || len(win.Platforms) != 1 || win.Platforms[0].OS != "windows" || win.Platforms[0].OSVersion == "" {
		t.Errorf("windows-2022-5.1.1: %+v", win)
	}
	if ep, cmd, ok := EntrypointOf("cr.fluentbit.io/fluent/fluent-bit:windows-2022-5.1.1"); !ok || ep[0] != "fluent-bit.exe" || cmd[2] != "/fluent-bit/etc/fluent-bit.conf" {
		t.Errorf("Windows command %v %v", ep, cmd)
	}
	if ep, _, _ := EntrypointOf("cr.fluentbit.io/fluent/fluent-bit:5.1.1"); ep[0] != "/fluent-bit/bin/fluent-bit" {
		t.Errorf("Linux entrypoint %v", ep)
	}
	c, _ := DefaultCommand("ghcr.io/fluent/fluent-bit:windows-2022-5.1.1")
	if c.Text["/fluent-bit/etc/fluent-bit.conf"] == c.Text["/fluent-bit/etc/parsers.conf"] || c.Text["/fluent-bit/etc/parsers.conf"] == "" {
		t.Error("the image's configuration files are missing")
	}
}
