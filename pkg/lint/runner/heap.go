package runner

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// startingHeap is how large the heap may grow before lint's first garbage
// collection. Lint keeps nearly everything it allocates (the objects, the
// YAML trees their findings are located in, the typed specs) to the end,
// so under the default pacing, a collection each time the heap doubles
// from 4 MiB, the collector marks the same live objects a dozen times over
// a 10,000-object input: a third of the run on one core. Inputs of that
// size now finish without a collection (the process holds about 40 MiB
// more); larger ones go back to the usual pacing after the first, so the
// heap never exceeds what that pacing allows by more than this. The Go
// compiler starts with a large heap for the same reason.
const startingHeap = 512 << 20

// startHeap turns the collector off until the heap reaches size, then back
// to its settings, which the returned function also restores. GOGC or
// GOMEMLIMIT in the environment are the user's choice and win.
func startHeap(size int64) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(size)
	var once sync.Once
	restore = func() {
		once.Do(func() {
			debug.SetGCPercent(percent)
			debug.SetMemoryLimit(limit)
		})
	}
	// The first collection, due when the heap reaches the limit, frees the
	// sentinel and so runs the cleanup.
	sentinel := new([64]byte)
	runtime.AddCleanup(sentinel, func(struct{}) { restore() }, struct{}{})
	return restore
}
