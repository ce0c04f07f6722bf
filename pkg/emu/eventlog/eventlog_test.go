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
