package nodes

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

// Kubelet flags that cannot work are usage errors naming the flag, before
// the cluster is contacted.
func TestKubeletFlagUsageErrors(t *testing.T) {
	kubeconfig, _ := unreachableKubeconfig(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kubelet-address", "my-host"}, `--kubelet-address "my-host": not an IP address`},
		{[]string{"--kubelet-port", "70000"}, "--kubelet-port 70000: not a port"},
		{[]string{"--kubelet-tls-cert", "c.pem"}, "--kubelet-tls-cert and --kubelet-tls-key go together"},
		{[]string{"--kubelet-tls-cert", "c.pem", "--kubelet-tls-key", "k.pem", "--approve-csr"}, "--approve-csr has nothing to approve"},
	} {
		_, err := runNodes(append([]string{"--kubeconfig", kubeconfig}, tc.args...)...)
		var exit *cmd.ExitError
		if !errors.As(err, &exit) || exit.Code != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want exit 2 with %q", tc.args, err, tc.want)
		}
	}
}

// The default address is the one on the route to the API server: for a
// loopback API server, loopback.
func TestKubeletDefaultAddress(t *testing.T) {
	k := &kubeletFlags{port: 10250}
	s, err := k.serving("https://127.0.0.1:6443", 4)
	if err != nil || s.Listen != netip.MustParseAddr("127.0.0.1") || s.Advertise != s.Listen {
		t.Fatalf("serving = %+v, %v", s, err)
	}
	// 0.0.0.0 binds every interface and advertises the routed address.
	k.address = "0.0.0.0"
	s, err = k.serving("https://127.0.0.1:6443", 4)
	if err != nil || !s.Listen.IsUnspecified() || s.Advertise != netip.MustParseAddr("127.0.0.1") {
		t.Fatalf("0.0.0.0: serving = %+v, %v", s, err)
	}
	k.port = 65535
	if _, err := k.serving("https://127.0.0.1:6443", 4); err == nil || !strings.Contains(err.Error(), "4 nodes need ports up to 65538") {
		t.Errorf("ports past 65535: %v", err)
	}
	k = &kubeletFlags{certFile: "/nonexistent/c.pem", keyFile: "/nonexistent/k.pem"}
	if _, err := k.serving("https://127.0.0.1:6443", 1); err == nil || !strings.Contains(err.Error(), "--kubelet-tls-cert /nonexistent/c.pem") {
		t.Errorf("missing certificate: %v", err)
	}
}
