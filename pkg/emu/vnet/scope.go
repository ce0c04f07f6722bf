package vnet

import (
	"context"
	"sync"
)

// scope is the listeners one process has bound, closed together when the
// process ends. context.AfterFunc would close each on its own, at the
// cost of a child registration in the process's context (half a KB per
// listener: 10,000 serving pods would hold 5 MB of them).
type scope struct {
	done  <-chan struct{}
	mu    sync.Mutex
	ls    []*Listener
	ended bool
}

type scopeKey struct{}

// WithProcess is ctx with a scope for the listeners its process binds;
// the caller calls end once ctx is done, which closes them.
func WithProcess(ctx context.Context) (_ context.Context, end func()) {
	s := &scope{done: ctx.Done()}
	return context.WithValue(ctx, scopeKey{}, s), s.end
}

// closeWith closes l once ctx is done: with the process's scope when ctx
// is the process's own (not a narrower one derived from it), else with
// an AfterFunc.
func closeWith(ctx context.Context, l *Listener) {
	s, ok := ctx.Value(scopeKey{}).(*scope)
	if !ok || s.done != ctx.Done() {
		context.AfterFunc(ctx, func() { l.Close() })
		return
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		l.Close()
		return
	}
	s.ls = append(s.ls, l)
	l.scope.Store(s)
	s.mu.Unlock()
}

func (s *scope) end() {
	s.mu.Lock()
	ls := s.ls
	s.ls, s.ended = nil, true
	s.mu.Unlock()
	for _, l := range ls {
		l.Close()
	}
}

// forget drops a listener the program closed itself, so a process that
// listens again and again does not grow its list.
func (s *scope) forget(l *Listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.ls {
		if x == l {
			s.ls = append(s.ls[:i], s.ls[i+1:]...)
			return
		}
	}
}
