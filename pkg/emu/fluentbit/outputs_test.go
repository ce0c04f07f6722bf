package fluentbit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// pipeNet is a pod network with one peer: a dial to peer reaches serve
// over an in-memory connection.
type pipeNet struct {
	peer  string
	serve func(net.Conn)
}

func (n pipeNet) LookupHost(_ context.Context, name string) ([]string, error) {
	if name == "collector.logging.svc.cluster.local" {
		return []string{"10.96.0.20"}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (n pipeNet) Dial(_ context.Context, _, address string) (io.ReadWriteCloser, error) {
	if address != n.peer {
		return nil, errors.New("connection refused")
	}
	client, server := net.Pipe()
	go n.serve(server)
	return client, nil
}

func (pipeNet) Listen(context.Context, string, int) (program.Listener, error) {
	return nil, errors.New("not here")
}

// pipeNet has the pod's resolver search list, as the pod network does.
func (pipeNet) DNSSearch() []string {
	return []string{"logging.svc.cluster.local", "svc.cluster.local", "cluster.local"}
}

func TestHTTPOutputPostsJSON(t *testing.T) {
	got := make(chan string, 1)
	fx := newFixture(t, false, map[string]string{"/fb.conf": `[INPUT]
    Name  dummy
    Dummy {"msg":"hi"}
    Tag   app
[OUTPUT]
    Name   http
    Match  *
    Host   collector
    Port   8080
    URI    /ingest
    Format json
    Header X-Tenant blue
`})
	fx.sys.Net = pipeNet{peer: "10.96.0.20:8080", serve: func(c net.Conn) {
		defer c.Close()
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		body, _ := io.ReadAll(req.Body)
		got <- req.Method + " " + req.URL.Path + " " + req.Header.Get("Content-Type") + " " + req.Header.Get("X-Tenant") + " " + string(body)
		io.WriteString(c, "HTTP/1.1 201 Created\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	}}
	e := fx.start(t, "-c", "/fb.conf")
	fx.step(e, time.Second)
	select {
	case req := <-got:
		if want := `POST /ingest application/json blue [{"date":1795830601.123457,"msg":"hi"}]`; req != want {
			t.Errorf("request %q, want %q", req, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no request reached the collector")
	}
	if !strings.Contains(fx.stderr.String(), "[ info] [output:http:http.0] collector:8080, HTTP status=201") {
		t.Errorf("log:\n%s", fx.stderr.String())
	}
}

// out_forward sends a chunk as the Forward protocol's PackedForward
// message: [tag, entries as bin, {"size": n}], each entry
// [EventTime, record].
func TestForwardOutputSendsPackedForward(t *testing.T) {
	got := make(chan []byte, 1)
	fx := newFixture(t, false, map[string]string{"/fb.conf": "[INPUT]\n    Name dummy\n    Tag t\n[OUTPUT]\n    Name forward\n    Match *\n    Host 10.96.0.20\n"})
	fx.sys.Net = pipeNet{peer: "10.96.0.20:24224", serve: func(c net.Conn) {
		b, _ := io.ReadAll(c)
		got <- b
	}}
	e := fx.start(t, "-c", "/fb.conf")
	fx.step(e, time.Second)
	var msg []byte
	select {
	case msg = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("nothing forwarded")
	}
	// fixarray 3, fixstr "t", bin32 of the entries, {"size": 1}.
	if len(msg) < 8 || msg[0] != 0x93 || msg[1] != 0xa1 || msg[2] != 't' || msg[3] != 0xc6 {
		t.Fatalf("message % x", msg)
	}
	n := binary.BigEndian.Uint32(msg[4:8])
	entries, rest := msg[8:8+n], msg[8+n:]
	// [EventTime (ext 0, 8 bytes), {"message": "dummy"}]
	want := append([]byte{0x92, 0xd7, 0x00}, 0x6b, 0x0a, 0x33, 0x49, 0x07, 0x5b, 0xcd, 0x15) // 1795830601 s, 123456789 ns
	want = append(want, 0x81, 0xa7)
	want = append(want, "message"...)
	want = append(want, 0xa5)
	want = append(want, "dummy"...)
	if !bytes.Equal(entries, want) {
		t.Errorf("entries % x\nwant    % x", entries, want)
	}
	if !bytes.Equal(rest, append([]byte{0x81, 0xa4}, append([]byte("size"), 0x01)...)) {
		t.Errorf("options % x", rest)
	}
}
