package controlplane_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// A component that dies and cannot come back (its serving certificate was
// damaged meanwhile: a real fault, no test hook in the component) is
// restarted five times, said once, then given up on: the control plane
// fails with the component's own last log lines, which `up` prints.
func TestComponentThatCannotComeBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	dir := t.TempDir()
	notices := make(chan string, 10)
	undo := controlplane.QuickRestarts(50 * time.Millisecond)
	cp, cleanup, err := cptest.StartOptions(controlplane.Options{DataDir: dir, Notice: func(l string) { notices <- l }})
	undo()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()

	cert := filepath.Join(dir, "pki", "kube-scheduler-serving.crt")
	if err := os.WriteFile(cert, []byte("not a certificate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(cp.PIDs()["kube-scheduler"], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var failure error
	select {
	case failure = <-cp.Err():
	case <-time.After(90 * time.Second):
		t.Fatal("the control plane did not give up on kube-scheduler within 90s")
	}
	msg := failure.Error()
	t.Logf("error:\n%s", msg)
	for _, want := range []string{
		"kube-scheduler did not come back after 5 restarts",
		"last lines of " + filepath.Join(dir, "logs", "kube-scheduler.log"),
		"tls: failed to find any PEM data in certificate input", // upstream's own words
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q", want)
		}
	}
	close(notices)
	var said []string
	for l := range notices {
		said = append(said, l)
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "kube-scheduler exited (signal: killed); restarting it") {
		t.Errorf("notices %q, want the one restart notice", said)
	}
}

// A data dir on a file system with too little room is refused before
// anything starts, naming the data dir; nothing is left running.
func TestNearlyFullDiskIsRefusedAtStart(t *testing.T) {
	undo := controlplane.LowDiskAt(1<<62, time.Second) // more than any disk has
	defer undo()
	dir := t.TempDir()
	cp, err := controlplane.Start(context.Background(), controlplane.Options{DataDir: dir})
	if err == nil {
		cp.Close()
		t.Fatal("Start succeeded on a full disk")
	}
	var full *controlplane.DiskFullError
	if !errors.As(err, &full) || full.DataDir != dir || full.Running {
		t.Fatalf("want a DiskFullError for %s at start, got %v", dir, err)
	}
	for _, want := range []string{"no space left on device", dir, "choose another --data-dir"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "etcd")); !os.IsNotExist(err) {
		t.Errorf("etcd wrote to the full disk: %v", err)
	}
}
