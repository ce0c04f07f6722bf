package controlplane

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// child is one upstream component running as a child process.
type child struct {
	name    string
	logPath string
	grace   time.Duration // between SIGTERM and SIGKILL
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process is reaped
	waitErr error         // valid after exited is closed
}

// startChild runs "<exe> component <name> <args...>" with its output in
// logPath, which a first start truncates and a restart appends to (the
// crashed run's last lines are what a user needs).
func startChild(exe, name string, args, env []string, logPath string, grace time.Duration, restart bool) (*child, error) {
	mode := os.O_TRUNC
	if restart {
		mode = os.O_APPEND
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|mode, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	cmd := exec.Command(exe, append([]string{"component", name}, args...)...)
	// argv[0] is the component's name: client-go names a client's user
	// agent, and so its server-side field manager, after it, and the
	// controllers' objects (Endpoints, say) must show kube-controller-manager
	// as on any cluster, not "winkube" as if winkube wrote them.
	cmd.Args[0] = name
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Own process group: a terminal's Ctrl-C reaches only the parent, which
		// then stops the components in order; and stop can signal the group.
		Setpgid: true,
		// Die with the parent, even when it is SIGKILLed and cannot clean up.
		Pdeathsig: syscall.SIGKILL,
	}
	// The kernel sends Pdeathsig when the *thread* that forked the child exits,
	// not the process. Pin the fork to this thread; the Go runtime never retires
	// a thread that is not locked, so after Unlock it lives as long as we do.
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, logPath: logPath, grace: grace, cmd: cmd, exited: make(chan struct{})}
	go func() {
		c.waitErr = cmd.Wait()
		logFile.Close()
		close(c.exited)
	}()
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// stop sends SIGTERM to the child's process group, then SIGKILL if it has not
// exited within its grace period or before the deadline, and waits until it
// is reaped.
func (c *child) stop(deadline time.Time) {
	if c.signal(syscall.SIGTERM) {
		select {
		case <-c.exited:
			return
		case <-time.After(min(c.grace, time.Until(deadline))):
		}
	}
	c.signal(syscall.SIGKILL)
	<-c.exited
}

// signal reports whether the process was still there to receive sig.
func (c *child) signal(sig syscall.Signal) bool {
	select {
	case <-c.exited:
		return false // reaped: its PID may already belong to someone else
	default:
		return syscall.Kill(-c.pid(), sig) == nil
	}
}

// exitError describes an unexpected exit with the end of the child's log,
// where upstream components print why they gave up.
func (c *child) exitError() error {
	return fmt.Errorf("%s exited: %v; last lines of %s:\n%s", c.name, c.waitErr, c.logPath, tail(c.logPath, 15))
}

// tail returns the last n lines of a file, indented for nesting in an error.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "  (" + err.Error() + ")"
	}
	defer f.Close()
	const window = 16 << 10 // plenty for n lines of klog output
	if st, err := f.Stat(); err == nil && st.Size() > window {
		_, _ = f.Seek(-window, io.SeekEnd)
	}
	data, _ := io.ReadAll(f)
	lines := strings.Split(string(bytes.TrimRight(data, "\n")), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
