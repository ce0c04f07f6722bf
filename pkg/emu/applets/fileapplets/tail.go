package fileapplets

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Tail keeps only the last N lines (or bytes) in memory: a ring, never the
// whole input. With -f it then polls the file every second on the
// container's clock until ctx is done.
func Tail(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, legacyCount(p.Args[1:]), "n:c:fFqvs:")
	if !ok {
		return 1
	}
	n, sign, bytes := int64(10), byte(0), false
	for _, c := range []byte("nc") {
		if v, set := o.Val[c]; set {
			k, s, good := count(v)
			if !good {
				kit.Errorf(p, "invalid number '%s'", v)
				return 1
			}
			n, sign, bytes = k, s, c == 'c'
		}
	}
	follow := o.Has('f') || o.Has('F')
	w := kit.NewOut(p.Stdout)
	headers := (len(o.Args) > 1 && !o.Has('q')) || o.Has('v')
	first := true
	status := kit.EachInput(p, o.Args, func(name string, r io.Reader) error {
		if headers {
			sep := "\n"
			if first {
				sep = ""
			}
			first = false
			if err := w.WriteString(fmt.Sprintf("%s==> %s <==\n", sep, displayName(name))); err != nil {
				return err
			}
		}
		if bytes {
			return tailBytes(w, r, n, sign == '+')
		}
		return tailLines(w, r, n, sign == '+')
	})
	if w.Flush() != nil {
		return 1
	}
	if follow && len(o.Args) > 0 {
		followFiles(ctx, p, o.Args, headers)
	}
	return status
}

func tailLines(w *kit.Out, r io.Reader, n int64, from bool) error {
	if from {
		seen := int64(0)
		return kit.Lines(r, func(line string) error {
			seen++
			if seen >= n {
				return w.WriteString(line)
			}
			return nil
		})
	}
	if n == 0 {
		return kit.Lines(r, func(string) error { return nil })
	}
	ring := make([]string, 0, min(n, 1024))
	start := 0
	err := kit.Lines(r, func(line string) error {
		if int64(len(ring)) < n {
			ring = append(ring, line)
			return nil
		}
		ring[start] = line
		start = (start + 1) % len(ring)
		return nil
	})
	for i := range ring {
		if werr := w.WriteString(ring[(start+i)%len(ring)]); werr != nil {
			return werr
		}
	}
	return err
}

func tailBytes(w *kit.Out, r io.Reader, n int64, from bool) error {
	if from {
		if n > 1 {
			if _, err := io.CopyN(io.Discard, r, n-1); err != nil {
				return nil
			}
		}
		_, err := io.Copy(w, r)
		return err
	}
	keep := make([]byte, 0, min(n, 1<<20))
	buf := make([]byte, 32*1024)
	for {
		k, err := r.Read(buf)
		keep = append(keep, buf[:k]...)
		if int64(len(keep)) > n {
			keep = append(keep[:0], keep[int64(len(keep))-n:]...)
		}
		if err != nil {
			break
		}
	}
	_, err := w.Write(keep)
	return err
}

// followFiles prints what is appended to the files, polling each second;
// a file that shrinks is read again from its start.
func followFiles(ctx context.Context, p *program.Proc, names []string, headers bool) {
	offsets := make([]int64, len(names))
	for i, n := range names {
		if info, err := p.Sys.FS.Stat(kit.Abs(p, n)); err == nil {
			offsets[i] = info.Size()
		}
	}
	last := len(names) - 1
	for p.Sys.Sleep(ctx, time.Second) {
		for i, n := range names {
			f, err := p.Sys.FS.OpenFile(kit.Abs(p, n), os.O_RDONLY, 0)
			if err != nil {
				continue
			}
			info, err := f.Stat()
			if err == nil && info.Size() < offsets[i] {
				offsets[i] = 0
			}
			if err == nil && info.Size() > offsets[i] {
				if headers && i != last {
					fmt.Fprintf(p.Stdout, "\n==> %s <==\n", n)
					last = i
				}
				f.Seek(offsets[i], io.SeekStart)
				k, _ := io.Copy(p.Stdout, f)
				offsets[i] += k
			}
			f.Close()
		}
	}
}
