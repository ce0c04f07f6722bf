// Package connset keeps the open connections of a server (the proxies
// that tunnel to the pod network) so that closing the server ends them.
package connset

import (
	"net"
	"sync"
)

// Set is a set of open connections. The zero Set is ready to use.
type Set struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// Track records c; false once the set is closed (the caller closes c).
func (s *Set) Track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.conns == nil {
		s.conns = map[net.Conn]struct{}{}
	}
	s.conns[c] = struct{}{}
	return true
}

// Untrack closes c and forgets it.
func (s *Set) Untrack(c net.Conn) {
	c.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
}

// Close closes every tracked connection; later Track calls fail.
func (s *Set) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.Close()
	}
	s.conns, s.closed = nil, true
}
