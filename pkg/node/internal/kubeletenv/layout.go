package kubeletenv

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	volumeutil "k8s.io/kubernetes/pkg/volume/util"
)

// Files is the content of a configMap, secret, downwardAPI or projected
// volume in the layout the kubelet's AtomicWriter gives it
// (pkg/volume/util/atomic_writer.go). The glue builds, in the volume root:
//
//	<TimestampDir>/<Entry.Path>   the real files (subdirectories as needed)
//	..data -> <TimestampDir>      a relative symlink
//	<name> -> ..data/<name>       one relative symlink per name in Top
//
// The kubelet writes the same layout on Windows: os.Symlink makes real
// NTFS symbolic links there (a directory link for ..data), and the only
// difference is that ..data is replaced by remove-and-create instead of an
// atomic rename. Modes and ownership have no meaning on Windows and are
// not applied there (SetVolumeOwnership is Linux-only).
type Files struct {
	// TimestampDir is named ..YYYY_MM_DD_HH_MM_SS.<n> from the write time
	// in UTC (os.MkdirTemp adds a random decimal; here it is derived from
	// the pod, the volume and the time so it is reproducible).
	TimestampDir string
	Entries      []File   // sorted by Path
	Top          []string // the first elements of the entries' paths, sorted
	// RootMode is the volume root's mode: a tmpfs root, 01777 (setgid
	// added with fsGroup).
	RootMode fs.FileMode
	// DirMode is the mode of TimestampDir and of the subdirectories in it
	// (0755, 02755 with fsGroup).
	DirMode fs.FileMode
	// GID is the group every file, directory and symlink of the volume is
	// chowned to when the pod has an fsGroup (Linux); nil otherwise.
	GID *int64
}

// File is one file of a volume.
type File struct {
	Path string // relative to TimestampDir, '/'-separated, cleaned
	Data []byte
	Mode fs.FileMode // permission bits
	// UID is the file's owner when the kubelet chowns it (projected
	// service account tokens of a pod whose containers share one
	// runAsUser); nil means root.
	UID *int64
}

// buildFiles turns a plugin payload into Files, applying what
// SetVolumeOwnership does with fsGroup on Linux
// (pkg/volume/volume_linux.go): group fsGroup on everything, read-only
// volumes get 0440 added to files and 0550 plus setgid to directories.
func buildFiles(pod *corev1.Pod, vol string, payload map[string]volumeutil.FileProjection, windows bool, now time.Time) (Files, error) {
	f := Files{TimestampDir: timestampDir(pod, vol, now), RootMode: fs.ModeSticky | 0777, DirMode: 0755}
	top := map[string]bool{}
	for p, proj := range payload {
		if err := validatePath(p); err != nil {
			return Files{}, err
		}
		clean := path.Clean(p)
		f.Entries = append(f.Entries, File{Path: clean, Data: proj.Data, Mode: fs.FileMode(proj.Mode) & fs.ModePerm, UID: proj.FsUser})
		first, _, _ := strings.Cut(clean, "/")
		top[first] = true
	}
	sort.Slice(f.Entries, func(i, j int) bool { return f.Entries[i].Path < f.Entries[j].Path })
	for name := range top {
		f.Top = append(f.Top, name)
	}
	sort.Strings(f.Top)
	if psc := pod.Spec.SecurityContext; psc != nil && psc.FSGroup != nil && !windows {
		gid := *psc.FSGroup
		f.GID = &gid
		f.RootMode |= fs.ModeSetgid
		f.DirMode |= fs.ModeSetgid | 0550
		for i := range f.Entries {
			f.Entries[i].Mode |= 0440
		}
	}
	return f, nil
}

// validatePath is the AtomicWriter's payload check: relative, no ".."
// element, not starting with "..", names up to 255 and paths up to 4096
// characters.
func validatePath(p string) error {
	if p == "" {
		return fmt.Errorf("invalid path: must not be empty: %q", p)
	}
	if strings.HasPrefix(p, "/") {
		return fmt.Errorf("invalid path: must be relative path: %s", p)
	}
	if len(p) > 4096 {
		return fmt.Errorf("invalid path: must be less than or equal to %d characters", 4096)
	}
	items := strings.Split(p, "/")
	for _, item := range items {
		if item == ".." {
			return fmt.Errorf("invalid path: must not contain '..': %s", p)
		}
		if len(item) > 255 {
			return fmt.Errorf("invalid path: filenames must be less than or equal to %d characters", 255)
		}
	}
	if strings.HasPrefix(items[0], "..") && len(items[0]) > 2 {
		return fmt.Errorf("invalid path: must not start with '..': %s", p)
	}
	return nil
}

func timestampDir(pod *corev1.Pod, vol string, now time.Time) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%s/%d", pod.UID, vol, now.UnixNano())
	return now.UTC().Format("..2006_01_02_15_04_05.") + strconv.FormatUint(uint64(h.Sum32()), 10)
}
