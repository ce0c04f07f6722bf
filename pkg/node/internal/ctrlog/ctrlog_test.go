package ctrlog

import (
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// The tail the kubelet's FallbackToLogsOnError reads: 80 lines, 2048 bytes.
const fallbackLines, fallbackBytes = 80, 2048

// A run's log keeps lines as the process wrote them: a line split across
// writes is one line, an unfinished last line (echo -n) keeps no newline,
// the tail FallbackToLogsOnError reads is bounded, and an endless output
// costs at most maxLog.
func TestLog(t *testing.T) {
	l := New(clocktesting.NewFakeClock(time.Unix(0, 0)))
	out, errs := l.Stdout(), l.Stderr()
	_, _ = out.Write([]byte("hel"))
	_, _ = errs.Write([]byte("oops\n"))
	_, _ = out.Write([]byte("lo\nDONE"))
	l.Close()
	if got := (Options{TailLines: -1}).Render(mustLines(l)); got != "oops\nhello\nDONE" {
		t.Errorf("log %q", got)
	}
	if got := l.Tail(fallbackLines, fallbackBytes); got != "oops\nhello\nDONE" {
		t.Errorf("tail %q", got)
	}
	big := New(clocktesting.NewFakeClock(time.Unix(0, 0)))
	line := strings.Repeat("x", 1023) + "\n"
	for range 4096 {
		_, _ = big.Stdout().Write([]byte(line))
	}
	if lines := mustLines(big); len(lines)*1024 > maxLog || len(lines) < maxLog/1024-1 {
		t.Errorf("%d lines kept of 4096, want about %d", len(lines), maxLog/1024)
	}
	if got := big.Tail(fallbackLines, fallbackBytes); len(got) != fallbackBytes {
		t.Errorf("tail of %d bytes, want %d", len(got), fallbackBytes)
	}
}

func mustLines(l *Log) []Line {
	lines, _, _ := l.Snapshot()
	return lines
}

func TestRenderOptions(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	t1 := t0.Add(3 * time.Second)
	lines := []Line{{At: t0, Text: "one"}, {At: t0, Text: "two"}, {At: t1, Text: "three"}}
	tests := []struct {
		opts Options
		want string
	}{
		{Options{TailLines: -1}, "one\ntwo\nthree\n"},
		{Options{TailLines: 1}, "three\n"},
		{Options{TailLines: 0}, ""},
		{Options{TailLines: -1, LimitBytes: 5}, "one\nt"},
		{Options{TailLines: -1, Since: t1}, "three\n"},
		{Options{TailLines: 1, Timestamps: true}, "2026-11-22T12:00:03Z three\n"},
	}
	for _, tt := range tests {
		if got := tt.opts.Render(lines); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.opts, got, tt.want)
		}
	}
}
