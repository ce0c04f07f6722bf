package dnsutils

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	miekg "github.com/miekg/dns"

	"github.com/winkube/winkube/pkg/emu/program"
)

// dig's defaults: +time=5 seconds a try, +tries=3 over UDP.
const (
	tryTimeout = 5 * time.Second
	udpTries   = 3
)

var errTimeout = errors.New("timed out")

// query asks each name in turn and returns the reply to print: the first
// that is not NXDOMAIN, or the last. No reply at all is exit status 9.
func query(ctx context.Context, p *program.Proc, o *digOpts, names []string) (*miekg.Msg, int) {
	var last *miekg.Msg
	for _, name := range names {
		m := new(miekg.Msg)
		m.SetQuestion(name, o.qtype)
		reply, err := ask(ctx, p, o, m)
		if err != nil {
			fmt.Fprintln(p.Stdout, ";; connection timed out; no servers could be reached")
			return nil, exitNoReply
		}
		last = reply
		if reply.Rcode != miekg.RcodeNameError {
			break
		}
	}
	return last, exitOK
}

// ask sends m to the server over UDP (retrying, then over TCP when the
// reply is truncated) or over TCP with +tcp.
func ask(ctx context.Context, p *program.Proc, o *digOpts, m *miekg.Msg) (*miekg.Msg, error) {
	addr := net.JoinHostPort(o.server, "53")
	if o.tcp {
		return exchange(ctx, p, "tcp", addr, m)
	}
	var err error
	for range udpTries {
		var reply *miekg.Msg
		if reply, err = exchange(ctx, p, "udp", addr, m); err != nil {
			if errors.Is(err, errTimeout) {
				continue
			}
			fmt.Fprintf(p.Stdout, ";; communications error to %s#53: %v\n", o.server, unwrapAll(err))
			continue
		}
		if reply.Truncated {
			fmt.Fprintln(p.Stdout, ";; Truncated, retrying in TCP mode.")
			return exchange(ctx, p, "tcp", addr, m)
		}
		return reply, nil
	}
	return nil, err
}

// unwrapAll is the innermost error, the errno, as dig words a
// communications error ("connection refused").
func unwrapAll(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// exchange is one query and its reply over a connection of the pod's
// network, bounded by a try's timeout on the container's clock.
func exchange(ctx context.Context, p *program.Proc, proto, addr string, m *miekg.Msg) (*miekg.Msg, error) {
	if p.Sys.Net == nil {
		return nil, errTimeout
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, err := p.Sys.Net.Dial(ctx, proto, addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	type result struct {
		m   *miekg.Msg
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := roundTrip(c, proto, m)
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		return r.m, r.err
	case <-p.Sys.Clock.After(tryTimeout):
		return nil, errTimeout
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// roundTrip writes m and reads the reply with the id it carries: one
// datagram over UDP, length-prefixed messages over TCP (RFC 1035 4.2.2).
func roundTrip(c io.ReadWriter, proto string, m *miekg.Msg) (*miekg.Msg, error) {
	wire, err := m.Pack()
	if err != nil {
		return nil, err
	}
	tcp := proto == "tcp"
	if err := WriteMsg(c, wire, tcp); err != nil {
		return nil, err
	}
	for {
		buf, err := ReadMsg(c, tcp)
		if err != nil {
			return nil, err
		}
		reply := new(miekg.Msg)
		if err := reply.Unpack(buf); err != nil || reply.Id != m.Id {
			continue // dig drops a reply it cannot match and waits on
		}
		return reply, nil
	}
}

// ReadMsg reads one DNS message in wire format: a datagram over UDP, a
// two-byte length and the message over TCP (RFC 1035 4.2.2).
func ReadMsg(c io.Reader, tcp bool) ([]byte, error) {
	if !tcp {
		buf := make([]byte, miekg.MaxMsgSize)
		n, err := c.Read(buf)
		return buf[:n], err
	}
	var size [2]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		return nil, err
	}
	buf := make([]byte, binary.BigEndian.Uint16(size[:]))
	_, err := io.ReadFull(c, buf)
	return buf, err
}

// WriteMsg writes one DNS message in wire format, framed as ReadMsg
// reads it.
func WriteMsg(w io.Writer, wire []byte, tcp bool) error {
	if tcp {
		wire = append(binary.BigEndian.AppendUint16(nil, uint16(len(wire))), wire...)
	}
	_, err := w.Write(wire)
	return err
}
