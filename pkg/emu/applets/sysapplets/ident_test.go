package sysapplets

import (
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

// id [-ugGnr] and whoami: numbers with the image's names in brackets,
// -n names alone.
func TestIDWhoami(t *testing.T) {
	e := newEnv()
	e.Sys.User = program.User{UID: 65534, GID: 65534, Groups: []int64{10, 65534, 4000}}
	e.Check(t, []tc{
		{Argv: a("id"), Out: "uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup),10(wheel),4000\n"},
		{Argv: a("id -u"), Out: "65534\n"},
		{Argv: a("id -un"), Out: "nobody\n"},
		{Argv: a("id -g"), Out: "65534\n"},
		{Argv: a("id -gn"), Out: "nogroup\n"},
		{Argv: a("id -Gn"), Out: "nogroup wheel 4000\n"},
		{Argv: a("id -G"), Out: "65534 10 4000\n"},
		{Argv: a("id someone"), Err: "id: unknown user someone", Code: 1},
		{Argv: a("id -x"), Err: "id: invalid option -- 'x'", Code: 1},
		{Argv: a("whoami"), Out: "nobody\n"},
	})
}

// hostname [-sfdi] [NAME]: the pod's hostname; -s the first label, -d
// the rest; setting it is not permitted in a container.
func TestHostnameUname(t *testing.T) {
	e := newEnv()
	e.Sys.Net = names{"web-0.web.default.svc.cluster.local": {"10.0.0.9"}}
	e.Check(t, []tc{
		{Argv: a("hostname"), Out: "web-0.web.default.svc.cluster.local\n"},
		{Argv: a("hostname -s"), Out: "web-0\n"},
		{Argv: a("hostname -d"), Out: "web.default.svc.cluster.local\n"},
		{Argv: a("hostname -f"), Out: "web-0.web.default.svc.cluster.local\n"},
		{Argv: a("hostname -i"), Out: "10.0.0.9\n"},
		{Argv: a("hostname other"), Err: "hostname: sethostname: Operation not permitted", Code: 1},
		{Argv: a("hostname -x"), Err: "hostname: invalid option -- 'x'", Code: 1},
		{Argv: a("uname"), Out: "Linux\n"},
		{Argv: a("uname -sr"), Out: "Linux 6.8.0-45-generic\n"},
		{Argv: a("uname -m -o"), Out: "x86_64 GNU/Linux\n"},
		{Argv: a("uname -a"), Out: "Linux web-0.web.default.svc.cluster.local 6.8.0-45-generic " + kernelVersion + " x86_64 GNU/Linux\n"},
		{Argv: a("uname -pi"), Out: "unknown unknown\n"},
		{Argv: a("uname -z"), Err: "uname: invalid option -- 'z'", Code: 1},
	})
}

// env [-i] [-u NAME]... [-] [NAME=VALUE]... [PROG ARGS], printenv [NAME]...
// and pwd.
func TestEnvPrintenvPwd(t *testing.T) {
	e := newEnv()
	vars := []string{"A=1", "B=2"}
	e.Check(t, []tc{
		{Argv: a("env"), Env: vars, Out: "A=1\nB=2\n"},
		{Argv: a("env -u A"), Env: vars, Out: "B=2\n"},
		{Argv: a("env A=3 C=4"), Env: vars, Out: "B=2\nA=3\nC=4\n"},
		{Argv: a("env -i C=5"), Env: vars, Out: "C=5\n"},
		{Argv: a("env - C=5 printenv C"), Env: vars, Out: "5\n"},
		{Argv: a("env -0"), Env: vars, Out: "A=1\x00B=2\x00"},
		{Argv: a("env false"), Code: 1},
		{Argv: a("env nosuch"), Err: "env: can't execute 'nosuch': No such file or directory", Code: 127},
		{Argv: a("printenv"), Env: vars, Out: "A=1\nB=2\n"},
		{Argv: a("printenv B A"), Env: vars, Out: "2\n1\n"},
		{Argv: a("printenv A NOPE"), Env: vars, Out: "1\n", Code: 1},
		{Argv: a("pwd"), Out: "/tmp\n"},
	})
}

// kill [-l] [-SIG] PID...: only PID 1, the container's first process,
// exists.
func TestKill(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{
		{Argv: a("kill 1")},
		{Argv: a("kill -9 1")},
		{Argv: a("kill -s TERM 1")},
		{Argv: a("kill -- 1")},
		{Argv: a("kill 1 99"), Err: "kill: can't kill pid 99: No such process", Code: 1},
		{Argv: a("kill abc"), Err: "kill: bad pid 'abc'", Code: 1},
		{Argv: a("kill"), Err: "kill: usage", Code: 1},
	})
	out, _, code := e.Run(t, tc{Argv: a("kill -l")})
	if code != 0 || len(out) < 9 || out[:9] != " 1) HUP\n " {
		t.Errorf("kill -l = %q", out)
	}
}

// which [-a] COMMAND...: the first executable along $PATH, in $PATH's
// order for every operand; an image program not on the filesystem shows
// under /bin.
func TestWhich(t *testing.T) {
	e := newEnv()
	e.FS.Put("/usr/local/bin/tool", "#!/bin/sh\n", 0o755)
	e.FS.Put("/bin/tool", "#!/bin/sh\n", 0o755)
	e.FS.Put("/bin/notexec", "", 0o644)
	path := []string{"PATH=/usr/local/bin:/bin"}
	e.Check(t, []tc{
		{Argv: a("which tool"), Env: path, Out: "/usr/local/bin/tool\n"},
		{Argv: a("which date tool"), Env: path, Out: "/bin/date\n/usr/local/bin/tool\n"},
		{Argv: a("which -a tool"), Env: path, Out: "/usr/local/bin/tool\n/bin/tool\n"},
		{Argv: a("which notexec nosuch"), Env: path, Code: 1},
		{Argv: a("which /bin/tool ./nosuch"), Env: path, Out: "/bin/tool\n", Code: 1},
	})
}
