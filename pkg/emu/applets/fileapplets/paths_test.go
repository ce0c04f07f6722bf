package fileapplets

import (
	"testing"
	"time"
)

// basename FILE [SUFFIX] and dirname FILENAME work on the text alone:
// trailing slashes go, a suffix equal to the whole name stays.
func TestBasenameDirname(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{
		{argv: args("basename /a/b.txt .txt"), out: "b\n"},
		{argv: args("basename /a/b/"), out: "b\n"},
		{argv: args("basename b.txt b.txt"), out: "b.txt\n"},
		{argv: args("basename /"), out: "/\n"},
		{argv: args("basename"), err: "basename: usage", code: 1},
		{argv: args("dirname /a/b/"), out: "/a\n"},
		{argv: args("dirname //a//b//"), out: "//a\n"},
		{argv: args("dirname /a"), out: "/\n"},
		{argv: args("dirname /"), out: "/\n"},
		{argv: args("dirname a"), out: ".\n"},
		{argv: args("dirname"), err: "dirname: usage", code: 1},
	})
}

// mkdir [-m MODE] [-p] DIRECTORY..., rmdir [-p] DIRECTORY..., and rm
// [-irf] FILE...: busybox's wording for each failure.
func TestMkdirRmdirRm(t *testing.T) {
	e := newEnv()
	e.fs.Put("/f", "x", 0o644)
	e.check(t, []tc{
		{argv: args("mkdir /x/y"), err: "mkdir: can't create directory '/x/y': No such file or directory", code: 1},
		{argv: args("mkdir -pm 750 /x/y")},
		{argv: args("stat -c %a /x/y"), out: "750\n"},
		{argv: args("mkdir -p /x/y")},
		{argv: args("mkdir /x /z"), err: "mkdir: can't create directory '/x': File exists", code: 1},
		{argv: args("test -d /z")},
		{argv: args("mkdir -m 99 /w"), err: "mkdir: invalid mode '99'", code: 1},
		{argv: args("mkdir -k /w"), err: "mkdir: invalid option -- 'k'", code: 1},
		{argv: args("rmdir /f"), err: "rmdir: '/f': Not a directory", code: 1},
		{argv: args("rmdir /nosuch"), err: "rmdir: '/nosuch': No such file or directory", code: 1},
		{argv: args("rmdir /x"), err: "rmdir: '/x': Directory not empty", code: 1},
		{argv: args("rmdir -p x/y")},
		{argv: args("test -e /x"), code: 1},
		{argv: args("mkdir -p /r/s/t")},
		{argv: args("rm /r"), err: "rm: '/r' is a directory", code: 1},
		{argv: args("rm -fr /r /nosuch")},
		{argv: args("test -e /r"), code: 1},
		{argv: args("rm -- /f")},
		{argv: args("rm /f"), err: "rm: can't remove '/f': No such file or directory", code: 1},
		{argv: args("rm -z /f"), err: "rm: invalid option -- 'z'", code: 1},
		// No operand: busybox's usage and status 1 (rm -f alone is fine).
		{argv: args("mkdir -p"), err: "multi-call binary.\n\nUsage: mkdir [-m MODE] [-p] DIRECTORY...\n", code: 1},
		{argv: args("rmdir"), err: "Usage: rmdir [-p] DIRECTORY...", code: 1},
		{argv: args("rm"), err: "Usage: rm [-irf] FILE...", code: 1},
		{argv: args("rm -f")},
		{argv: args("touch"), err: "Usage: touch ", code: 1},
	})
}

// touch [-cham] [-d DATE] [-t [[CC]YY]MMDDhhmm[.ss]] [-r FILE] FILE...
func TestTouch(t *testing.T) {
	e := newEnv()
	e.fs.Put("/ref", "", 0o644)
	e.clock.Step(time.Hour)
	e.check(t, []tc{
		{argv: args("touch -c /none")},
		{argv: args("test -e /none"), code: 1},
		{argv: args("touch /new")},
		{argv: args("stat -c %Y /new"), out: "1795518000\n"},
		{argv: []string{"touch", "-d", "2020-01-02 03:04:05", "/new"}},
		{argv: args("stat -c %Y /new"), out: "1577934245\n"},
		{argv: args("touch -d @100 /new")},
		{argv: args("stat -c %Y /new"), out: "100\n"},
		{argv: args("touch -r /ref /new")},
		{argv: args("stat -c %Y /new"), out: "1795514400\n"},
		{argv: args("touch -t 202001020304.05 /new")},
		{argv: args("stat -c %Y /new"), out: "1577934245\n"},
		{argv: args("touch -t 2001020304 /new")},
		{argv: args("stat -c %y /new"), out: "2020-01-02 03:04:00.000000000 +0000\n"},
		{argv: args("touch -t 01020304 /new")},
		{argv: args("stat -c %y /new"), out: "2026-01-02 03:04:00.000000000 +0000\n"},
		{argv: args("touch -t 2x01020304 /new"), err: "touch: invalid date '2x01020304'", code: 1},
		{argv: args("touch -d yesterday /new"), err: "touch: invalid date 'yesterday'", code: 1},
		{argv: args("touch -r /nosuch /new"), err: "touch: /nosuch: No such file or directory", code: 1},
		{argv: args("touch /nodir/f"), err: "touch: /nodir/f: No such file or directory", code: 1},
	})
}

// readlink [-fnv] FILE and realpath FILE...: realpath accepts a missing
// last component, as coreutils' (and busybox's since 1.33) does.
func TestReadlinkRealpath(t *testing.T) {
	e := newEnv()
	e.fs.Put("/d/f", "x", 0o644)
	_ = e.fs.Symlink("/d", "/l")
	_ = e.fs.Symlink("f", "/d/rel")
	_ = e.fs.Symlink("/loop2", "/loop1")
	_ = e.fs.Symlink("/loop1", "/loop2")
	e.check(t, []tc{
		{argv: args("readlink /l"), out: "/d\n"},
		{argv: args("readlink /d/rel"), out: "f\n"},
		{argv: args("readlink -n /l"), out: "/d"},
		{argv: args("readlink /d/f"), code: 1},
		{argv: args("readlink -f /l/rel"), out: "/d/f\n"},
		{argv: args("readlink -f /l/../l/./rel"), out: "/d/f\n"},
		{argv: args("readlink -f /loop1"), code: 1},
		{argv: args("realpath /l/rel /d"), out: "/d/f\n/d\n"},
		{argv: args("realpath /d/missing"), out: "/d/missing\n"},
		{argv: args("realpath /nosuch/x"), err: "realpath: /nosuch/x: No such file or directory", code: 1},
		{argv: args("realpath /d/f/x"), err: "realpath: /d/f/x: Not a directory", code: 1},
	})
}

// cp [-arPLHpfinlsTu] SOURCE... DEST, mv [-finT] SOURCE... DEST and ln
// [-sfnbtv] TARGET... LINK.
func TestCpMvLn(t *testing.T) {
	e := newEnv()
	e.fs.Put("/src/a", "A", 0o640)
	e.fs.Put("/src/sub/b", "B", 0o600)
	_ = e.fs.Symlink("a", "/src/ln")
	_ = e.fs.Chtimes("/src/a", time.Unix(1000, 0))
	_ = e.fs.MkdirAll("/dst", 0o755)
	e.check(t, []tc{
		{argv: args("cp /src/a /dst")},
		{argv: args("stat -c %a:%Y /dst/a"), out: "640:1795514400\n"},
		{argv: args("cp -p /src/a /dst/p")},
		{argv: args("stat -c %a:%Y /dst/p"), out: "640:1000\n"},
		{argv: args("cp /src/a /src/sub/b /dst/a"), err: "cp: '/dst/a' is not a directory", code: 1},
		{argv: args("cp /nosuch /dst"), err: "cp: can't stat '/nosuch': No such file or directory", code: 1},
		{argv: args("cp /src /dst"), err: "cp: omitting directory '/src'", code: 1},
		{argv: args("cp -r /src /src/sub"), err: "cp: recursion detected, omitting directory '/src'", code: 1},
		{argv: args("cp -a /src /copy")},
		{argv: args("cat /copy/a /copy/sub/b"), out: "AB"},
		{argv: args("readlink /copy/ln"), out: "a\n"},
		{argv: args("cp -R /src /deref")},
		{argv: args("readlink /deref/ln"), code: 1},
		{argv: args("cat /deref/ln"), out: "A"},
		{argv: args("cp -y /src/a /dst"), err: "cp: invalid option -- 'y'", code: 1},
		{argv: args("mv /dst/a /dst/p /copy")},
		{argv: args("test -e /dst/a"), code: 1},
		{argv: args("cat /copy/a"), out: "A"},
		{argv: args("mv /nosuch /dst"), err: "mv: can't rename '/nosuch': No such file or directory", code: 1},
		{argv: args("mv /copy/a /copy/p /dst/x"), err: "mv: '/dst/x' is not a directory", code: 1},
		{argv: args("mv -v /copy/a /dst/moved"), out: "'/copy/a' -> '/dst/moved'\n"},
		{argv: args("ln -s /dst/moved /dst/sym")},
		{argv: args("cat /dst/sym"), out: "A"},
		{argv: args("ln -s /other /dst/sym"), err: "ln: /dst/sym: File exists", code: 1},
		{argv: args("ln -sf /src/sub /dst/sym")},
		{argv: args("readlink /dst/sym"), out: "/src/sub\n"},
		{argv: args("ln -s /src/a /dst")},
		{argv: args("readlink /dst/a"), out: "/src/a\n"},
		{argv: args("ln /dst/moved /dst/hard")},
		{argv: args("cat /dst/hard"), out: "A"},
	})
}

// chmod [-Rcvf] MODE[,MODE]... FILE...: octal or symbolic modes; the
// flags combine and "--" ends them; "-x" is a mode, not a flag.
func TestChmod(t *testing.T) {
	e := newEnv()
	e.fs.Put("/f", "", 0o644)
	e.fs.Put("/d/g", "", 0o644)
	e.check(t, []tc{
		{argv: args("chmod 4755 /f")},
		{argv: args("stat -c %a:%A /f"), out: "4755:-rwsr-xr-x\n"},
		{argv: args("chmod u-s,g-x,o= /f")},
		{argv: args("stat -c %A /f"), out: "-rwxr-----\n"},
		{argv: args("chmod a=r,u+w /f")},
		{argv: args("stat -c %a /f"), out: "644\n"},
		{argv: args("chmod +x /f")},
		{argv: args("stat -c %a /f"), out: "755\n"},
		{argv: args("chmod -x /f")},
		{argv: args("stat -c %a /f"), out: "644\n"},
		{argv: args("chmod -- 600 /f")},
		{argv: args("stat -c %a /f"), out: "600\n"},
		{argv: args("chmod -Rf go-rwx,+t /d")},
		{argv: args("stat -c %A /d /d/g"), out: "drwx-----T\n-rw------T\n"},
		{argv: args("chmod -R u=rwX,go=rX /d")},
		{argv: args("stat -c %A /d /d/g"), out: "drwxr-xr-x\n-rw-r--r--\n"},
		{argv: args("chmod 8 /f"), err: "chmod: invalid mode '8'", code: 1},
		{argv: args("chmod u+q /f"), err: "chmod: invalid mode 'u+q'", code: 1},
		{argv: args("chmod 644 /nosuch"), err: "chmod: /nosuch: No such file or directory", code: 1},
		{argv: args("chmod -Z 644 /f"), err: "chmod: invalid option -- 'Z'", code: 1},
		{argv: args("chmod 644"), err: "chmod: missing operand", code: 1},
	})
}

// chown [-Rh] USER[:[GRP]] FILE...: names from the image's passwd and
// group files, or numbers; USER.GRP is the old form.
func TestChown(t *testing.T) {
	e := newEnv()
	e.fs.Put("/d/f", "", 0o644)
	e.check(t, []tc{
		{argv: args("chown nobody /d/f")},
		{argv: args("stat -c %u:%g:%U /d/f"), out: "65534:0:nobody\n"},
		{argv: args("chown :nogroup /d/f")},
		{argv: args("stat -c %U:%G /d/f"), out: "nobody:nogroup\n"},
		{argv: args("chown -R 1000.2000 /d")},
		{argv: args("stat -c %u:%g /d /d/f"), out: "1000:2000\n1000:2000\n"},
		{argv: args("stat -c %U:%G /d"), out: "UNKNOWN:UNKNOWN\n"},
		{argv: args("chown root:root /d")},
		{argv: args("stat -c %u:%g /d /d/f"), out: "0:0\n1000:2000\n"},
		{argv: args("chown nosuch /d"), err: "chown: unknown user nosuch", code: 1},
		{argv: args("chown root:nosuch /d"), err: "chown: unknown group nosuch", code: 1},
		{argv: args("chown root /nosuch"), err: "chown: /nosuch: No such file or directory", code: 1},
		{argv: args("chown root"), err: "chown: missing operand", code: 1},
	})
}
