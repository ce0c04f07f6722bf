package vfs

import (
	"io"
	"os"
	"testing"
)

// BenchmarkNew is the cost of a container's empty filesystem; 10,000 pods
// may each have one.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		New(Options{UID: 1000})
	}
}

// BenchmarkWriteReadSmallFile creates, writes, reads and removes a small
// file two directories deep.
func BenchmarkWriteReadSmallFile(b *testing.B) {
	f := New(Options{})
	mustOK(b, f.MkdirAll("/var/lib/app", 0o755))
	data := []byte("small file content\n")
	buf := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		w, err := f.OpenFile("/var/lib/app/state", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		w.Write(data)
		w.Close()
		r, err := f.OpenFile("/var/lib/app/state", os.O_RDONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		if n, _ := io.ReadFull(r, buf[:len(data)]); n != len(data) {
			b.Fatal("short read")
		}
		r.Close()
		if err := f.Remove("/var/lib/app/state"); err != nil {
			b.Fatal(err)
		}
	}
}
