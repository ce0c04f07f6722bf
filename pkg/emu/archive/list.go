package archive

import (
	"archive/tar"
	"fmt"
	"io/fs"
	"strconv"
)

// ugsWidth is GNU tar's starting width of "user/group size" in a long
// listing; it grows with the widest line seen.
const ugsWidth = 19

// list prints a member for t: its name, or with -v a line like
// "-rw-r--r-- root/root        12 2026-11-24 10:00 name".
func (s *session) list(hdr *tar.Header, name string) {
	if !s.opts.verbose {
		fmt.Fprintln(s.p.Stdout, name)
		return
	}
	user := hdr.Uname
	if user == "" {
		user = strconv.Itoa(hdr.Uid)
	}
	group := hdr.Gname
	if group == "" {
		group = strconv.Itoa(hdr.Gid)
	}
	size := strconv.FormatInt(hdr.Size, 10)
	if hdr.Typeflag == tar.TypeChar || hdr.Typeflag == tar.TypeBlock {
		size = fmt.Sprintf("%d,%d", hdr.Devmajor, hdr.Devminor)
	}
	pad := len(user) + 1 + len(group) + 1 + len(size)
	if pad > s.ugsWidth {
		s.ugsWidth = pad
	}
	line := fmt.Sprintf("%s %s/%s %*s %s %s", typeChar(hdr.Typeflag)+modeString(hdr.FileInfo().Mode())[1:],
		user, group, s.ugsWidth-pad+len(size), size, hdr.ModTime.UTC().Format("2006-01-02 15:04"), name)
	switch hdr.Typeflag {
	case tar.TypeSymlink:
		line += " -> " + hdr.Linkname
	case tar.TypeLink:
		line += " link to " + hdr.Linkname
	}
	fmt.Fprintln(s.p.Stdout, line)
}

// typeChar is the first letter of a listing's mode.
func typeChar(t byte) string {
	switch t {
	case tar.TypeDir:
		return "d"
	case tar.TypeSymlink:
		return "l"
	case tar.TypeLink:
		return "h"
	case tar.TypeChar:
		return "c"
	case tar.TypeBlock:
		return "b"
	case tar.TypeFifo:
		return "p"
	}
	return "-"
}

// modeString is ls's ten-letter mode ("-rwsr-xr-t"); the first letter is
// the type.
func modeString(m fs.FileMode) string {
	b := []byte("----------")
	switch {
	case m.IsDir():
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	case m&fs.ModeCharDevice != 0:
		b[0] = 'c'
	case m&fs.ModeDevice != 0:
		b[0] = 'b'
	case m&fs.ModeNamedPipe != 0:
		b[0] = 'p'
	}
	const rwx = "rwxrwxrwx"
	for i := range 9 {
		if m&(1<<(8-i)) != 0 {
			b[i+1] = rwx[i]
		}
	}
	special := func(pos int, on bool, set, unset byte) {
		if !on {
			return
		}
		if b[pos] == 'x' {
			b[pos] = set
		} else {
			b[pos] = unset
		}
	}
	special(3, m&fs.ModeSetuid != 0, 's', 'S')
	special(6, m&fs.ModeSetgid != 0, 's', 'S')
	special(9, m&fs.ModeSticky != 0, 't', 'T')
	return string(b)
}
