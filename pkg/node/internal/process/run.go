package process

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
)

// Termination message limits (the kubelet's maxTerminationMessageLength
// and FallbackToLogsOnError's tail).
const (
	maxTerminationMessage = 4096
	fallbackLogLines      = 80
	fallbackLogBytes      = 2048
)

// TerminationMessage is what the kubelet reads back when a container
// ends: the file at terminationMessagePath, or, with
// FallbackToLogsOnError, the tail of the log of a failed run.
// c is the container's spec.
func (live *Live) TerminationMessage(c *corev1.Container, code int32) string {
	if live.Sys == nil {
		return ""
	}
	msg := ""
	// A filesystem no program touched holds no message: reading it
	// would only make it (and request the pod's tokens) for nothing.
	lf, lazy := live.Sys.FS.(*vfs.Lazy)
	if path := c.TerminationMessagePath; path != "" && (!lazy || lf.Built()) {
		msg = readFileLimit(live.Sys.FS, path, maxTerminationMessage)
	}
	if msg == "" && code != 0 && c.TerminationMessagePolicy == corev1.TerminationMessageFallbackToLogsOnError {
		msg = live.Proc.Log.Tail(fallbackLogLines, fallbackLogBytes)
	}
	return msg
}

// readFileLimit reads at most limit bytes of a file of the container.
func readFileLimit(fs program.FS, path string, limit int) string {
	f, err := fs.OpenFile(path, 0, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, limit)
	n, _ := readFull(f, buf)
	return string(buf[:n])
}

func readFull(f program.File, buf []byte) (int, error) {
	total := 0
	for total < len(buf) {
		n, err := f.Read(buf[total:])
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Run runs a command in the running container, as exec probes and hooks
// do, and returns its combined output; runCtx ends when the agent closes.
func (live *Live) Run(runCtx context.Context, cmd []string, timeout time.Duration) (string, int, error) {
	if live.Sys == nil || len(cmd) == 0 {
		return "", 0, nil
	}
	ctx, cancel := context.WithTimeout(runCtx, timeout)
	defer cancel()
	var out limitedBuffer
	p := &program.Proc{Args: cmd, Env: live.Env, Dir: live.Dir, Stdout: &out, Stderr: &out}
	code, err := live.Sys.Exec(ctx, p)
	if err != nil {
		return "", 0, fmt.Errorf("exec: %q: executable file not found in $PATH", cmd[0])
	}
	if ctx.Err() != nil && runCtx.Err() == nil {
		return out.String(), code, fmt.Errorf("command %q timed out", strings.Join(cmd, " "))
	}
	return out.String(), code, nil
}

// limitedBuffer keeps the first 10 KiB of a probe's or hook's output, as
// the kubelet's exec prober reads at most that much.
type limitedBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := 10<<10 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}
