package engine

import (
	"context"
	"errors"

	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// trapFrame is the trap statements of a statement list that runs, and
// the scope depth it runs at: a trap handles the terminating errors of
// its scope, nested blocks and the commands it calls included
// (about_Trap).
type trapFrame struct {
	traps []*lang.TrapStmt
	depth int
}

// rethrow is an error a trap's break passed on, and the scope depth of
// that trap.
type rethrow struct {
	rec   *values.ErrorRecord
	depth int
}

// pushTraps puts a list's trap statements in force while it runs; the
// function it gives takes them away.
func (i *Interp) pushTraps(list []lang.Stmt) func() {
	var traps []*lang.TrapStmt
	for _, s := range list {
		if t, ok := s.(*lang.TrapStmt); ok {
			traps = append(traps, t)
		}
	}
	if traps == nil {
		return func() {}
	}
	n := len(i.traps)
	i.traps = append(i.traps, trapFrame{traps: traps, depth: len(i.Scopes)})
	return func() { i.traps = i.traps[:n] }
}

// trapAbove tells whether a trap of an outer scope waits for errors: a
// statement's error then ends the function or script block, for that
// trap to handle at the call.
func (i *Interp) trapAbove() bool {
	return len(i.traps) > 0 && i.traps[len(i.traps)-1].depth < len(i.Scopes)
}

// trap handles a terminating error by the innermost trap of this scope
// that takes it: one naming the exception's type before one naming
// none. The trap's body runs in a scope of its own with $_ the error;
// then break ends the scope with the error, continue goes on silently
// with the next statement, and otherwise the error is written and the
// next statement runs.
func (i *Interp) trap(ctx context.Context, re *values.RuntimeError, emit func(any)) (bool, error) {
	if len(i.traps) == 0 {
		return false, nil
	}
	f := i.traps[len(i.traps)-1]
	if f.depth != len(i.Scopes) || re.Rec == i.rethrown.rec && f.depth >= i.rethrown.depth {
		return false, nil
	}
	var t *lang.TrapStmt
	for _, c := range f.traps {
		if len(c.Types) > 0 && exceptionIs(re.Rec.ExceptionType(), c.Types[0]) {
			t = c
			break
		}
	}
	for _, c := range f.traps {
		if t == nil && len(c.Types) == 0 {
			t = c
		}
	}
	if t == nil {
		return false, nil
	}
	i.RecordError(re.Rec)
	outer := i.traps
	i.traps = i.traps[:len(i.traps)-1] // an error in the trap goes further out
	i.Scopes = append(i.Scopes, map[string]any{"_": re.Rec, "psitem": re.Rec})
	err := i.ExecList(ctx, t.Body, emit)
	i.Scopes = i.Scopes[:len(i.Scopes)-1]
	i.traps = outer
	switch {
	case errors.As(err, new(values.BreakFlow)):
		// The error ends this scope: the blocks around it pass it on
		// untouched, and a trap of a caller may take it.
		i.rethrown.rec, i.rethrown.depth = re.Rec, f.depth
		return true, &values.RuntimeError{Rec: re.Rec, Script: true}
	case errors.As(err, new(values.ContinueFlow)):
		return true, nil
	case err != nil:
		return true, err
	}
	i.ErrOut(re.Rec)
	i.ok = false
	return true, nil
}
