// Package connset is the connection plumbing of the proxies between the
// pod network and the host: the set of a server's open connections, which
// closing the server ends, and forwarding a connection to a host socket.
package connset

import (
	"io"
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

// Forward copies c to and from a new connection to addr on the host until
// either side ends, then closes both.
func Forward(c io.ReadWriteCloser, network, addr string) {
	defer c.Close()
	up, err := net.Dial(network, addr)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done // either side ending ends both: the deferred closes stop the other copy
}

// Serve accepts connections on ln until it is closed, tracking each and
// handling it on a goroutine of wg; a connection accepted after Close is
// closed unhandled and ends the loop.
func (s *Set) Serve(ln net.Listener, wg *sync.WaitGroup, handle func(net.Conn)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !s.Track(c) {
			c.Close()
			return
		}
		wg.Go(func() {
			defer s.Untrack(c)
			handle(c)
		})
	}
}
