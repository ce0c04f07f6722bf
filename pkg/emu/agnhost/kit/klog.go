package kit

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/winkube/winkube/pkg/emu/program"
)

// goLogSite is where klog says a line of Go's log package comes from:
// agnhost routes log.Printf through klog (component-base's KlogWriter),
// and klog names the log package's own call site.
const goLogSite = "log.go:245"

// Klogger writes klog's text format, as agnhost logs, to stderr:
//
//	I0428 16:44:25.432416       1 log.go:245] Started HTTP server on port 8080
//
// The thread id is the pid; agnhost is a container's first process.
type Klogger struct {
	mu    sync.Mutex
	w     io.Writer
	clock program.Clock
}

// NewKlogger logs to p's stderr.
func NewKlogger(p *program.Proc) *Klogger {
	return &Klogger{w: p.Stderr, clock: p.Sys.Clock}
}

// Line writes one line of severity sev ('I', 'W', 'E', 'F') from site.
func (l *Klogger) Line(sev byte, site, msg string) {
	t := l.clock.Now().UTC()
	msg = strings.TrimSuffix(msg, "\n")
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%c%02d%02d %02d:%02d:%02d.%06d %7d %s] %s\n",
		sev, int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000, 1, site, msg)
}

// Printf is agnhost's log.Printf.
func (l *Klogger) Printf(format string, args ...any) {
	l.Line('I', goLogSite, fmt.Sprintf(format, args...))
}

// Write makes the logger an io.Writer for http.Server's error log.
func (l *Klogger) Write(b []byte) (int, error) {
	l.Line('I', goLogSite, string(b))
	return len(b), nil
}
