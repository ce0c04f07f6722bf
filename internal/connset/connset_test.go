package connset

import (
	"net"
	"testing"
)

// Closing the set ends the connections it tracks and refuses new ones.
func TestCloseEndsTrackedConnections(t *testing.T) {
	var s Set
	a, b := net.Pipe()
	defer b.Close()
	if !s.Track(a) {
		t.Fatal("an open set refused a connection")
	}
	s.Close()
	if _, err := a.Write([]byte("x")); err == nil {
		t.Error("a tracked connection is still open after Close")
	}
	c, d := net.Pipe()
	defer c.Close()
	defer d.Close()
	if s.Track(c) {
		t.Error("a closed set tracked a new connection")
	}
}
