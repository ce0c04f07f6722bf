package node

import (
	"sync"

	"k8s.io/utils/clock"
)

// maxRunLog bounds what one container run's log keeps, as the kubelet's
// containerLogMaxSize (10 MiB) bounds a log file before rotation; the
// oldest lines go first. A program that prints without end thus costs a
// bounded amount of memory.
const maxRunLog = 1 << 20

// runLog is the log of one container run: what its process printed on
// stdout and stderr, a line at a time with the time it was printed, as the
// runtime writes a CRI log file. Followers wait on changed, made when
// the first of them asks (most logs are never followed).
type runLog struct {
	clock   clock.PassiveClock
	mu      sync.Mutex
	lines   []logLine
	size    int
	partial [2][]byte // an unfinished line per stream
	closed  bool
	changed chan struct{}
}

func newRunLog(c clock.PassiveClock) *runLog {
	return &runLog{clock: c}
}

// stream is one of the process's output streams.
type logStream struct {
	log *runLog
	n   int
}

func (l *runLog) stdout() logStream { return logStream{l, 0} }
func (l *runLog) stderr() logStream { return logStream{l, 1} }

func (s logStream) Write(p []byte) (int, error) {
	s.log.write(s.n, p)
	return len(p), nil
}

func (s logStream) Close() error { return nil }

func (l *runLog) write(stream int, p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	buf := append(l.partial[stream], p...)
	for {
		i := indexNewline(buf)
		if i < 0 {
			break
		}
		l.add(logLine{at: now, text: string(buf[:i])})
		buf = buf[i+1:]
	}
	// A line longer than the kubelet's 16 KiB read buffer is split.
	for len(buf) > 16<<10 {
		l.add(logLine{at: now, text: string(buf[:16<<10])})
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

func (l *runLog) add(line logLine) {
	l.lines = append(l.lines, line)
	l.size += len(line.text) + 1
	for l.size > maxRunLog && len(l.lines) > 1 {
		l.size -= len(l.lines[0].text) + 1
		l.lines = l.lines[1:]
	}
}

func (l *runLog) notify() {
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

// close ends the run: unfinished lines are written as they are.
func (l *runLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	for i, p := range l.partial {
		if len(p) > 0 {
			l.add(logLine{at: l.clock.Now(), text: string(p), partial: true})
			l.partial[i] = nil
		}
	}
	l.closed = true
	l.notify()
}

// snapshot is the log so far, whether the run has ended, and a channel
// closed at the next change.
func (l *runLog) snapshot() ([]logLine, bool, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return append([]logLine(nil), l.lines...), l.closed, l.changed
}

// tail is the last n lines and at most max bytes of the log (the
// kubelet's FallbackToLogsOnError takes 80 lines, 2048 bytes).
func (l *runLog) tail(n, max int) string {
	lines, _, _ := l.snapshot()
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var out []byte
	for _, line := range lines {
		out = append(out, line.text...)
		if !line.partial {
			out = append(out, '\n')
		}
	}
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return string(out)
}
