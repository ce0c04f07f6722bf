package cluster

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progressEvery is how many objects apart the progress lines are when the
// output is not a terminal (a log file, a pipe, a CI log).
const progressEvery = 1000

// progressRedraw is how often a terminal's progress line is redrawn.
const progressRedraw = 100 * time.Millisecond

// progress is the one line `up --apply` keeps up to date while it applies:
// redrawn in place on a terminal, else printed every progressEvery objects.
type progress struct {
	out   io.Writer
	total int
	tty   bool
	mu    sync.Mutex
	done  int
	drawn time.Time
}

func newProgress(out io.Writer, total int) *progress {
	return &progress{out: out, total: total, tty: isTerminal(out)}
}

func isTerminal(w io.Writer) bool {
	if l, ok := w.(*lockedWriter); ok {
		w = l.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// add counts n more objects done.
func (p *progress) add(n int) {
	if p == nil || p.out == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	before := p.done
	p.done += n
	switch {
	case p.tty:
		if now := time.Now(); now.Sub(p.drawn) >= progressRedraw || p.done == p.total {
			p.drawn = now
			fmt.Fprintf(p.out, "\r   applying: %d/%d objects", p.done, p.total)
		}
	case p.done/progressEvery > before/progressEvery && p.done < p.total:
		fmt.Fprintf(p.out, "   applying: %d/%d objects\n", p.done, p.total)
	}
}

// finish clears a terminal's progress line so the summary takes its place.
func (p *progress) finish() {
	if p == nil || p.out == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.drawn.IsZero() {
		fmt.Fprint(p.out, "\r\033[K")
	}
}
