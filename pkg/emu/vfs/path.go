package vfs

import (
	"path"
	"strings"
)

// Abs joins a name relative to dir and cleans it: /a/b on Linux; C:\a\b on
// Windows, where either separator, a drive-less rooted name (\a, /a) and
// any letter case of the drive are accepted.
func (f *FS) Abs(dir, name string) string {
	if f.windows {
		return winAbs(dir, name)
	}
	if strings.HasPrefix(name, "/") {
		return path.Clean(name)
	}
	return path.Clean("/" + dir + "/" + name)
}

func isSep(c byte) bool { return c == '/' || c == '\\' }

// splitDrive cuts a leading drive ("c:") from a Windows name.
func splitDrive(name string) (drive, rest string) {
	if len(name) >= 2 && name[1] == ':' && isLetter(name[0]) {
		return name[:2], name[2:]
	}
	return "", name
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func winAbs(dir, name string) string {
	drive, rest := splitDrive(name)
	dirDrive, _ := splitDrive(dir)
	if dirDrive == "" {
		dirDrive = "C:"
	}
	var p string
	switch {
	case drive != "" && rest != "" && isSep(rest[0]):
		p = name
	case drive != "" && strings.EqualFold(drive, dirDrive):
		p = dir + `\` + rest // drive-relative: relative to dir on that drive
	case drive != "":
		p = drive + `\` + rest
	case name != "" && isSep(name[0]):
		p = dirDrive + name
	default:
		p = dir + `\` + name
	}
	return winClean(p)
}

// winClean resolves . and .. and returns the C:\a\b form.
func winClean(p string) string {
	drive, rest := splitDrive(p)
	if drive == "" {
		drive = "C:"
	}
	parts := cleanParts(rest, true)
	return strings.ToUpper(drive[:1]) + `:\` + strings.Join(parts, `\`)
}

// cleanParts splits a name at either separator and resolves . and ..
// lexically (.. at the root stays at the root).
func cleanParts(rest string, windows bool) []string {
	var parts []string
	for _, c := range splitParts(rest, windows) {
		switch c {
		case ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, c)
		}
	}
	return parts
}

// splitParts splits at / (and \ on Windows), dropping empty components.
func splitParts(s string, windows bool) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '/' || windows && r == '\\' })
}

// splitName turns a name given to an FS method into its components. ok is
// false for a Windows drive other than C:, which does not exist.
func (f *FS) splitName(name string) (parts []string, ok bool) {
	if !f.windows {
		return cleanParts(name, false), true
	}
	drive, rest := splitDrive(name)
	if drive != "" && drive[0] != 'c' && drive[0] != 'C' {
		return nil, false
	}
	return cleanParts(rest, true), true
}

// targetParts splits a symlink target; abs reports a rooted target.
func (f *FS) targetParts(target string) (parts []string, abs, ok bool) {
	if !f.windows {
		return splitParts(target, false), strings.HasPrefix(target, "/"), true
	}
	drive, rest := splitDrive(target)
	if drive != "" && drive[0] != 'c' && drive[0] != 'C' {
		return nil, true, false
	}
	parts = splitParts(rest, true)
	return parts, drive != "" || (rest != "" && isSep(rest[0])), true
}

// key is the mount-table key of a component under a parent's key.
func (f *FS) key(parent, name string) string {
	if f.windows {
		name = strings.ToLower(name)
	}
	return parent + "/" + name
}

// display is a name in the FS's own syntax, for errors and mount points.
func (f *FS) display(parts []string) string {
	if f.windows {
		return `C:\` + strings.Join(parts, `\`)
	}
	return "/" + strings.Join(parts, "/")
}
