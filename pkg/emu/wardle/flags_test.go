package wardle

import (
	"bytes"
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

type noRoute struct{}

func (noRoute) Route(vnet.Host, string, netip.AddrPort) (netip.AddrPort, error) {
	return netip.AddrPort{}, syscall.ENETUNREACH
}

func (noRoute) Lookup(context.Context, vnet.Host, string) ([]netip.Addr, error) {
	return nil, syscall.ENOENT
}

// Bad input stops the program at once with status 1 and a message naming
// the flag or what is missing, and leaves nothing on the host.
func TestBadInputNamesTheFlag(t *testing.T) {
	fs := vfstest.New(clock{})
	fs.Put("/certs/tls.crt", "cert", 0o644)
	fs.Put("/certs/tls.key", "key", 0o600)
	h := vnet.Host{IP: netip.MustParseAddr("10.244.0.9"), Scope: "pod"}
	tls := []string{"--tls-cert-file=/certs/tls.crt", "--tls-private-key-file=/certs/tls.key"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag"}, "Error: unknown flag: --no-such-flag"},
		{append(tls, "--kubeconfig=/etc/kubeconfig"), "--kubeconfig /etc/kubeconfig: the emulated sample-apiserver reaches the cluster only through its pod's service account; remove --kubeconfig"},
		{append(tls, "--tracing-config-file=/etc/tracing"), "--tracing-config-file: the emulated sample-apiserver does not support this flag"},
		{[]string{"--tls-cert-file=/certs/missing.crt"}, "--tls-cert-file: open /certs/missing.crt: no such file or directory"},
		{tls, "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined"},
	} {
		before, _ := filepath.Glob(filepath.Join(os.TempDir(), "winkube-wardle-*"))
		var out bytes.Buffer
		p := &program.Proc{Args: append([]string{"/sample-apiserver"}, c.args...), Dir: "/", Stdout: &out, Stderr: &out,
			Sys: &program.Sys{FS: fs, Net: vnet.New(noRoute{}).Net(&h)}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		code := Main(ctx, p)
		cancel()
		if code != 1 || !strings.Contains(out.String(), c.want) {
			t.Errorf("%v: status %d, output:\n%s\nwant %q", c.args, code, out.String(), c.want)
		}
		if after, _ := filepath.Glob(filepath.Join(os.TempDir(), "winkube-wardle-*")); len(after) > len(before) {
			t.Errorf("%v: left %v on the host", c.args, after)
		}
	}
}

type clock struct{}

func (clock) Now() time.Time                         { return time.Now() }
func (clock) After(d time.Duration) <-chan time.Time { return time.After(d) }
