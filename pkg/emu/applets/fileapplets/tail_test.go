package fileapplets

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// lockedBuf is stdout shared with a running tail.
type lockedBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// follow starts tail -f on files and returns its output and a stop.
func (e *env) follow(t *testing.T, args ...string) (*lockedBuf, func() int) {
	t.Helper()
	out := &lockedBuf{}
	ctx, cancel := context.WithCancel(context.Background())
	p := &program.Proc{Args: append([]string{"tail"}, args...), Dir: "/", Stdin: strings.NewReader(""), Stdout: out, Stderr: io.Discard, Sys: e.Sys}
	done := make(chan int, 1)
	go func() { done <- Tail(ctx, p) }()
	return out, func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(30 * time.Second):
			t.Fatal("tail -f did not stop")
			return -1
		}
	}
}

// poll steps the clock a second once tail waits on it, then waits until
// out has want (hang guards both).
func (e *env) poll(t *testing.T, out *lockedBuf, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !e.Clock.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("tail never waited on the clock")
		}
		time.Sleep(time.Millisecond)
	}
	e.Clock.Step(time.Second)
	for out.String() != want {
		if time.Now().After(deadline) {
			t.Fatalf("tail printed %q, want %q", out.String(), want)
		}
		time.Sleep(time.Millisecond)
	}
}

func (e *env) appendTo(name, s string) {
	f, err := e.FS.Privileged().OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		panic(err)
	}
	f.Write([]byte(s))
	f.Close()
}

// tail -f prints what is appended each second; a file that shrank is
// read again from its start; with several files a header names the one
// that grew, as busybox's tail does.
func TestTailFollowFiles(t *testing.T) {
	e := newEnv()
	e.FS.Put("/a", "a1\n", 0o644)
	e.FS.Put("/b", "b1\n", 0o644)
	out, stop := e.follow(t, "-n", "1", "-f", "/a", "/b")
	want := "==> /a <==\na1\n\n==> /b <==\nb1\n"
	e.poll(t, out, want)
	e.appendTo("/b", "b2\n")
	want += "b2\n"
	e.poll(t, out, want)
	e.appendTo("/a", "a2\n")
	want += "\n==> /a <==\na2\n"
	e.poll(t, out, want)
	e.FS.Put("/a", "new\n", 0o644) // truncated and rewritten
	want += "new\n"
	e.poll(t, out, want)
	if code := stop(); code != 0 {
		t.Errorf("tail -f stopped with %d", code)
	}
}

// tail -f of stdin alone follows nothing: it ends with the input.
func TestTailFollowStdin(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{{Argv: args("tail -f -n 1"), Stdin: "x\ny\n", Out: "y\n"}})
}
