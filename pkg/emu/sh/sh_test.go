package sh

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/applets"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

var epoch = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

type box struct {
	fs    program.FS
	clock *clocktesting.FakeClock
	sys   *program.Sys
}

func newBox() *box {
	clock := clocktesting.NewFakeClock(epoch)
	m := vfstest.New(clock)
	m.Put("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n", 0o644)
	progs := applets.Table()
	for _, n := range []string{"sh", "ash", "bash"} {
		progs[n] = Main
	}
	return &box{fs: m, clock: clock, sys: &program.Sys{FS: m, Clock: clock, Hostname: "pod", Programs: progs}}
}

func (b *box) proc(stdin string, args ...string) (*program.Proc, *syncbuf.Buffer, *syncbuf.Buffer) {
	out, errb := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	return &program.Proc{Args: args, Env: []string{"PATH=/usr/bin:/bin", "HOME=/root", "GREETING=hello"},
		Dir: "/", Stdin: strings.NewReader(stdin), Stdout: out, Stderr: errb, Sys: b.sys}, out, errb
}

func (b *box) run(t *testing.T, script string) (string, string, int) {
	t.Helper()
	p, out, errb := b.proc("", "sh", "-c", script)
	code := Main(context.Background(), p)
	return out.String(), errb.String(), code
}

var scriptCases = []struct {
	name, script, out, errText string
	code                       int
}{
	{"echo", "echo hi", "hi\n", "", 0},
	{"env", "echo $GREETING", "hello\n", "", 0},
	{"pipes", "printf 'b\\na\\nc\\n' | sort | head -n 2", "a\nb\n", "", 0},
	{"redirect", "echo one > /tmp/f; echo two >> /tmp/f; cat < /tmp/f; wc -l /tmp/f", "one\ntwo\n2 /tmp/f\n", "", 0},
	{"stderr", "ls /nosuch 2>&1 | grep -c nosuch", "1\n", "", 0},
	{"devnull", "echo gone > /dev/null; cat /dev/null; echo ok", "ok\n", "", 0},
	{"dev-stderr", "echo err > /dev/stderr", "", "err\n", 0},
	{"glob", "touch /tmp/a.txt /tmp/b.txt /tmp/c.log; echo /tmp/*.txt", "/tmp/a.txt /tmp/b.txt\n", "", 0},
	{"cd", "mkdir -p /w/x && cd /w/x && pwd && echo $PWD && touch rel && ls /w/x", "/w/x\n/w/x\nrel\n", "", 0},
	{"cd-missing", "cd /nope; echo $?", "2\n", "sh: cd: can't cd to /nope: No such file or directory\n", 0},
	{"test-f", "touch /tmp/t; [ -f /tmp/t ] && echo yes; test -d /tmp/t || echo no", "yes\nno\n", "", 0},
	{"missing", "nosuch arg", "", "sh: nosuch: not found\n", 127},
	{"missing-path", "/bin/nosuch", "", "sh: /bin/nosuch: not found\n", 127},
	{"dir-exec", "/tmp", "", "sh: /tmp: Permission denied\n", 126},
	{"syntax", "if true; then echo x; fi fi", "", "sh: syntax error: unexpected \"fi\"\n", 2},
	{"syntax-eof", "if true; then echo x", "", "sh: syntax error: unexpected end of file", 2},
	{"exit", "echo a; exit 7; echo b", "a\n", "", 7},
	{"status", "false; echo $?; sh -c 'exit 3'; echo $?", "1\n3\n", "", 0},
	{"set-e", "set -e; false; echo no", "", "", 1},
	{"pipefail", "set -o pipefail; false | true; echo $?", "1\n", "", 0},
	{"control", "for i in 1 2 3; do if [ $i = 2 ]; then continue; fi; echo $i; done; case x in x) echo X;; esac; n=0; while [ $n -lt 3 ]; do n=$((n+1)); done; echo $n", "1\n3\nX\n3\n", "", 0},
	{"func", "f() { echo \"f:$1\"; return 4; }; f a; echo $?", "f:a\n4\n", "", 0},
	{"subst", "x=$(echo inner | tr a-z A-Z); echo \"[$x]\"", "[INNER]\n", "", 0},
	{"heredoc", "cat <<EOF\nline $GREETING\nEOF", "line hello\n", "", 0},
	{"read", "printf 'a b\\n' > /tmp/r; read x y < /tmp/r; echo $y$x", "ba\n", "", 0},
	{"exit-trap", "trap 'echo bye' EXIT; echo hi", "hi\nbye\n", "", 0},
	{"term-trap-set", "trap 'echo t' TERM; trap", "trap -- 'echo t' TERM\n", "", 0},
	{"pid", "echo $$ $PPID", "1 0\n", "", 0},
	{"uid", "echo $UID", "0\n", "", 0},
	{"command-v", "command -v cat; command -v cd; command -v nosuch || echo none", "/bin/cat\ncd\nnone\n", "", 0},
	{"type", "type echo", "echo is a shell builtin\n", "", 0},
	{"kill", "kill -0 1 && echo alive", "alive\n", "", 0},
	{"umask", "umask; umask 077; umask", "0022\n0077\n", "", 0},
	{"exec", "exec echo replaced; echo never", "replaced\n", "", 0},
	{"eval", "eval 'echo $GREETING'", "hello\n", "", 0},
	{"background", "echo bg > /tmp/bg & wait; cat /tmp/bg", "bg\n", "", 0},
	{"script-file", "printf 'echo from-script $1\\n' > /tmp/s.sh; chmod +x /tmp/s.sh; /tmp/s.sh arg; sh /tmp/s.sh two", "from-script arg\nfrom-script two\n", "", 0},
	{"shebang", "printf '#!/bin/sh\\necho sb\\n' > /tmp/x; chmod 755 /tmp/x; /tmp/x", "sb\n", "", 0},
	{"noexec", "echo x > /tmp/ne; /tmp/ne", "", "sh: /tmp/ne: Permission denied\n", 126},
	{"source", "echo 'V=sourced' > /tmp/lib; . /tmp/lib; echo $V", "sourced\n", "", 0},
	{"redirect-ro", "echo x > /nodir/f", "", "sh: can't create /nodir/f: nonexistent directory\n", 1},
	{"redirect-in", "cat < /nosuch", "", "sh: can't open '/nosuch': No such file or directory\n", 1},
	{"yes-head", "yes | head -n 2", "y\ny\n", "", 0},
	{"procsubst", "cat <(echo x)", "", "syntax error", 2},
	{"tilde", "echo ~ ~root", "/root /root\n", "", 0},
	{"arith", "echo $((6*7))", "42\n", "", 0},
	{"exec-redirect", "exec > /tmp/o; echo x; cat /tmp/o > /dev/stderr", "", "x\n", 0},
	{"while-read", "printf '1\\n2\\n' | while read l; do echo L$l; done", "L1\nL2\n", "", 0},
	{"trap-bad", "trap 'x' NOSIG", "", "sh: trap: NOSIG: bad trap\n", 1},
}

func TestScripts(t *testing.T) { runScripts(t, newBox) }

func runScripts(t *testing.T, newBox func() *box) {
	for _, c := range scriptCases {
		t.Run(c.name, func(t *testing.T) {
			b := newBox()
			out, errs, code := b.run(t, c.script)
			if out != c.out || code != c.code || !strings.Contains(errs, c.errText) || (c.errText == "" && errs != "") {
				t.Errorf("got (%q, %q, %d), want (%q, %q, %d)", out, errs, code, c.out, c.errText, c.code)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	b := newBox()
	p, out, _ := b.proc("", "sh", "-c", "echo $0 $1 $#", "a", "b")
	if code := Main(context.Background(), p); code != 0 || out.String() != "a b 1\n" {
		t.Fatalf("got %q %d", out.String(), code)
	}
	p, out, _ = b.proc("", "sh", "-ec", "false; echo no")
	if code := Main(context.Background(), p); code != 1 || out.String() != "" {
		t.Fatalf("-ec: got %q %d", out.String(), code)
	}
	p, _, errb := b.proc("", "sh", "-x", "-c", "echo traced")
	Main(context.Background(), p)
	if !strings.Contains(errb.String(), "+ echo traced") {
		t.Fatalf("-x: stderr %q", errb.String())
	}
	p, out, _ = b.proc("", "bash", "-l", "-c", "echo login")
	if code := Main(context.Background(), p); code != 0 || out.String() != "login\n" {
		t.Fatalf("-l: got %q %d", out.String(), code)
	}
	p, out, _ = b.proc("", "sh")
	if code := Run(context.Background(), p, "echo run; exit 5"); code != 5 || out.String() != "run\n" {
		t.Fatalf("Run: got %q %d", out.String(), code)
	}
}

func TestStdin(t *testing.T) {
	b := newBox()
	p, out, _ := b.proc("echo one\nx=2\necho $x\nexit 4\necho never\n", "sh")
	if code := Main(context.Background(), p); code != 4 || out.String() != "one\n2\n" {
		t.Fatalf("got %q %d", out.String(), code)
	}
	p, out, _ = b.proc("echo hi\n", "sh")
	p.TTY = true
	Main(context.Background(), p)
	if out.String() != "/ # hi\n/ # " {
		t.Fatalf("tty: got %q", out.String())
	}
	p, out, errb := b.proc("fi\necho still\n", "sh")
	p.TTY = true
	Main(context.Background(), p)
	if out.String() != "/ # / # still\n/ # " || errb.String() != "sh: syntax error: unexpected \"fi\"\n" {
		t.Fatalf("tty syntax error: got %q %q", out.String(), errb.String())
	}
}

// TestStopLoop: `while true; do sleep 1; done` waits on the container clock
// and ends within one fake-clock step of ctx being done.
func TestStopLoop(t *testing.T) {
	for _, script := range []string{
		"while true; do sleep 1; done",
		"trap 'echo term; exit 0' TERM; while true; do sleep 1; done",
	} {
		b := newBox()
		p, out, _ := b.proc("", "sh", "-c", script)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int)
		go func() { done <- Main(ctx, p) }()
		for i := 0; i < 3; i++ {
			waitWaiters(t, b)
			b.clock.Step(time.Second)
		}
		waitWaiters(t, b)
		cancel()
		select {
		case code := <-done:
			if strings.Contains(script, "trap") && (code != 0 || out.String() != "term\n") {
				t.Errorf("trap: got %q %d", out.String(), code)
			}
			if !strings.Contains(script, "trap") && code != 143 {
				t.Errorf("no trap: got %d, want 143", code)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%q did not stop", script)
		}
	}
}

func waitWaiters(t *testing.T, b *box) {
	t.Helper()
	for i := 0; !b.clock.HasWaiters(); i++ {
		if i > 2000 {
			t.Fatal("nothing waits on the clock")
		}
		time.Sleep(time.Millisecond)
	}
}

func BenchmarkEcho(b *testing.B) {
	bx := newBox()
	for i := 0; i < b.N; i++ {
		p, _, _ := bx.proc("", "sh", "-c", "echo hi")
		if Main(context.Background(), p) != 0 {
			b.Fatal("echo failed")
		}
	}
}

// TestNoGoroutineLeft: pipelines, redirections, here-documents, background
// jobs and a stopped loop leave no goroutine behind.
func TestNoGoroutineLeft(t *testing.T) {
	b := newBox()
	b.run(t, "true") // warm up lazily started runtime goroutines
	before := runtime.NumGoroutine()
	for _, s := range []string{
		"yes | head -n 3 | cat",
		"echo a > /tmp/f; cat < /tmp/f; cat <<EOF\nx\nEOF",
		"seq 100000 > /tmp/big; head -n 1 < /tmp/big",
		"sleep 1 & echo started",
		"echo $(cat /tmp/f)",
	} {
		b.run(t, s)
	}
	p, _, _ := b.proc("echo from-stdin\n", "sh")
	Main(context.Background(), p)
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines left (before %d):\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestStopBlockedRead: a program blocked reading the shell's stdin returns
// when ctx is done.
func TestStopBlockedRead(t *testing.T) {
	b := newBox()
	r, w := io.Pipe()
	defer w.Close()
	p, out, _ := b.proc("", "sh", "-c", "cat; echo after")
	p.Stdin = r
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- Main(ctx, p) }()
	w.Write([]byte("typed\n"))
	for i := 0; out.String() != "typed\n"; i++ {
		if i > 2000 {
			t.Fatalf("cat did not copy: %q", out.String())
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("shell did not stop")
	}
	if out.String() != "typed\n" {
		t.Fatalf("got %q", out.String())
	}
}
