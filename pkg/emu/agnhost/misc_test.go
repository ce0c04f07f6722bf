package agnhost

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

func TestLogsGenerator(t *testing.T) {
	e := newEnv(nil, "/agnhost", "logs-generator", "--log-lines-total", "5", "--run-duration", "5s")
	if code := e.run(t, context.Background()); code != 0 {
		t.Fatalf("status %d", code)
	}
	line := regexp.MustCompile(`^I\d{4} \d\d:\d\d:\d\d\.\d{6}       1 logs_generator\.go:76\] (\d) (GET|POST|PUT) /api/v1/namespaces/(kube-system|default|ns)/pods/[b-z2-9]{3,4} [2-5]\d\d$`)
	lines := strings.Split(strings.TrimSuffix(e.stderr.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines: %q", len(lines), e.stderr)
	}
	for i, l := range lines {
		m := line.FindStringSubmatch(l)
		if m == nil || m[1] != itoa(i) {
			t.Errorf("line %q", l)
		}
	}
	if got := e.clock.Now().Sub(epoch).Seconds(); got != 5 {
		t.Errorf("ran %vs, want 5s", got)
	}
}

func TestLogsGeneratorFatal(t *testing.T) {
	e := newEnv(nil, "/agnhost", "logs-generator", "-t", "3")
	if code := e.run(t, context.Background()); code != 255 {
		t.Fatalf("status %d", code)
	}
	if want := "F0304 05:06:07.000000       1 logs_generator.go:68] Invalid duration: 0s\n"; e.stderr.String() != want {
		t.Errorf("stderr %q, want %q", e.stderr, want)
	}
}

func TestDNSCommands(t *testing.T) {
	resolv := "nameserver 10.96.0.10\nsearch ns.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n"
	hosts := "127.0.0.1\tlocalhost\n10.244.0.5\tpod-1\n"
	tests := []struct {
		cmd, out string
		code     int
		windows  bool
	}{
		{cmd: "dns-suffix", out: "ns.svc.cluster.local,svc.cluster.local,cluster.local\n"},
		{cmd: "dns-server-list", out: "10.96.0.10\n"},
		{cmd: "etc-hosts", out: hosts + "\n"},
		{cmd: "etc-hosts", windows: true, out: "win hosts\n"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			fsys := newMemFS().add("/etc/resolv.conf", resolv, 0o644).add("/etc/hosts", hosts, 0o644).
				add("/C:/Windows/System32/drivers/etc/hosts", "win hosts", 0o644)
			e := newEnv(fsys, "/agnhost", tt.cmd)
			e.p.Sys.Windows = tt.windows
			if code := e.run(t, context.Background()); code != tt.code || e.stdout.String() != tt.out {
				t.Errorf("status %d stdout %q, want %q", code, e.stdout, tt.out)
			}
		})
	}
	e := newEnv(nil, "/agnhost", "dns-suffix")
	if code := e.run(t, context.Background()); code != 2 || !strings.HasPrefix(e.stderr.String(), "panic: open /etc/resolv.conf: no such file or directory\n") {
		t.Errorf("missing resolv.conf: %d %q", code, e.stderr)
	}
}

func TestConnect(t *testing.T) {
	tests := []struct {
		args   []string
		net    bool
		code   int
		stderr string
	}{
		{args: []string{"10.0.0.1"}, code: 1, stderr: "UNKNOWN: address 10.0.0.1: missing port in address\n"},
		{args: []string{"10.0.0.1:80"}, code: 1, stderr: "OTHER: dial tcp 10.0.0.1:80: connect: network is unreachable\n"},
		{args: []string{"svc:80"}, code: 1, stderr: "DNS: lookup svc on 10.96.0.10:53: dial udp 10.96.0.10:53: connect: network is unreachable\n"},
		{args: []string{"10.0.0.1:80", "--timeout=5s"}, net: true, code: 1, stderr: "REFUSED\n"},
		{args: []string{"10.0.0.1:80", "--protocol=quic"}, code: 1, stderr: "Unsupported protocol\nquic"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := newEnv(newMemFS().add("/etc/resolv.conf", "nameserver 10.96.0.10\n", 0o644), append([]string{"/agnhost", "connect"}, tt.args...)...)
			if tt.net {
				e.p.Sys.Net = &pipeNet{}
			}
			if code := e.run(t, context.Background()); code != tt.code || e.stderr.String() != tt.stderr {
				t.Errorf("status %d stderr %q, want %d %q", code, e.stderr, tt.code, tt.stderr)
			}
		})
	}
}

// dnsNet is a pod network that knows the pod's resolver settings.
type dnsNet struct {
	*pipeNet
	servers, search []string
}

func (n dnsNet) DNSServers() []string { return n.servers }
func (n dnsNet) DNSSearch() []string  { return n.search }

// On Windows, dns-suffix and dns-server-list read the adapter's settings
// (the registry's SearchList, GetNetworkParams), not a resolv.conf
// Windows does not have.
func TestWindowsDNSSettings(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"dns-suffix", "ns.svc.cluster.local,svc.cluster.local,cluster.local\n"},
		{"dns-server-list", "10.96.0.10\n"},
	} {
		e := newEnv(newMemFS(), "/agnhost", tc.cmd)
		e.p.Sys.Windows = true
		e.p.Sys.Net = dnsNet{pipeNet: &pipeNet{}, servers: []string{"10.96.0.10"}, search: []string{"ns.svc.cluster.local", "svc.cluster.local", "cluster.local"}}
		if code := e.run(t, context.Background()); code != 0 || e.stdout.String() != tc.want {
			t.Errorf("%s: %d %q %q, want %q", tc.cmd, code, e.stdout, e.stderr, tc.want)
		}
	}
}
