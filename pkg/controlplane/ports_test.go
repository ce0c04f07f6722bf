package controlplane

import (
	"net"
	"testing"
)

// Free ports for the components come from below the ephemeral range, out
// of reach of outgoing connections' local ports, and are distinct.
func TestFreePortsBelowEphemeralRange(t *testing.T) {
	top := ephemeralLow()
	seen := map[int]bool{}
	for range 20 {
		h, err := listenBelowEphemeral()
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		port := h.Addr().(*net.TCPAddr).Port
		if port < 10000 || port >= top || seen[port] {
			t.Errorf("port %d: want a new port in [10000, %d)", port, top)
		}
		seen[port] = true
	}
}
