package vfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testClock is a clock tests set by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *testClock {
	return &testClock{now: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) step(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func writeFile(t testing.TB, f *FS, name, data string) {
	t.Helper()
	if err := tryWrite(f, name, data); err != nil {
		t.Fatal(err)
	}
}

func tryWrite(f *FS, name, data string) error {
	w, err := f.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

func readFile(t testing.TB, f *FS, name string) string {
	t.Helper()
	s, err := tryRead(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func tryRead(f *FS, name string) (string, error) {
	r, err := f.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	return string(b), err
}

// errno is the syscall error inside err (0 for nil), failing the test
// when err is not a *fs.PathError or *os.LinkError.
func errno(t testing.TB, err error) syscall.Errno {
	t.Helper()
	if err == nil {
		return 0
	}
	var pe *fs.PathError
	var le *os.LinkError
	if !errors.As(err, &pe) && !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is not a PathError or LinkError", err, err)
	}
	var e syscall.Errno
	if !errors.As(err, &e) {
		t.Fatalf("error %v does not wrap an errno", err)
	}
	return e
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
