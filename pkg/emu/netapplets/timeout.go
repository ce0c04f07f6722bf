package netapplets

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// timeoutOptions is busybox timeout's table; '+' stops at PROG.
var timeoutOptions = Options{InOrder: true, List: []Option{
	{Short: 's', Arg: "SIG", Help: "Signal to send (default TERM)"},
	// PROG has no signal handlers in the emulation: SIG always ends it,
	// so the KILL that -k schedules never has anything left to end.
	{Short: 'k', Arg: "KILL_SECS", Help: "Send KILL if PROG is still there KILL_SECS after SIG", Inert: true},
}}

// signals are the Linux signal numbers get_signum knows by name.
var signals = map[string]int{"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7,
	"FPE": 8, "KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15}

// Timeout is busybox's timeout: it runs PROG and ends it with SIG after
// SECS; its status is then PROG's death by that signal (128+SIG), as the
// shell sees the process busybox turned into PROG.
func Timeout(ctx context.Context, p *program.Proc) int {
	o, err := timeoutOptions.Parse(p.Args[1:])
	if err != nil {
		bbOptionError(p, err)
		return 1
	}
	if len(o.Args) < 2 {
		busyboxUsage(p, "[-s SIG] [-k KILL_SECS] SECS PROG ARGS", "Run PROG. Send SIG to it if it is not gone in SECS seconds.\nDefault SIG: TERM.\nIf it still exists in KILL_SECS seconds, send KILL.", Options{})
		return 1
	}
	sig := 15
	if name, ok := o.Value("s"); ok {
		if sig, ok = signum(name); !ok {
			fmt.Fprintf(p.Stderr, "timeout: unknown signal '%s'\n", name)
			return 1
		}
	}
	d, ok := duration(o.Args[0])
	if !ok {
		fmt.Fprintf(p.Stderr, "timeout: invalid number '%s'\n", o.Args[0])
		return 1
	}
	cctx, cancel := ClockTimeout(ctx, p, d)
	defer cancel()
	q := *p
	q.Args = o.Args[1:]
	code, err := p.Sys.Exec(cctx, &q)
	if err != nil {
		fmt.Fprintf(p.Stderr, "timeout: can't execute '%s': No such file or directory\n", q.Args[0])
		return 127
	}
	if cctx.Err() != nil && ctx.Err() == nil {
		return 128 + sig
	}
	return code
}

// signum reads a signal as a number or a name, with or without SIG.
func signum(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < 65 {
		return n, true
	}
	n, ok := signals[strings.TrimPrefix(strings.ToUpper(s), "SIG")]
	return n, ok
}

// duration is parse_duration_str: a decimal number with an optional
// s, m, h or d suffix.
func duration(s string) (time.Duration, bool) {
	unit := time.Second
	switch {
	case strings.HasSuffix(s, "s"):
		s = strings.TrimSuffix(s, "s")
	case strings.HasSuffix(s, "m"):
		s, unit = strings.TrimSuffix(s, "m"), time.Minute
	case strings.HasSuffix(s, "h"):
		s, unit = strings.TrimSuffix(s, "h"), time.Hour
	case strings.HasSuffix(s, "d"):
		s, unit = strings.TrimSuffix(s, "d"), 24*time.Hour
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || strings.ContainsAny(s, "eEnN+-") {
		return 0, false
	}
	return time.Duration(f * float64(unit)), true
}
