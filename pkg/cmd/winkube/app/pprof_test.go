package app

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

// --pprof-addr takes loopback addresses only, and serves the profiles
// while the command runs.
func TestPprofAddr(t *testing.T) {
	var out bytes.Buffer
	streams := cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}
	for _, bad := range []string{"0.0.0.0:6060", "localhost:6060", "6060"} {
		out.Reset()
		if code := Run(context.Background(), streams, []string{"--pprof-addr", bad, "version"}); code != 1 {
			t.Errorf("--pprof-addr %s: exit %d, want 1", bad, code)
		}
		if !strings.Contains(out.String(), "want a loopback address and port") {
			t.Errorf("--pprof-addr %s: %q", bad, out.String())
		}
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv, err := servePprof(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine profile") {
		t.Errorf("GET goroutine profile: %s %.80q", resp.Status, body)
	}
}
