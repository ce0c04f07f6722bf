package netapplets

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// relay shovels stdin to a connection and the connection to stdout, as
// both netcats do, until the connection ends or a timer says stop.
type relay struct {
	p    *program.Proc
	conn io.ReadWriteCloser
	// idle ends the relay once nothing moved for idle, idleTimes
	// times over (busybox's -w polls twice; OpenBSD's -w once); 0 is
	// never.
	idle      time.Duration
	idleTimes int
	// afterEOF ends the relay that long after stdin's end (-q); < 0 is
	// never.
	afterEOF time.Duration
	// interval sends stdin a line at a time, pausing this long before
	// each (busybox's -i).
	interval time.Duration
	noStdin  bool      // -d: do not read stdin
	dump     io.Writer // -o FILE: hex dump of the traffic

	last          atomic.Int64 // the container clock's time of the last byte
	sent, rcvd    atomic.Int64
	dumpMu        sync.Mutex
	stdinEOF      chan struct{}
	netDone, stop chan struct{}
}

// run relays until the connection or ctx ends, and closes the connection.
func (r *relay) run(ctx context.Context) {
	r.stdinEOF, r.netDone, r.stop = make(chan struct{}), make(chan struct{}), make(chan struct{})
	defer close(r.stop)
	defer r.conn.Close()
	r.touch()
	go r.fromNet()
	if !r.noStdin {
		go r.toNet(ctx)
	}
	var idle <-chan struct{}
	if r.idle > 0 {
		idle = r.idleWatch()
	}
	var eof <-chan time.Time
	stdinEOF := r.stdinEOF
	for {
		select {
		case <-r.netDone:
			return
		case <-ctx.Done():
			return
		case <-idle:
			return
		case <-eof:
			return
		case <-stdinEOF:
			stdinEOF = nil
			if r.afterEOF >= 0 {
				eof = r.p.Sys.Clock.After(r.afterEOF)
			}
		}
	}
}

func (r *relay) touch() { r.last.Store(r.p.Sys.Clock.Now().UnixNano()) }

// idleWatch closes its channel once the relay was idle long enough.
func (r *relay) idleWatch() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		clock := r.p.Sys.Clock
		for left := max(r.idleTimes, 1); left > 0; {
			wait := time.Unix(0, r.last.Load()).Add(r.idle).Sub(clock.Now())
			if wait <= 0 {
				left--
				r.touch()
				continue
			}
			select {
			case <-clock.After(wait):
			case <-r.stop:
				return
			}
		}
	}()
	return done
}

func (r *relay) fromNet() {
	defer close(r.netDone)
	buf := make([]byte, 8192)
	for {
		n, err := r.conn.Read(buf)
		if n > 0 {
			r.touch()
			r.rcvd.Add(int64(n))
			r.hexdump('<', buf[:n], r.rcvd.Load()-int64(n))
			if _, werr := r.p.Stdout.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (r *relay) toNet(ctx context.Context) {
	defer close(r.stdinEOF)
	if r.interval > 0 {
		r.linesToNet(ctx)
		return
	}
	buf := make([]byte, 8192)
	for {
		n, err := r.p.Stdin.Read(buf)
		if n > 0 && !r.send(buf[:n]) {
			return
		}
		if err != nil {
			return
		}
	}
}

// linesToNet is busybox's -i: a pause, then one line, and again.
func (r *relay) linesToNet(ctx context.Context) {
	br := bufio.NewReader(r.p.Stdin)
	for {
		if !r.p.Sys.Sleep(ctx, r.interval) {
			return
		}
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && !r.send(line) {
			return
		}
		if err != nil {
			return
		}
	}
}

// send writes b to the connection; its dump line comes first, so that
// it precedes the answer's.
func (r *relay) send(b []byte) bool {
	r.touch()
	r.hexdump('>', b, r.sent.Load())
	if _, err := r.conn.Write(b); err != nil {
		return false
	}
	r.sent.Add(int64(len(b)))
	return true
}

// hexdump writes nc 1.10's -o lines: direction, offset, 16 bytes in hex
// and their printable characters.
func (r *relay) hexdump(dir byte, b []byte, off int64) {
	if r.dump == nil {
		return
	}
	r.dumpMu.Lock()
	defer r.dumpMu.Unlock()
	for len(b) > 0 {
		n := min(len(b), 16)
		line := fmt.Sprintf("%c %08x ", dir, off)
		ascii := make([]byte, n)
		for i, c := range b[:n] {
			line += fmt.Sprintf("%02x ", c)
			ascii[i] = '.'
			if c > 31 && c < 127 {
				ascii[i] = c
			}
		}
		fmt.Fprintf(r.dump, "%-59s# %s\n", line, ascii)
		b, off = b[n:], off+int64(n)
	}
}
