package kubeletenv

import (
	"strconv"
	"strings"
	"sync"
)

// BusyboxPasswd and BusyboxGroup are /etc/passwd and /etc/group of the
// busybox image the e2e tests use; they are what `id` names uids and gids
// with, and what image users like "nobody" resolve against.
var (
	BusyboxPasswd = []byte(`root:x:0:0:root:/root:/bin/sh
daemon:x:1:1:daemon:/usr/sbin:/bin/false
bin:x:2:2:bin:/bin:/bin/false
sys:x:3:3:sys:/dev:/bin/false
sync:x:4:100:sync:/bin:/bin/sync
mail:x:8:8:mail:/var/spool/mail:/bin/false
www-data:x:33:33:www-data:/var/www:/bin/false
operator:x:37:37:Operator:/var:/bin/false
nobody:x:65534:65534:nobody:/home:/bin/false
`)
	BusyboxGroup = []byte(`root:x:0:
daemon:x:1:
bin:x:2:
sys:x:3:
adm:x:4:
tty:x:5:
disk:x:6:
lp:x:7:
mail:x:8:
kmem:x:9:
wheel:x:10:root
cdrom:x:11:
dialout:x:18:
floppy:x:19:
video:x:28:
audio:x:29:
tape:x:32:
www-data:x:33:
operator:x:37:
utmp:x:43:
plugdev:x:46:
staff:x:50:
lock:x:54:
netdev:x:82:
users:x:100:
nogroup:x:65534:
`)
)

type passwdEntry struct {
	name     string
	uid, gid int64
	home     string
}

type groupEntry struct {
	name    string
	gid     int64
	members []string
}

// parsed caches the parsed passwd and group files by content: a node
// starts thousands of containers from a handful of images, and a name an
// Identity keeps would otherwise hold its own copy of the file in memory.
// The entries are shared and never changed.
var parsed struct {
	sync.Mutex
	users  map[string][]passwdEntry
	groups map[string][]groupEntry
}

// maxParsed bounds each cache; files beyond it are parsed every time.
const maxParsed = 64

func usersIn(data []byte) []passwdEntry { return cachedParse(&parsed.users, data, parsePasswd) }
func groupsIn(data []byte) []groupEntry { return cachedParse(&parsed.groups, data, parseGroup) }

// cachedParse is parse(data), from *cache when data was parsed before.
func cachedParse[T any](cache *map[string][]T, data []byte, parse func([]byte) []T) []T {
	parsed.Lock()
	defer parsed.Unlock()
	if v, ok := (*cache)[string(data)]; ok {
		return v
	}
	v := parse(data)
	if *cache == nil {
		*cache = map[string][]T{}
	}
	if len(*cache) < maxParsed {
		(*cache)[string(data)] = v
	}
	return v
}

func parsePasswd(data []byte) []passwdEntry {
	var out []passwdEntry
	for _, f := range colonLines(data, 7) {
		uid, err1 := strconv.ParseInt(f[2], 10, 64)
		gid, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 == nil && err2 == nil {
			out = append(out, passwdEntry{name: f[0], uid: uid, gid: gid, home: f[5]})
		}
	}
	return out
}

func parseGroup(data []byte) []groupEntry {
	var out []groupEntry
	for _, f := range colonLines(data, 4) {
		gid, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			continue
		}
		var members []string
		if f[3] != "" {
			members = strings.Split(f[3], ",")
		}
		out = append(out, groupEntry{name: f[0], gid: gid, members: members})
	}
	return out
}

// colonLines splits the non-comment lines of a passwd-style file into at
// least n fields (missing trailing fields are empty).
func colonLines(data []byte, n int) [][]string {
	var out [][]string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ":")
		if len(f) < 3 {
			continue
		}
		for len(f) < n {
			f = append(f, "")
		}
		out = append(out, f)
	}
	return out
}

func userByUID(users []passwdEntry, uid int64) (passwdEntry, bool) {
	for _, u := range users {
		if u.uid == uid {
			return u, true
		}
	}
	return passwdEntry{}, false
}

func userByName(users []passwdEntry, name string) (passwdEntry, bool) {
	for _, u := range users {
		if u.name == name {
			return u, true
		}
	}
	return passwdEntry{}, false
}

func groupByGID(groups []groupEntry, gid int64) (groupEntry, bool) {
	for _, g := range groups {
		if g.gid == gid {
			return g, true
		}
	}
	return groupEntry{}, false
}

func groupByName(groups []groupEntry, name string) (groupEntry, bool) {
	for _, g := range groups {
		if g.name == name {
			return g, true
		}
	}
	return groupEntry{}, false
}
