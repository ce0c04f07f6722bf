// Package csi is the programs of the Container Storage Interface images
// the CSI drivers' charts run on every node: kubernetes-csi's
// csi-node-driver-registrar and livenessprobe sidecars, and the node
// plugins of csi-driver-smb (smbplugin) and the Secrets Store CSI Driver
// (secrets-store-csi). They speak real gRPC — the CSI spec's Identity and
// Node services, the kubelet's pluginregistration API — over the
// container's Unix sockets (program.Sys.Sockets), which is where the
// registrar, the driver and the kubelet meet, and log in klog's format
// the lines their upstream sources log.
package csi

import (
	"regexp"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/imageinfo"
)

// Repositories of the images, by program.
var (
	registrarRepos    = []string{"registry.k8s.io/sig-storage/csi-node-driver-registrar", "gcr.io/k8s-staging-sig-storage/csi-node-driver-registrar", "mcr.microsoft.com/oss/kubernetes-csi/csi-node-driver-registrar"}
	livenessRepos     = []string{"registry.k8s.io/sig-storage/livenessprobe", "gcr.io/k8s-staging-sig-storage/livenessprobe", "mcr.microsoft.com/oss/kubernetes-csi/livenessprobe"}
	smbRepos          = []string{"registry.k8s.io/sig-storage/smbplugin", "gcr.io/k8s-staging-sig-storage/smbplugin", "mcr.microsoft.com/k8s/csi/smb-csi"}
	secretsStoreRepos = []string{"registry.k8s.io/csi-secrets-store/driver", "gcr.io/k8s-staging-csi-secrets-store/driver", "mcr.microsoft.com/oss/kubernetes-csi/secrets-store/driver"}
)

// releaseTag is a tag that names a release (v2.17.0, v1.17.0-windows-hp).
var releaseTag = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+`)

// Is reports whether the image is one of this package's.
func Is(ref string) bool {
	repo := imageinfo.Repository(ref)
	for _, rs := range [][]string{registrarRepos, livenessRepos, smbRepos, secretsStoreRepos} {
		for _, r := range rs {
			if r == repo {
				return true
			}
		}
	}
	return false
}

// Table is the program of the image ref by program.Name, its version
// from the image's tag as the release builds stamp it (the sidecars'
// "unknown", smbplugin's Makefile default, when the tag names no
// release); nil for other images.
func Table(ref string) map[string]program.Main {
	repo, tag := imageinfo.Repository(ref), imageinfo.Tag(ref)
	version := releaseTag.FindString(tag)
	in := func(rs []string) bool {
		for _, r := range rs {
			if r == repo {
				return true
			}
		}
		return false
	}
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	switch {
	case in(registrarRepos):
		return map[string]program.Main{"csi-node-driver-registrar": registrar(or(version, "unknown"))}
	case in(livenessRepos):
		return map[string]program.Main{"livenessprobe": livenessprobe(or(version, "unknown"))}
	case in(smbRepos):
		return map[string]program.Main{"smbplugin": smbplugin(or(version, smbDriverVersion))}
	case in(secretsStoreRepos):
		return map[string]program.Main{"secrets-store-csi": secretsStore(or(version, "N/A"))}
	}
	return nil
}
