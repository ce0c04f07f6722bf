package vnet

import (
	"context"
	"io"
	"net/netip"
	"testing"
	"time"
)

// A process's ports close when it ends: those bound with its own context
// through its scope, those bound with a narrower context when that one
// ends; a port the program closed itself leaves the scope's list.
func TestProcessScopeClosesPorts(t *testing.T) {
	f := New(router{})
	n := f.Net(&podB).(hostNet)
	ctx, cancel := context.WithCancel(context.Background())
	ctx, end := WithProcess(ctx)
	nothing := func(io.ReadWriteCloser) {}
	if err := n.Serve(ctx, "tcp", 80, nothing); err != nil {
		t.Fatal(err)
	}
	narrow, stop := context.WithCancel(ctx)
	if err := n.Serve(narrow, "tcp", 81, nothing); err != nil {
		t.Fatal(err)
	}
	l, err := n.Listen(ctx, "tcp", 82)
	if err != nil {
		t.Fatal(err)
	}
	s := ctx.Value(scopeKey{}).(*scope)
	if len(s.ls) != 2 {
		t.Fatalf("scope holds %d listeners, want 2 (port 81 has its own context)", len(s.ls))
	}
	l.Close()
	if len(s.ls) != 1 {
		t.Errorf("scope holds %d listeners after the program closed one, want 1", len(s.ls))
	}
	stop()
	for i := 0; f.Listening(netip.MustParseAddrPort("10.244.2.7:81")); i++ {
		if i == 100 { // AfterFunc closes it on a goroutine of its own
			t.Fatal("port 81 still bound after its context ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !f.Listening(netip.MustParseAddrPort("10.244.2.7:80")) {
		t.Error("port 80 closed before its process ended")
	}
	cancel()
	end()
	if f.Listening(netip.MustParseAddrPort("10.244.2.7:80")) {
		t.Error("port 80 still bound after its process ended")
	}
	if err := n.Serve(ctx, "tcp", 83, nothing); err != nil || f.Listening(netip.MustParseAddrPort("10.244.2.7:83")) {
		t.Errorf("a port bound after the end stays bound (%v)", err)
	}
}
