package wincmd

import (
	"io/fs"
	"sort"
	"strings"
)

// match is a file a name or a wildcard pattern stands for.
type match struct {
	path    string // absolute
	display string // as the pattern spells it, with the file's name
	info    fs.FileInfo
}

// glob finds the files a name stands for; a * or ? is matched in the
// last element, without case.
func (s *shell) glob(pattern string, dirsOnly bool) []match {
	if !strings.ContainsAny(pattern, "*?") {
		p := s.abs(pattern)
		fi, err := s.sys.FS.Stat(p)
		if err != nil || (dirsOnly && !fi.IsDir()) {
			return nil
		}
		return []match{{p, pattern, fi}}
	}
	i := strings.LastIndexAny(pattern, `\/`)
	prefix, pat := pattern[:i+1], pattern[i+1:]
	dir := s.abs(prefix + ".")
	entries, err := s.sys.FS.ReadDir(dir)
	if err != nil {
		return nil
	}
	sortEntries(entries)
	var out []match
	for _, e := range entries {
		if !wildMatch(strings.ToLower(pat), strings.ToLower(e.Name())) || (dirsOnly && !e.IsDir()) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, match{s.sys.FS.Abs(dir, e.Name()), prefix + e.Name(), fi})
	}
	return out
}

// sortEntries orders a listing as NTFS does: by name, without case.
func sortEntries(e []fs.DirEntry) {
	sort.SliceStable(e, func(i, j int) bool { return strings.ToLower(e[i].Name()) < strings.ToLower(e[j].Name()) })
}

// wildMatch matches * and ?; *.* matches names without a dot too.
func wildMatch(pat, name string) bool {
	if pat == "*.*" {
		return true
	}
	for len(pat) > 0 {
		switch pat[0] {
		case '*':
			for i := len(name); i >= 0; i-- {
				if wildMatch(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		case '?':
			if name == "" {
				return strings.Trim(pat, "?.") == "" // trailing ? match nothing
			}
		default:
			if name == "" || name[0] != pat[0] {
				return false
			}
		}
		pat, name = pat[1:], name[1:]
	}
	return name == ""
}
