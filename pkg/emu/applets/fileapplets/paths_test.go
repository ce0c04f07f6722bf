package fileapplets

import (
	"testing"
	"time"
)

// basename FILE [SUFFIX] and dirname FILENAME work on the text alone:
// trailing slashes go, a suffix equal to the whole name stays.
func TestBasenameDirname(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{
		{Argv: args("basename /a/b.txt .txt"), Out: "b\n"},
		{Argv: args("basename /a/b/"), Out: "b\n"},
		{Argv: args("basename b.txt b.txt"), Out: "b.txt\n"},
		{Argv: args("basename /"), Out: "/\n"},
		{Argv: args("basename"), Err: "basename: usage", Code: 1},
		{Argv: args("dirname /a/b/"), Out: "/a\n"},
		{Argv: args("dirname //a//b//"), Out: "//a\n"},
		{Argv: args("dirname /a"), Out: "/\n"},
		{Argv: args("dirname /"), Out: "/\n"},
		{Argv: args("dirname a"), Out: ".\n"},
		{Argv: args("dirname"), Err: "dirname: usage", Code: 1},
	})
}

// mkdir [-m MODE] [-p] DIRECTORY..., rmdir [-p] DIRECTORY..., and rm
// [-irf] FILE...: busybox's wording for each failure.
func TestMkdirRmdirRm(t *testing.T) {
	e := newEnv()
	e.FS.Put("/f", "x", 0o644)
	e.Check(t, []tc{
		{Argv: args("mkdir /x/y"), Err: "mkdir: can't create directory '/x/y': No such file or directory", Code: 1},
		{Argv: args("mkdir -pm 750 /x/y")},
		{Argv: args("stat -c %a /x/y"), Out: "750\n"},
		{Argv: args("mkdir -p /x/y")},
		{Argv: args("mkdir /x /z"), Err: "mkdir: can't create directory '/x': File exists", Code: 1},
		{Argv: args("test -d /z")},
		{Argv: args("mkdir -m 99 /w"), Err: "mkdir: invalid mode '99'", Code: 1},
		{Argv: args("mkdir -k /w"), Err: "mkdir: invalid option -- 'k'", Code: 1},
		{Argv: args("rmdir /f"), Err: "rmdir: '/f': Not a directory", Code: 1},
		{Argv: args("rmdir /nosuch"), Err: "rmdir: '/nosuch': No such file or directory", Code: 1},
		{Argv: args("rmdir /x"), Err: "rmdir: '/x': Directory not empty", Code: 1},
		{Argv: args("rmdir -p x/y")},
		{Argv: args("test -e /x"), Code: 1},
		{Argv: args("mkdir -p /r/s/t")},
		{Argv: args("rm /r"), Err: "rm: '/r' is a directory", Code: 1},
		{Argv: args("rm -fr /r /nosuch")},
		{Argv: args("test -e /r"), Code: 1},
		{Argv: args("rm -- /f")},
		{Argv: args("rm /f"), Err: "rm: can't remove '/f': No such file or directory", Code: 1},
		{Argv: args("rm -z /f"), Err: "rm: invalid option -- 'z'", Code: 1},
		// No operand: busybox's usage and status 1 (rm -f alone is fine).
		{Argv: args("mkdir -p"), Err: "multi-call binary.\n\nUsage: mkdir [-m MODE] [-p] DIRECTORY...\n", Code: 1},
		{Argv: args("rmdir"), Err: "Usage: rmdir [-p] DIRECTORY...", Code: 1},
		{Argv: args("rm"), Err: "Usage: rm [-irf] FILE...", Code: 1},
		{Argv: args("rm -f")},
		{Argv: args("touch"), Err: "Usage: touch ", Code: 1},
	})
}

// touch [-cham] [-d DATE] [-t [[CC]YY]MMDDhhmm[.ss]] [-r FILE] FILE...
func TestTouch(t *testing.T) {
	e := newEnv()
	e.FS.Put("/ref", "", 0o644)
	e.Clock.Step(time.Hour)
	e.Check(t, []tc{
		{Argv: args("touch -c /none")},
		{Argv: args("test -e /none"), Code: 1},
		{Argv: args("touch /new")},
		{Argv: args("stat -c %Y /new"), Out: "1795518000\n"},
		{Argv: []string{"touch", "-d", "2020-01-02 03:04:05", "/new"}},
		{Argv: args("stat -c %Y /new"), Out: "1577934245\n"},
		{Argv: args("touch -d @100 /new")},
		{Argv: args("stat -c %Y /new"), Out: "100\n"},
		{Argv: args("touch -r /ref /new")},
		{Argv: args("stat -c %Y /new"), Out: "1795514400\n"},
		{Argv: args("touch -t 202001020304.05 /new")},
		{Argv: args("stat -c %Y /new"), Out: "1577934245\n"},
		{Argv: args("touch -t 2001020304 /new")},
		{Argv: args("stat -c %y /new"), Out: "2020-01-02 03:04:00.000000000 +0000\n"},
		{Argv: args("touch -t 01020304 /new")},
		{Argv: args("stat -c %y /new"), Out: "2026-01-02 03:04:00.000000000 +0000\n"},
		{Argv: args("touch -t 2x01020304 /new"), Err: "touch: invalid date '2x01020304'", Code: 1},
		{Argv: args("touch -d yesterday /new"), Err: "touch: invalid date 'yesterday'", Code: 1},
		{Argv: args("touch -r /nosuch /new"), Err: "touch: /nosuch: No such file or directory", Code: 1},
		{Argv: args("touch /nodir/f"), Err: "touch: /nodir/f: No such file or directory", Code: 1},
	})
}

// readlink [-fnv] FILE and realpath FILE...: realpath accepts a missing
// last component, as coreutils' (and busybox's since 1.33) does.
func TestReadlinkRealpath(t *testing.T) {
	e := newEnv()
	e.FS.Put("/d/f", "x", 0o644)
	_ = e.FS.Symlink("/d", "/l")
	_ = e.FS.Symlink("f", "/d/rel")
	_ = e.FS.Symlink("/loop2", "/loop1")
	_ = e.FS.Symlink("/loop1", "/loop2")
	e.Check(t, []tc{
		{Argv: args("readlink /l"), Out: "/d\n"},
		{Argv: args("readlink /d/rel"), Out: "f\n"},
		{Argv: args("readlink -n /l"), Out: "/d"},
		{Argv: args("readlink /d/f"), Code: 1},
		{Argv: args("readlink -f /l/rel"), Out: "/d/f\n"},
		{Argv: args("readlink -f /l/../l/./rel"), Out: "/d/f\n"},
		{Argv: args("readlink -f /loop1"), Code: 1},
		{Argv: args("realpath /l/rel /d"), Out: "/d/f\n/d\n"},
		{Argv: args("realpath /d/missing"), Out: "/d/missing\n"},
		{Argv: args("realpath /nosuch/x"), Err: "realpath: /nosuch/x: No such file or directory", Code: 1},
		{Argv: args("realpath /d/f/x"), Err: "realpath: /d/f/x: Not a directory", Code: 1},
	})
}

// cp [-arPLHpfinlsTu] SOURCE... DEST, mv [-finT] SOURCE... DEST and ln
// [-sfnbtv] TARGET... LINK.
func TestCpMvLn(t *testing.T) {
	e := newEnv()
	e.FS.Put("/src/a", "A", 0o640)
	e.FS.Put("/src/sub/b", "B", 0o600)
	_ = e.FS.Symlink("a", "/src/ln")
	_ = e.FS.Chtimes("/src/a", time.Unix(1000, 0))
	_ = e.FS.MkdirAll("/dst", 0o755)
	e.Check(t, []tc{
		{Argv: args("cp /src/a /dst")},
		{Argv: args("stat -c %a:%Y /dst/a"), Out: "640:1795514400\n"},
		{Argv: args("cp -p /src/a /dst/p")},
		{Argv: args("stat -c %a:%Y /dst/p"), Out: "640:1000\n"},
		{Argv: args("cp /src/a /src/sub/b /dst/a"), Err: "cp: '/dst/a' is not a directory", Code: 1},
		{Argv: args("cp /nosuch /dst"), Err: "cp: can't stat '/nosuch': No such file or directory", Code: 1},
		{Argv: args("cp /src /dst"), Err: "cp: omitting directory '/src'", Code: 1},
		{Argv: args("cp -r /src /src/sub"), Err: "cp: recursion detected, omitting directory '/src'", Code: 1},
		{Argv: args("cp -a /src /copy")},
		{Argv: args("cat /copy/a /copy/sub/b"), Out: "AB"},
		{Argv: args("readlink /copy/ln"), Out: "a\n"},
		{Argv: args("cp -R /src /deref")},
		{Argv: args("readlink /deref/ln"), Code: 1},
		{Argv: args("cat /deref/ln"), Out: "A"},
		{Argv: args("cp -y /src/a /dst"), Err: "cp: invalid option -- 'y'", Code: 1},
		{Argv: args("mv /dst/a /dst/p /copy")},
		{Argv: args("test -e /dst/a"), Code: 1},
		{Argv: args("cat /copy/a"), Out: "A"},
		{Argv: args("mv /nosuch /dst"), Err: "mv: can't rename '/nosuch': No such file or directory", Code: 1},
		{Argv: args("mv /copy/a /copy/p /dst/x"), Err: "mv: '/dst/x' is not a directory", Code: 1},
		{Argv: args("mv -v /copy/a /dst/moved"), Out: "'/copy/a' -> '/dst/moved'\n"},
		{Argv: args("ln -s /dst/moved /dst/sym")},
		{Argv: args("cat /dst/sym"), Out: "A"},
		{Argv: args("ln -s /other /dst/sym"), Err: "ln: /dst/sym: File exists", Code: 1},
		{Argv: args("ln -sf /src/sub /dst/sym")},
		{Argv: args("readlink /dst/sym"), Out: "/src/sub\n"},
		{Argv: args("ln -s /src/a /dst")},
		{Argv: args("readlink /dst/a"), Out: "/src/a\n"},
		{Argv: args("ln /dst/moved /dst/hard")},
		{Argv: args("cat /dst/hard"), Out: "A"},
	})
}

// chmod [-Rcvf] MODE[,MODE]... FILE...: octal or symbolic modes; the
// flags combine and "--" ends them; "-x" is a mode, not a flag.
func TestChmod(t *testing.T) {
	e := newEnv()
	e.FS.Put("/f", "", 0o644)
	e.FS.Put("/d/g", "", 0o644)
	e.Check(t, []tc{
		{Argv: args("chmod 4755 /f")},
		{Argv: args("stat -c %a:%A /f"), Out: "4755:-rwsr-xr-x\n"},
		{Argv: args("chmod u-s,g-x,o= /f")},
		{Argv: args("stat -c %A /f"), Out: "-rwxr-----\n"},
		{Argv: args("chmod a=r,u+w /f")},
		{Argv: args("stat -c %a /f"), Out: "644\n"},
		{Argv: args("chmod +x /f")},
		{Argv: args("stat -c %a /f"), Out: "755\n"},
		{Argv: args("chmod -x /f")},
		{Argv: args("stat -c %a /f"), Out: "644\n"},
		{Argv: args("chmod -- 600 /f")},
		{Argv: args("stat -c %a /f"), Out: "600\n"},
		{Argv: args("chmod -Rf go-rwx,+t /d")},
		{Argv: args("stat -c %A /d /d/g"), Out: "drwx-----T\n-rw------T\n"},
		{Argv: args("chmod -R u=rwX,go=rX /d")},
		{Argv: args("stat -c %A /d /d/g"), Out: "drwxr-xr-x\n-rw-r--r--\n"},
		{Argv: args("chmod 8 /f"), Err: "chmod: invalid mode '8'", Code: 1},
		{Argv: args("chmod u+q /f"), Err: "chmod: invalid mode 'u+q'", Code: 1},
		{Argv: args("chmod 644 /nosuch"), Err: "chmod: /nosuch: No such file or directory", Code: 1},
		{Argv: args("chmod -Z 644 /f"), Err: "chmod: invalid option -- 'Z'", Code: 1},
		{Argv: args("chmod 644"), Err: "chmod: missing operand", Code: 1},
	})
}

// chown [-Rh] USER[:[GRP]] FILE...: names from the image's passwd and
// group files, or numbers; USER.GRP is the old form.
func TestChown(t *testing.T) {
	e := newEnv()
	e.FS.Put("/d/f", "", 0o644)
	e.Check(t, []tc{
		{Argv: args("chown nobody /d/f")},
		{Argv: args("stat -c %u:%g:%U /d/f"), Out: "65534:0:nobody\n"},
		{Argv: args("chown :nogroup /d/f")},
		{Argv: args("stat -c %U:%G /d/f"), Out: "nobody:nogroup\n"},
		{Argv: args("chown -R 1000.2000 /d")},
		{Argv: args("stat -c %u:%g /d /d/f"), Out: "1000:2000\n1000:2000\n"},
		{Argv: args("stat -c %U:%G /d"), Out: "UNKNOWN:UNKNOWN\n"},
		{Argv: args("chown root:root /d")},
		{Argv: args("stat -c %u:%g /d /d/f"), Out: "0:0\n1000:2000\n"},
		{Argv: args("chown nosuch /d"), Err: "chown: unknown user nosuch", Code: 1},
		{Argv: args("chown root:nosuch /d"), Err: "chown: unknown group nosuch", Code: 1},
		{Argv: args("chown root /nosuch"), Err: "chown: /nosuch: No such file or directory", Code: 1},
		{Argv: args("chown root"), Err: "chown: missing operand", Code: 1},
	})
}
