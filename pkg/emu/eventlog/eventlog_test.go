package eventlog

import (
	"sync"
	"testing"
	"time"
)

func TestSubscribe(t *testing.T) {
	s := New(func() time.Time { return time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC) })
	if err := s.CreateSource("App", "MyLog"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSource("app", "Application"); err != ErrSourceExists {
		t.Errorf("a taken source (names without case): %v", err)
	}
	s.Write(Entry{Source: "App", Message: "before"})
	var mu sync.Mutex
	var got []string
	sub := s.Subscribe([]string{"mylog"}, true, func(e Entry) {
		mu.Lock()
		got = append(got, e.Message)
		mu.Unlock()
	})
	s.Write(Entry{Source: "App", Message: "after"})
	s.Write(Entry{Source: "EventLog", Message: "in System, not followed"})
	sub.Close()
	s.Write(Entry{Source: "App", Message: "after Close"})
	if len(got) != 2 || got[0] != "before" || got[1] != "after" {
		t.Errorf("the subscriber saw %q", got)
	}
	if e, _ := s.Entries("MyLog"); len(e) != 3 || e[2].Index != 3 || e[2].Log != "MyLog" || e[0].Type != Information {
		t.Errorf("MyLog holds %+v", e)
	}
	if _, err := s.Write(Entry{Source: "Nobody"}); err != ErrNoSource {
		t.Errorf("an unregistered source wrote: %v", err)
	}
}

// Two containers' event logs share the standard sources until one
// changes its own: a source one registers or removes is not the other's.
func TestStoresKeepTheirOwnSources(t *testing.T) {
	a, b := New(time.Now), New(time.Now)
	if err := a.CreateSource("MyApp", "Application"); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteSource("WMI"); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteLog("System"); err != nil {
		t.Fatal(err)
	}
	if got := b.SourceLog("MyApp"); got != "" {
		t.Errorf("another container's source is registered here, in %q", got)
	}
	if got := b.SourceLog("wmi"); got != "Application" {
		t.Errorf("WMI removed from another container is gone here too (log %q)", got)
	}
	if got := b.SourceLog("Service Control Manager"); got != "System" {
		t.Errorf("another container's deleted System log took this one's sources (log %q)", got)
	}
	if got := New(time.Now).SourceLog("MyApp"); got != "" {
		t.Errorf("a new container's event log has another's source, in %q", got)
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		New(time.Now)
	}
}
