package archive

import (
	"archive/tar"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// idNames are the user and group names of the image's /etc/passwd and
// /etc/group, which GNU tar records beside the numeric IDs.
type idNames struct {
	users, groups map[int64]string
}

// setOwner fills a header's numeric and named owner.
func (s *session) setOwner(hdr *tar.Header, fi fs.FileInfo) {
	o, ok := fi.Sys().(program.FileOwner)
	if !ok {
		return
	}
	uid, gid := o.Owner()
	hdr.Uid, hdr.Gid = int(uid), int(gid)
	if s.p.Sys.Windows {
		return
	}
	if s.names == nil {
		s.names = &idNames{
			users:  s.readIDs("/etc/passwd"),
			groups: s.readIDs("/etc/group"),
		}
	}
	hdr.Uname = s.names.users[uid]
	hdr.Gname = s.names.groups[gid]
}

// readIDs maps the third field (the ID) of a colon-separated file to its
// first (the name).
func (s *session) readIDs(name string) map[int64]string {
	ids := map[int64]string{}
	f, err := s.p.Sys.FS.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return ids
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return ids
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Split(line, ":")
		if len(fields) < 3 {
			continue
		}
		id, err := strconv.ParseInt(fields[2], 10, 64)
		if _, seen := ids[id]; err == nil && !seen {
			ids[id] = fields[0]
		}
	}
	return ids
}
