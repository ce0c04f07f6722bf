package runner

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// gcSettings reads the collector's percent and memory limit.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1) // a negative limit only reads it
}

func TestStartHeapUntilFirstCollection(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	percent, limit := gcSettings()
	restore := startHeap(math.MaxInt64 / 2)
	defer restore()
	if p, l := gcSettings(); p != -1 || l != math.MaxInt64/2 {
		t.Fatalf("after startHeap: GOGC %d and limit %d, want off and the starting heap", p, l)
	}
	// The first collection hands back to the usual pacing; the cleanup
	// that does it runs on its own goroutine soon after.
	for i := 0; i < 100; i++ {
		runtime.GC()
		if p, l := gcSettings(); p == percent && l == limit {
			return
		}
		runtime.Gosched()
	}
	t.Fatal("the collector's settings were not restored after collections")
}

func TestStartHeapRestore(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	percent, limit := gcSettings()
	startHeap(math.MaxInt64 / 2)()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Fatalf("after restore: GOGC %d and limit %d, want %d and %d", p, l, percent, limit)
	}
}

func TestStartHeapLeavesUserSettings(t *testing.T) {
	t.Setenv("GOGC", "50")
	percent, limit := gcSettings()
	defer startHeap(math.MaxInt64 / 2)()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Fatalf("with GOGC set: GOGC %d and limit %d, want them untouched (%d and %d)", p, l, percent, limit)
	}
}
