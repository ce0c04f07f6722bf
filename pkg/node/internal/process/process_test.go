package process

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	utilexec "k8s.io/utils/exec"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/userland"
	"github.com/winkube/winkube/pkg/emu/vfs"
)

// hangGuard bounds every wait of these tests; nothing here is timed.
const hangGuard = 30 * time.Second

// busyboxSys is the OS of a container of a Linux busybox image: the
// image's real userland on an empty filesystem.
func busyboxSys() *program.Sys {
	return &program.Sys{
		Clock: clock.RealClock{}, FS: vfs.New(vfs.Options{}),
		Programs: userland.Of("docker.io/library/busybox:1.36", false),
	}
}

// start starts argv in a busybox container and returns the process and
// a channel closed when its program has returned.
func start(t *testing.T, sys *program.Sys, argv ...string) (*Process, chan struct{}) {
	t.Helper()
	ended := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	p, err := Start(Config{Ctx: ctx, Clock: clock.RealClock{}, Ended: func() { close(ended) }, Dropped: func() {}}, sys, Spec{Argv: argv})
	if err != nil {
		t.Fatalf("Start %q: %v", argv, err)
	}
	return p, ended
}

func waitEnded(t *testing.T, ended chan struct{}) {
	t.Helper()
	select {
	case <-ended:
	case <-time.After(hangGuard):
		t.Fatal("the program never ended")
	}
}

// A container's program runs against its OS: what it prints is in the
// run's log, and its exit status is the process's.
func TestStartRunsTheImagesProgram(t *testing.T) {
	p, ended := start(t, busyboxSys(), "sh", "-c", "echo hello from the container; exit 3")
	waitEnded(t, ended)
	code, at, done := p.Exited()
	if !done || code != 3 || at.IsZero() {
		t.Errorf("Exited = %d, %v, %v; want 3, a time, true", code, at, done)
	}
	if tail := p.Log.Tail(10, 1024); !strings.Contains(tail, "hello from the container") {
		t.Errorf("log %q", tail)
	}
}

// A program the image does not have is the start's error, which the
// pod worker reports in the runtime's words.
func TestStartUnknownProgram(t *testing.T) {
	_, err := Start(Config{Ctx: context.Background(), Clock: clock.RealClock{}}, busyboxSys(), Spec{Argv: []string{"no-such-program"}})
	if !errors.Is(err, program.ErrNotFound) {
		t.Errorf("Start of a missing program: %v, want %v", err, program.ErrNotFound)
	}
}

// Kill ends a process at once, with the time it was killed; its program
// returns on its own goroutine once its context ends.
func TestKillEndsARunningProgram(t *testing.T) {
	p, ended := start(t, busyboxSys(), "sleep", "3600")
	if _, _, done := p.Exited(); done {
		t.Fatal("a sleeping program counted as exited")
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p.Kill(at)
	if _, ended, done := p.Exited(); !done || !ended.Equal(at) {
		t.Errorf("after Kill: ended %v done %v, want %v true", ended, done, at)
	}
	waitEnded(t, ended)
}

// An idle process (a container whose program the emulation does not
// run) waits to be stopped and then ends with status 0, as pause does.
func TestIdleEndsWhenStopped(t *testing.T) {
	p := Idle(clock.RealClock{})
	if _, _, done := p.Exited(); done {
		t.Fatal("an idle process counted as exited")
	}
	p.Stop(time.Now())
	if code, _, done := p.Exited(); !done || code != 0 {
		t.Errorf("after Stop: %d %v, want 0 true", code, done)
	}
}

// exec runs beside the main process: its exit code is the session's
// error, and a program the image lacks is refused in the runtime's
// words (runc under containerd, HCS on Windows).
func TestExecErrors(t *testing.T) {
	live := &Live{ID: "0123abcd", Sys: busyboxSys(), Proc: Idle(clock.RealClock{})}
	ctx := context.Background()
	err := live.Exec(ctx, []string{"sh", "-c", "exit 2"}, nil, nil, nil, nil, false)
	var exit utilexec.CodeExitError
	if !errors.As(err, &exit) || exit.Code != 2 || err.Error() != "command terminated with exit code 2" {
		t.Errorf("exit 2: %v", err)
	}
	err = live.Exec(ctx, []string{"nosuch"}, nil, nil, nil, nil, false)
	if err == nil || !strings.Contains(err.Error(), `exec: "nosuch": executable file not found in $PATH`) {
		t.Errorf("missing program on Linux: %v", err)
	}
	err = live.Exec(ctx, []string{"nosuch"}, nil, nil, nil, nil, true)
	if err == nil || !strings.Contains(err.Error(), "hcs::System::CreateProcess 0123abcd: The system cannot find the file specified.") {
		t.Errorf("missing program on Windows: %v", err)
	}
	if err := live.Exec(ctx, nil, nil, nil, nil, nil, false); err == nil || err.Error() != "command is required" {
		t.Errorf("no command: %v", err)
	}
}

// The termination message is the file at terminationMessagePath; with
// FallbackToLogsOnError a failed run without one shows its log's tail.
func TestTerminationMessage(t *testing.T) {
	sys := busyboxSys()
	p, ended := start(t, sys, "sh", "-c", "echo last words; exit 1")
	waitEnded(t, ended)
	live := &Live{ID: "c1", Sys: sys, Proc: p}
	spec := &corev1.Container{TerminationMessagePath: "/termination-log", TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError}
	if got := live.TerminationMessage(spec, 1); !strings.Contains(got, "last words") {
		t.Errorf("fallback to logs: %q", got)
	}
	if got := live.TerminationMessage(spec, 0); got != "" {
		t.Errorf("a run that succeeded falls back to its log: %q", got)
	}
	if out, code, err := live.Run(context.Background(), []string{"sh", "-c", "echo -n done > /termination-log"}, hangGuard); err != nil || code != 0 {
		t.Fatalf("writing the message: %q, %d, %v", out, code, err)
	}
	if got := live.TerminationMessage(spec, 1); got != "done" {
		t.Errorf("message file: %q, want %q", got, "done")
	}
}

// A hook or exec probe that outlives its timeout is reported as timed
// out, with the output it gave.
func TestRunTimesOut(t *testing.T) {
	live := &Live{ID: "c1", Sys: busyboxSys(), Proc: Idle(clock.RealClock{})}
	_, _, err := live.Run(context.Background(), []string{"sleep", "3600"}, 50*time.Millisecond)
	if err == nil || err.Error() != `command "sleep 3600" timed out` {
		t.Errorf("Run past its timeout: %v", err)
	}
	out, code, err := live.Run(context.Background(), []string{"sh", "-c", "echo hi; exit 4"}, hangGuard)
	if err != nil || code != 4 || out != "hi\n" {
		t.Errorf("Run = %q, %d, %v", out, code, err)
	}
}
