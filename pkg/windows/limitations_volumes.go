package windows

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkVolumes: LIM-4 (memory emptyDir), LIM-8 (hugepages emptyDir) and
// LIM-9 (NFS; defaultMode and item modes are ignored: no UID/GID bits).
func checkVolumes(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for i, v := range spec.Volumes {
		vp := path.Child("volumes").Index(i)
		out = append(out, checkEmptyDirMedium(v, vp)...)
		if v.NFS != nil {
			out = append(out, Violation{
				Rule: "LIM-9", Path: vp.Child("nfs").String(), Severity: SeverityError,
				Message: "NFS volumes are not supported on Windows nodes",
				Fix:     "use an SMB CSI driver or another volume type Windows supports",
			})
		}
		for _, p := range fileModePaths(v, vp) {
			out = append(out, Violation{
				Rule: "LIM-9", Path: p, Severity: SeverityWarning,
				Message: "file modes are ignored on Windows (no UID/GID permission bits)",
				Fix:     "remove the mode and protect the files with Windows ACLs",
			})
		}
	}
	return out
}

func checkEmptyDirMedium(v corev1.Volume, vp *field.Path) []Violation {
	if v.EmptyDir == nil {
		return nil
	}
	p := vp.Child("emptyDir", "medium").String()
	switch {
	case v.EmptyDir.Medium == corev1.StorageMediumMemory:
		return []Violation{{
			Rule: "LIM-4", Path: p, Severity: SeverityError,
			Message: "emptyDir medium Memory is not supported on Windows (no RAM disk)",
			Fix:     "remove medium so the emptyDir uses node disk",
		}}
	case strings.HasPrefix(string(v.EmptyDir.Medium), string(corev1.StorageMediumHugePages)):
		return []Violation{{
			Rule: "LIM-8", Path: p, Severity: SeverityError,
			Message: "huge pages are not supported on Windows",
			Fix:     "remove medium",
		}}
	}
	return nil
}

// apiDefaultFileMode is 0644 (420), what the API server fills in for
// secret, configMap, projected and downwardAPI volumes. Manifests dumped
// from a live cluster carry it, so it is no request for permission bits.
const apiDefaultFileMode int32 = 0o644

// fileModePaths lists the defaultMode and items[].mode fields a volume sets
// to anything but the API default.
func fileModePaths(v corev1.Volume, vp *field.Path) []string {
	var out []string
	add := func(mode *int32, p *field.Path) {
		if mode != nil && *mode != apiDefaultFileMode {
			out = append(out, p.String())
		}
	}
	addItems := func(base *field.Path, items []corev1.KeyToPath) {
		for j, it := range items {
			add(it.Mode, base.Child("items").Index(j).Child("mode"))
		}
	}
	switch {
	case v.Secret != nil:
		add(v.Secret.DefaultMode, vp.Child("secret", "defaultMode"))
		addItems(vp.Child("secret"), v.Secret.Items)
	case v.ConfigMap != nil:
		add(v.ConfigMap.DefaultMode, vp.Child("configMap", "defaultMode"))
		addItems(vp.Child("configMap"), v.ConfigMap.Items)
	case v.Projected != nil:
		add(v.Projected.DefaultMode, vp.Child("projected", "defaultMode"))
	case v.DownwardAPI != nil:
		add(v.DownwardAPI.DefaultMode, vp.Child("downwardAPI", "defaultMode"))
	}
	return out
}

// checkVolumeDevices: LIM-5, raw block devices.
func checkVolumeDevices(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		if len(ref.c.VolumeDevices) > 0 {
			out = append(out, Violation{
				Rule: "LIM-5", Path: ref.path().Child("volumeDevices").String(), Severity: SeverityError,
				Message: "raw block volumes (volumeDevices) are not supported on Windows",
				Fix:     "mount the volume as a filesystem with volumeMounts",
			})
		}
	}
	return out
}

// checkMountPropagation: LIM-6. None is the default and harmless.
func checkMountPropagation(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		for j, m := range ref.c.VolumeMounts {
			if m.MountPropagation == nil || *m.MountPropagation == corev1.MountPropagationNone {
				continue
			}
			out = append(out, Violation{
				Rule: "LIM-6", Path: ref.path().Child("volumeMounts").Index(j).Child("mountPropagation").String(), Severity: SeverityError,
				Message: "mount propagation is not supported on Windows",
				Fix:     "remove mountPropagation",
			})
		}
	}
	return out
}

// defaultTerminationMessagePath is the API default; the kubelet maps it for
// every container, so only an explicit other path is the user's choice.
const defaultTerminationMessagePath = "/dev/termination-log"

// checkSingleFileMounts: LIM-7 under Docker, which mounts directories only.
// Seed 000 lists every subPath mount (including secret subPaths) as
// unsupported in the Docker era, so any subPath is reported.
func checkSingleFileMounts(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		for j, m := range ref.c.VolumeMounts {
			if m.SubPath == "" && m.SubPathExpr == "" {
				continue
			}
			out = append(out, Violation{
				Rule: "LIM-7", Path: ref.path().Child("volumeMounts").Index(j).String(), Severity: SeverityError,
				Message: "subPath mounts (single-file mappings) need containerd; Docker on Windows mounts directories only",
				Fix:     "mount the whole volume as a directory, or run the node on containerd",
			})
		}
		if p := ref.c.TerminationMessagePath; p != "" && p != defaultTerminationMessagePath {
			out = append(out, Violation{
				Rule: "LIM-7", Path: ref.path().Child("terminationMessagePath").String(), Severity: SeverityWarning,
				Message: "terminationMessagePath maps a single file, which needs containerd; Docker on Windows mounts directories only",
				Fix:     "remove terminationMessagePath, or run the node on containerd",
			})
		}
	}
	return out
}
