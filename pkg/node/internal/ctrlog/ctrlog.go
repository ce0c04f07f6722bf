// Package ctrlog is the log of one container run: what its process printed
// on stdout and stderr, a line at a time with the time it was printed, as
// the runtime writes a CRI log file. The pod worker writes it; the kubelet
// API reads it for logs and attach; the kubelet's FallbackToLogsOnError
// reads its tail.
package ctrlog

import (
	"context"
	"io"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// maxLog bounds what one container run's log keeps, as the kubelet's
// containerLogMaxSize (10 MiB) bounds a log file before rotation; the
// oldest lines go first. A program that prints without end thus costs a
// bounded amount of memory.
const maxLog = 1 << 20

// Line is one line of an emulated container's log.
type Line struct {
	At   time.Time
	Text string
	// Partial: the process ended without finishing the line (echo -n);
	// the log keeps it without a newline, as the CRI log's "P" tag does.
	Partial bool
}

// Log is the log of one container run. Followers wait on the channel
// Snapshot returns, made when the first of them asks (most logs are never
// followed).
type Log struct {
	clock   clock.PassiveClock
	mu      sync.Mutex
	lines   []Line
	size    int
	partial [2][]byte // an unfinished line per stream
	closed  bool
	changed chan struct{}
	// file is where the runtime also writes each line as a CRI log file
	// on the node (nil: nowhere), for node agents that tail them.
	file Sink
}

// Sink is a container's log file on the node: each line as it is
// logged, with its stream (0 stdout, 1 stderr).
type Sink interface {
	WriteLine(stream int, line Line)
}

// SetFile makes the log write its lines to f too, from now on; it is
// called before the process starts.
func (l *Log) SetFile(f Sink) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.file = f
}

// New is an empty log whose lines are stamped by c.
func New(c clock.PassiveClock) *Log {
	return &Log{clock: c}
}

// Stream is one of the process's output streams.
type Stream struct {
	log *Log
	n   int
}

// Stdout is the writer of the process's standard output.
func (l *Log) Stdout() Stream { return Stream{l, 0} }

// Stderr is the writer of the process's standard error.
func (l *Log) Stderr() Stream { return Stream{l, 1} }

func (s Stream) Write(p []byte) (int, error) {
	s.log.write(s.n, p)
	return len(p), nil
}

// Close does nothing: the run's end closes the log (Log.Close).
func (s Stream) Close() error { return nil }

func (l *Log) write(stream int, p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	buf := append(l.partial[stream], p...)
	for {
		i := indexNewline(buf)
		if i < 0 {
			break
		}
		l.add(stream, Line{At: now, Text: string(buf[:i])})
		buf = buf[i+1:]
	}
	// A line longer than the kubelet's 16 KiB read buffer is split.
	for len(buf) > 16<<10 {
		l.add(stream, Line{At: now, Text: string(buf[:16<<10])})
		buf = buf[16<<10:]
	}
	l.partial[stream] = append([]byte(nil), buf...)
	l.notify()
}

func indexNewline(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

func (l *Log) add(stream int, line Line) {
	if l.file != nil {
		l.file.WriteLine(stream, line)
	}
	l.lines = append(l.lines, line)
	l.size += len(line.Text) + 1
	for l.size > maxLog && len(l.lines) > 1 {
		l.size -= len(l.lines[0].Text) + 1
		l.lines = l.lines[1:]
	}
}

func (l *Log) notify() {
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

// Close ends the run: unfinished lines are written as they are.
func (l *Log) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	for i, p := range l.partial {
		if len(p) > 0 {
			l.add(i, Line{At: l.clock.Now(), Text: string(p), Partial: true})
			l.partial[i] = nil
		}
	}
	l.closed = true
	l.notify()
}

// Snapshot is the log so far, whether the run has ended, and a channel
// closed at the next change.
func (l *Log) Snapshot() ([]Line, bool, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return append([]Line(nil), l.lines...), l.closed, l.changed
}

// Tail is the last n lines and at most max bytes of the log (the
// kubelet's FallbackToLogsOnError takes 80 lines, 2048 bytes).
func (l *Log) Tail(n, max int) string {
	lines, _, _ := l.Snapshot()
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var out []byte
	for _, line := range lines {
		out = append(out, line.Text...)
		if !line.Partial {
			out = append(out, '\n')
		}
	}
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return string(out)
}

// Follow writes the lines the log gains until the run ends or ctx is done
// (an attach session's output).
func Follow(ctx context.Context, l *Log, out io.Writer) error {
	lines, closed, changed := l.Snapshot()
	seen := len(lines)
	for !closed {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		}
		lines, closed, changed = l.Snapshot()
		for _, line := range lines[min(seen, len(lines)):] {
			if _, err := io.WriteString(out, line.Text+"\n"); err != nil {
				return nil
			}
		}
		seen = len(lines)
	}
	return nil
}

// Options are the query parameters of the kubelet's containerLogs call
// that change what is written.
type Options struct {
	Timestamps bool
	TailLines  int // -1: all
	LimitBytes int // 0: no limit
	Since      time.Time
}

// Render applies the options and returns the text to send.
func (o Options) Render(lines []Line) string {
	var kept []Line
	for _, l := range lines {
		if !l.At.Before(o.Since) {
			kept = append(kept, l)
		}
	}
	if o.TailLines >= 0 && len(kept) > o.TailLines {
		kept = kept[len(kept)-o.TailLines:]
	}
	var b strings.Builder
	for _, l := range kept {
		if o.Timestamps {
			b.WriteString(l.At.UTC().Format(time.RFC3339Nano) + " ")
		}
		b.WriteString(l.Text)
		if !l.Partial {
			b.WriteByte('\n')
		}
	}
	out := b.String()
	if o.LimitBytes > 0 && len(out) > o.LimitBytes {
		out = out[:o.LimitBytes]
	}
	return out
}
