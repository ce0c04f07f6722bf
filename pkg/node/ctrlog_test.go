package node

import (
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// A run's log keeps lines as the process wrote them: a line split across
// writes is one line, an unfinished last line (echo -n) keeps no newline,
// the tail FallbackToLogsOnError reads is bounded, and an endless output
// costs at most maxRunLog.
func TestRunLog(t *testing.T) {
	l := newRunLog(clocktesting.NewFakeClock(time.Unix(0, 0)))
	out, errs := l.stdout(), l.stderr()
	_, _ = out.Write([]byte("hel"))
	_, _ = errs.Write([]byte("oops\n"))
	_, _ = out.Write([]byte("lo\nDONE"))
	l.close()
	if got := (logOptions{tailLines: -1}).render(mustLines(l)); got != "oops\nhello\nDONE" {
		t.Errorf("log %q", got)
	}
	if got := l.tail(fallbackLogLines, fallbackLogBytes); got != "oops\nhello\nDONE" {
		t.Errorf("tail %q", got)
	}
	big := newRunLog(clocktesting.NewFakeClock(time.Unix(0, 0)))
	line := strings.Repeat("x", 1023) + "\n"
	for range 4096 {
		_, _ = big.stdout().Write([]byte(line))
	}
	if lines := mustLines(big); len(lines)*1024 > maxRunLog || len(lines) < maxRunLog/1024-1 {
		t.Errorf("%d lines kept of 4096, want about %d", len(lines), maxRunLog/1024)
	}
	if got := big.tail(fallbackLogLines, fallbackLogBytes); len(got) != fallbackLogBytes {
		t.Errorf("tail of %d bytes, want %d", len(got), fallbackLogBytes)
	}
}

func mustLines(l *runLog) []logLine {
	lines, _, _ := l.snapshot()
	return lines
}
