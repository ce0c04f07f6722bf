package sysapplets

import (
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

// id [-ugGnr] and whoami: numbers with the image's names in brackets,
// -n names alone.
func TestIDWhoami(t *testing.T) {
	e := newEnv()
	e.sys.User = program.User{UID: 65534, GID: 65534, Groups: []int64{10, 65534, 4000}}
	e.check(t, []tc{
		{argv: a("id"), out: "uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup),10(wheel),4000\n"},
		{argv: a("id -u"), out: "65534\n"},
		{argv: a("id -un"), out: "nobody\n"},
		{argv: a("id -g"), out: "65534\n"},
		{argv: a("id -gn"), out: "nogroup\n"},
		{argv: a("id -Gn"), out: "nogroup wheel 4000\n"},
		{argv: a("id -G"), out: "65534 10 4000\n"},
		{argv: a("id someone"), err: "id: unknown user someone", code: 1},
		{argv: a("id -x"), err: "id: invalid option -- 'x'", code: 1},
		{argv: a("whoami"), out: "nobody\n"},
	})
}

// hostname [-sfdi] [NAME]: the pod's hostname; -s the first label, -d
// the rest; setting it is not permitted in a container.
func TestHostnameUname(t *testing.T) {
	e := newEnv()
	e.sys.Net = names{"web-0.web.default.svc.cluster.local": {"10.0.0.9"}}
	e.check(t, []tc{
		{argv: a("hostname"), out: "web-0.web.default.svc.cluster.local\n"},
		{argv: a("hostname -s"), out: "web-0\n"},
		{argv: a("hostname -d"), out: "web.default.svc.cluster.local\n"},
		{argv: a("hostname -f"), out: "web-0.web.default.svc.cluster.local\n"},
		{argv: a("hostname -i"), out: "10.0.0.9\n"},
		{argv: a("hostname other"), err: "hostname: sethostname: Operation not permitted", code: 1},
		{argv: a("hostname -x"), err: "hostname: invalid option -- 'x'", code: 1},
		{argv: a("uname"), out: "Linux\n"},
		{argv: a("uname -sr"), out: "Linux 6.8.0-45-generic\n"},
		{argv: a("uname -m -o"), out: "x86_64 GNU/Linux\n"},
		{argv: a("uname -a"), out: "Linux web-0.web.default.svc.cluster.local 6.8.0-45-generic " + kernelVersion + " x86_64 GNU/Linux\n"},
		{argv: a("uname -pi"), out: "unknown unknown\n"},
		{argv: a("uname -z"), err: "uname: invalid option -- 'z'", code: 1},
	})
}

// env [-i] [-u NAME]... [-] [NAME=VALUE]... [PROG ARGS], printenv [NAME]...
// and pwd.
func TestEnvPrintenvPwd(t *testing.T) {
	e := newEnv()
	vars := []string{"A=1", "B=2"}
	e.check(t, []tc{
		{argv: a("env"), env: vars, out: "A=1\nB=2\n"},
		{argv: a("env -u A"), env: vars, out: "B=2\n"},
		{argv: a("env A=3 C=4"), env: vars, out: "B=2\nA=3\nC=4\n"},
		{argv: a("env -i C=5"), env: vars, out: "C=5\n"},
		{argv: a("env - C=5 printenv C"), env: vars, out: "5\n"},
		{argv: a("env -0"), env: vars, out: "A=1\x00B=2\x00"},
		{argv: a("env false"), code: 1},
		{argv: a("env nosuch"), err: "env: can't execute 'nosuch': No such file or directory", code: 127},
		{argv: a("printenv"), env: vars, out: "A=1\nB=2\n"},
		{argv: a("printenv B A"), env: vars, out: "2\n1\n"},
		{argv: a("printenv A NOPE"), env: vars, out: "1\n", code: 1},
		{argv: a("pwd"), out: "/tmp\n"},
	})
}

// kill [-l] [-SIG] PID...: only PID 1, the container's first process,
// exists.
func TestKill(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{
		{argv: a("kill 1")},
		{argv: a("kill -9 1")},
		{argv: a("kill -s TERM 1")},
		{argv: a("kill -- 1")},
		{argv: a("kill 1 99"), err: "kill: can't kill pid 99: No such process", code: 1},
		{argv: a("kill abc"), err: "kill: bad pid 'abc'", code: 1},
		{argv: a("kill"), err: "kill: usage", code: 1},
	})
	out, _, code := e.run(t, nil, "kill", "-l")
	if code != 0 || len(out) < 9 || out[:9] != " 1) HUP\n " {
		t.Errorf("kill -l = %q", out)
	}
}

// which [-a] COMMAND...: the first executable along $PATH, in $PATH's
// order for every operand; an image program not on the filesystem shows
// under /bin.
func TestWhich(t *testing.T) {
	e := newEnv()
	e.fs.Put("/usr/local/bin/tool", "#!/bin/sh\n", 0o755)
	e.fs.Put("/bin/tool", "#!/bin/sh\n", 0o755)
	e.fs.Put("/bin/notexec", "", 0o644)
	path := []string{"PATH=/usr/local/bin:/bin"}
	e.check(t, []tc{
		{argv: a("which tool"), env: path, out: "/usr/local/bin/tool\n"},
		{argv: a("which date tool"), env: path, out: "/bin/date\n/usr/local/bin/tool\n"},
		{argv: a("which -a tool"), env: path, out: "/usr/local/bin/tool\n/bin/tool\n"},
		{argv: a("which notexec nosuch"), env: path, code: 1},
		{argv: a("which /bin/tool ./nosuch"), env: path, out: "/bin/tool\n", code: 1},
	})
}
