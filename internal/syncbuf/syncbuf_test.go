package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// Concurrent writers and readers see whole writes (run with -race to
// check the locking).
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = b.Write([]byte("line\n"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := strings.Count(b.String(), "line\n"); got != 800 {
		t.Errorf("%d whole lines, want 800", got)
	}
}
