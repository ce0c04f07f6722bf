package csi

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/winkube/winkube/pkg/emu/program"
)

// klogger writes klog's text format to stderr, as the CSI programs log:
//
//	I0428 16:44:25.432416       1 main.go:145] "Version" version="v2.17.0"
//
// structured lines (InfoS, logr) quote the message and write key=value
// pairs; printf lines (klog.Infof) write the text as it is. The thread id
// is the pid: each program is its container's first process.
type klogger struct {
	mu    sync.Mutex
	w     io.Writer
	clock program.Clock
	v     int
}

// line writes one line of severity sev ('I', 'W', 'E') from site.
func (l *klogger) line(sev byte, site, text string) {
	t := l.clock.Now().UTC()
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%c%02d%02d %02d:%02d:%02d.%06d %7d %s] %s\n",
		sev, int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000, 1, site, text)
}

// enabled is klog.V(level).Enabled().
func (l *klogger) enabled(level int) bool { return l.v >= level }

// info is logger.V(level).Info(msg, kv...).
func (l *klogger) info(level int, site, msg string, kv ...any) {
	if l.enabled(level) {
		l.line('I', site, structured(msg, nil, kv))
	}
}

// error is logger.Error(err, msg, kv...); err may be nil.
func (l *klogger) error(err error, site, msg string, kv ...any) {
	l.line('E', site, structured(msg, err, kv))
}

// infof is klog.V(level).Infof.
func (l *klogger) infof(level int, site, format string, args ...any) {
	if l.enabled(level) {
		l.line('I', site, strings.TrimSuffix(fmt.Sprintf(format, args...), "\n"))
	}
}

func (l *klogger) warningf(site, format string, args ...any) {
	l.line('W', site, fmt.Sprintf(format, args...))
}

func (l *klogger) errorf(site, format string, args ...any) {
	l.line('E', site, fmt.Sprintf(format, args...))
}

// structured is klog's text serialisation of a structured line: the
// quoted message, err="..." first when there is one, then the pairs.
func structured(msg string, err error, kv []any) string {
	var b strings.Builder
	b.WriteString(strconv.Quote(msg))
	if err != nil {
		b.WriteString(" err=")
		b.WriteString(strconv.Quote(err.Error()))
	}
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, " %v=%s", kv[i], value(kv[i+1]))
	}
	return b.String()
}

func value(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case error:
		return strconv.Quote(x.Error())
	case fmt.Stringer:
		return strconv.Quote(x.String())
	case int, int32, int64, bool:
		return fmt.Sprint(x)
	case map[string]string:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%q:%q", k, x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return strconv.Quote(fmt.Sprintf("%+v", v))
}
