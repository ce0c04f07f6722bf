package supervise

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChild is the background process of the tests below when
// SUPERVISE_CHILD says what it should do; otherwise it does nothing.
func TestChild(t *testing.T) {
	switch os.Getenv("SUPERVISE_CHILD") {
	case "ready":
		fmt.Println("starting")
		fmt.Println("summary line")
		if err := Ready(ReadyFD); err != nil {
			os.Exit(9)
		}
		fmt.Println("after ready") // the parent may or may not show it
		time.Sleep(time.Minute)
		os.Exit(0)
	case "fail":
		fmt.Println("starting")
		fmt.Fprintln(os.Stderr, "winkube: something is wrong")
		os.Exit(3)
	case "slow":
		fmt.Println("starting")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
}

func start(t *testing.T, mode string) (int, string, error) {
	t.Helper()
	t.Setenv("SUPERVISE_CHILD", mode)
	log := filepath.Join(t.TempDir(), "winkube.log")
	os.WriteFile(log, []byte("a line of an earlier run\n"), 0o644)
	var out strings.Builder
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if mode == "slow" {
		time.AfterFunc(time.Second, cancel)
	}
	pid, err := Start(ctx, Options{Args: []string{"-test.run=^TestChild$"}, Log: log, Out: &out})
	return pid, out.String(), err
}

func TestStartReady(t *testing.T) {
	pid, out, err := start(t, "ready")
	if err != nil {
		t.Fatal(err)
	}
	if pid <= 1 {
		t.Fatalf("Start returned PID %d", pid) // never hand kill(2) 0 or -1
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if !strings.Contains(out, "starting\nsummary line\n") || strings.Contains(out, "earlier run") {
		t.Errorf("shown log:\n%s", out)
	}
	// The child runs in a session of its own, away from our terminal.
	if sid := sessionOf(t, pid); sid != pid {
		t.Errorf("child session %d, want its own (%d)", sid, pid)
	}
}

func TestStartFailure(t *testing.T) {
	_, out, err := start(t, "fail")
	var failed *FailedError
	if !errors.As(err, &failed) || failed.Code != 3 || !strings.Contains(failed.Tail, "winkube: something is wrong") {
		t.Fatalf("want a FailedError with the log's last lines, got %v", err)
	}
	if !strings.Contains(out, "starting") {
		t.Errorf("shown log:\n%s", out)
	}
}

func TestStartInterrupted(t *testing.T) {
	began := time.Now()
	_, _, err := start(t, "slow")
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("want an interruption, got %v", err)
	}
	if time.Since(began) > 20*time.Second {
		t.Error("the interrupted child was not stopped promptly")
	}
}

// sessionOf reads a process's session ID from /proc/<pid>/stat.
func sessionOf(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state ppid pgrp session ...
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	var sid int
	fmt.Sscan(fields[3], &sid)
	return sid
}
