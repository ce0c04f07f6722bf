package imageinfo

import (
	"reflect"
	"strings"
	"testing"
)

// Default commands as the images' Dockerfiles set them (agnhost:
// test/images/agnhost/Dockerfile; busybox: its official image).
func TestDefaultCommand(t *testing.T) {
	c, ok := DefaultCommand("k8s.gcr.io/e2e-test-images/agnhost:2.53")
	if !ok || !reflect.DeepEqual(c.Entrypoint, []string{"/agnhost"}) || !reflect.DeepEqual(c.Cmd, []string{"pause"}) {
		t.Errorf("agnhost = %+v %v", c, ok)
	}
	if c, ok := DefaultCommand("busybox:1.36"); !ok || !reflect.DeepEqual(c.Cmd, []string{"sh"}) {
		t.Errorf("busybox = %+v %v", c, ok)
	}
	// The default pages the web servers serve and tests move away.
	if c, _ := DefaultCommand("nginx:1.27"); c.Text["/usr/share/nginx/html/index.html"] == "" {
		t.Errorf("nginx ships no index.html: %v", c.Text)
	}
	// nonewprivs: CMD ["nnp"], a setuid binary in /usr/local/bin.
	if c, ok := DefaultCommand("registry.k8s.io/e2e-test-images/nonewprivs:1.3"); !ok || !reflect.DeepEqual(c.Cmd, []string{"nnp"}) || !reflect.DeepEqual(c.Files, []string{"/usr/local/bin/nnp"}) {
		t.Errorf("nonewprivs = %+v %v", c, ok)
	}
	if _, ok := DefaultCommand("example.com/app:1"); ok {
		t.Error("an image outside the catalog has a default command")
	}
}

// windows-exporter's image runs windows_exporter.exe, as its Dockerfile's
// ENTRYPOINT says, in every registry it is pushed to.
func TestWindowsExporterEntrypoint(t *testing.T) {
	for _, ref := range []string{"ghcr.io/prometheus-community/windows-exporter:0.31.8", "prometheuscommunity/windows-exporter:0.31.8", "quay.io/prometheuscommunity/windows-exporter:latest"} {
		c, ok := DefaultCommand(ref)
		if !ok || len(c.Entrypoint) != 1 || c.Entrypoint[0] != "windows_exporter.exe" {
			t.Errorf("%s: %v %v", ref, c, ok)
		}
	}
}

// The ASP.NET image empties IIS's site; the aspnetapp sample puts its
// Web Forms site there; dotnetapp, the same repository's console program,
// is not IIS at all.
func TestFrameworkSamples(t *testing.T) {
	const home = `C:\inetpub\wwwroot\Default.aspx`
	aspnet, ok := DefaultCommand("mcr.microsoft.com/dotnet/framework/aspnet:4.8")
	if !ok || !reflect.DeepEqual(aspnet.Entrypoint, []string{`C:\ServiceMonitor.exe`, "w3svc"}) || len(aspnet.Text) != 0 {
		t.Errorf("aspnet = %+v %v, want ServiceMonitor w3svc and an empty wwwroot", aspnet, ok)
	}
	for _, ref := range []string{"mcr.microsoft.com/dotnet/framework/samples:aspnetapp", "mcr.microsoft.com/dotnet/framework/samples:aspnetapp-4.8.1-windowsservercore-ltsc2022"} {
		c, ok := DefaultCommand(ref)
		if !ok || !reflect.DeepEqual(c.Entrypoint, aspnet.Entrypoint) || !strings.Contains(c.Text[home], "<title>Home Page - My ASP.NET Application</title>") {
			t.Errorf("%s = %+v %v", ref, c, ok)
		}
		if _, welcome := c.Text[`C:\inetpub\wwwroot\iisstart.htm`]; welcome {
			t.Errorf("%s ships IIS's welcome page", ref)
		}
	}
	if c, ok := DefaultCommand("mcr.microsoft.com/dotnet/framework/samples:dotnetapp"); ok {
		t.Errorf("dotnetapp = %+v, want unknown (a console program, not IIS)", c)
	}
}
