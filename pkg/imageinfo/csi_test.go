package imageinfo

import "testing"

// The CSI charts' images: the sidecars and drivers with their Windows
// builds; smbplugin's -windows-hp tags are HostProcess images; their
// entrypoints are the binaries.
func TestCSIImages(t *testing.T) {
	for ref, want := range map[string]string{
		"registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.17.0": "/csi-node-driver-registrar",
		"registry.k8s.io/sig-storage/livenessprobe:v2.19.0":             "/livenessprobe",
		"gcr.io/k8s-staging-sig-storage/smbplugin:canary":               "/smbplugin",
		"registry.k8s.io/csi-secrets-store/driver:v1.6.0":               "/secrets-store-csi",
	} {
		img := Lookup(ref)
		if !img.Known {
			t.Errorf("%s: not known", ref)
		}
		var win bool
		for _, p := range img.Platforms {
			win = win || p.OS == "windows"
		}
		if !win {
			t.Errorf("%s: no Windows build in %v", ref, img.Platforms)
		}
		if c, ok := DefaultCommand(ref); !ok || len(c.Entrypoint) != 1 || c.Entrypoint[0] != want {
			t.Errorf("%s: command %v", ref, c)
		}
	}
	hp := Lookup("gcr.io/k8s-staging-sig-storage/smbplugin:canary-windows-hp")
	if len(hp.Platforms) != 1 || hp.Platforms[0].OS != "windows" || hp.Platforms[0].OSVersion != "" {
		t.Errorf("canary-windows-hp = %v", hp.Platforms)
	}
	if Tag("registry.k8s.io/sig-storage/livenessprobe:v2.19.0") != "v2.19.0" || Tag("x/y") != "latest" {
		t.Error("Tag")
	}
}
