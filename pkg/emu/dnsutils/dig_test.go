package dnsutils

import (
	"context"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"

	miekg "github.com/miekg/dns"
	"k8s.io/utils/clock"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

// Every address is on the emulated network.
var (
	podIP = netip.MustParseAddr("10.244.1.7")
	dnsIP = netip.MustParseAddr("10.96.0.10")
)

const resolv = "search ns1.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n"

// zone is what the test's DNS server knows.
var zone = []string{
	"kubernetes.default.svc.cluster.local. 30 IN A 10.96.0.1",
	"web.ns1.svc.cluster.local. 30 IN AAAA fd00::17",
	"_http._tcp.web.ns1.svc.cluster.local. 30 IN SRV 0 100 80 web.ns1.svc.cluster.local.",
	"7.1.244.10.in-addr.arpa. 30 IN PTR 10-244-1-7.web.ns1.svc.cluster.local.",
}

type router struct{}

func (router) Route(_ vnet.Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	return dst, nil
}

func (router) Lookup(_ context.Context, _ vnet.Host, name string) ([]netip.Addr, error) {
	if name == "kubernetes.default" {
		return []netip.Addr{netip.MustParseAddr("10.96.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

// answer replies from zone: NXDOMAIN for a name it does not hold.
func answer(t *testing.T, req *miekg.Msg) *miekg.Msg {
	m := new(miekg.Msg)
	m.SetReply(req)
	m.Authoritative = true
	m.Rcode = miekg.RcodeNameError
	q := req.Question[0]
	for _, s := range zone {
		rr, err := miekg.NewRR(s)
		if err != nil {
			t.Fatal(err)
		}
		if strings.EqualFold(rr.Header().Name, q.Name) {
			m.Rcode = miekg.RcodeSuccess
			if rr.Header().Rrtype == q.Qtype {
				m.Answer = append(m.Answer, rr)
			}
		}
	}
	return m
}

// serveDNS binds a DNS server on dnsIP:53, UDP and TCP.
func serveDNS(t *testing.T, f *vnet.Fabric) {
	h := vnet.Host{IP: dnsIP, Scope: "dns"}
	for _, proto := range []string{"udp", "tcp"} {
		l, err := f.Serve(h, proto, 53, func(c net.Conn) {
			defer c.Close()
			buf, err := ReadMsg(c, proto == "tcp")
			if err != nil {
				return
			}
			req := new(miekg.Msg)
			if req.Unpack(buf) != nil {
				return
			}
			wire, _ := answer(t, req).Pack()
			_ = WriteMsg(c, wire, proto == "tcp")
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	}
}

type run struct {
	p      *program.Proc
	stdout *syncbuf.Buffer
}

// newProc is a pod's process with the resolv.conf and hosts file the
// kubelet writes, on the emulated network.
func newProc(t *testing.T, f *vnet.Fabric, args ...string) run {
	fs := vfs.New(vfs.Options{})
	if err := fs.MkdirAll("/etc", 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"/etc/resolv.conf": resolv,
		"/etc/hosts":       "127.0.0.1\tlocalhost\n10.244.1.7\tquerier.web.ns1.svc.cluster.local\tquerier\n",
	} {
		fh, err := fs.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(fh, data)
		fh.Close()
	}
	host := &vnet.Host{IP: podIP, Scope: "pod", Source: "pod/ns1/querier"}
	out := &syncbuf.Buffer{}
	return run{stdout: out, p: &program.Proc{
		Args: args, Dir: "/", Stdin: strings.NewReader(""), Stdout: out, Stderr: out,
		Sys: &program.Sys{FS: fs, Clock: clock.RealClock{}, Net: f.Net(host), Programs: Table()},
	}}
}

func TestDig(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{
			name: "A over UDP with the search list",
			args: []string{"+notcp", "+noall", "+answer", "+search", "kubernetes.default", "A"},
			out:  "kubernetes.default.svc.cluster.local.\t30\tIN\tA\t10.96.0.1\n",
		},
		{
			name: "A over TCP, fully qualified below ndots",
			args: []string{"+tcp", "+noall", "+answer", "+search", "kubernetes.default.svc.cluster.local", "A"},
			out:  "kubernetes.default.svc.cluster.local.\t30\tIN\tA\t10.96.0.1\n",
		},
		{
			name: "AAAA",
			args: []string{"+notcp", "+noall", "+answer", "+search", "web", "AAAA"},
			out:  "web.ns1.svc.cluster.local.\t30\tIN\tAAAA\tfd00::17\n",
		},
		{
			name: "SRV",
			args: []string{"+tcp", "+noall", "+answer", "+search", "_http._tcp.web.ns1.svc", "SRV"},
			out:  "_http._tcp.web.ns1.svc.cluster.local.\t30\tIN\tSRV\t0 100 80 web.ns1.svc.cluster.local.\n",
		},
		{
			name: "PTR by name",
			args: []string{"+notcp", "+noall", "+answer", "+search", "7.1.244.10.in-addr.arpa.", "PTR"},
			out:  "7.1.244.10.in-addr.arpa.\t30\tIN\tPTR\t10-244-1-7.web.ns1.svc.cluster.local.\n",
		},
		{
			name: "PTR with -x",
			args: []string{"+noall", "+answer", "-x", "10.244.1.7"},
			out:  "7.1.244.10.in-addr.arpa.\t30\tIN\tPTR\t10-244-1-7.web.ns1.svc.cluster.local.\n",
		},
		{
			name: "short",
			args: []string{"+short", "kubernetes.default.svc.cluster.local.", "A"},
			out:  "10.96.0.1\n",
		},
		{
			name: "NXDOMAIN answers nothing and succeeds",
			args: []string{"+notcp", "+noall", "+answer", "+search", "nope", "A"},
		},
		{
			name: "without the search list a short name is not found",
			args: []string{"+noall", "+answer", "kubernetes.default", "A"},
		},
		{
			name: "a server that does not answer",
			args: []string{"@10.96.0.99", "+noall", "+answer", "kubernetes.default.svc.cluster.local."},
			code: 9,
			out: strings.Repeat(";; communications error to 10.96.0.99#53: connection refused\n", 3) +
				";; connection timed out; no servers could be reached\n",
		},
	}
	f := vnet.New(router{})
	serveDNS(t, f)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newProc(t, f, append([]string{"dig"}, tt.args...)...)
			if code := Dig(context.Background(), r.p); code != tt.code {
				t.Errorf("status %d, want %d", code, tt.code)
			}
			if got := r.stdout.String(); got != tt.out {
				t.Errorf("output\n%q\nwant\n%q", got, tt.out)
			}
		})
	}
}

func TestGetentHosts(t *testing.T) {
	tests := []struct {
		key  string
		code int
		out  string
	}{
		{key: "querier.web.ns1.svc.cluster.local", out: "10.244.1.7      querier.web.ns1.svc.cluster.local querier\n"},
		{key: "querier", out: "10.244.1.7      querier.web.ns1.svc.cluster.local querier\n"},
		{key: "kubernetes.default", out: "10.96.0.1       kubernetes.default\n"},
		{key: "nope", code: 2},
	}
	f := vnet.New(router{})
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			r := newProc(t, f, "getent", "hosts", tt.key)
			if code := Getent(context.Background(), r.p); code != tt.code {
				t.Errorf("status %d, want %d", code, tt.code)
			}
			if got := r.stdout.String(); got != tt.out {
				t.Errorf("output %q, want %q", got, tt.out)
			}
		})
	}
}

// adapterNet is a Windows pod's network whose adapter carries the DNS
// settings the kubelet gave the pod (winutil.DNSConfiger).
type adapterNet struct {
	program.Net
	servers, search []string
}

func (n adapterNet) DNSServers() []string { return n.servers }
func (n adapterNet) DNSSearch() []string  { return n.search }

// On Windows there is no resolv.conf: BIND's dig takes the adapter's
// servers and search list, as the e2e DNS probers on Windows pods use it.
func TestDigOnWindowsUsesTheAdapter(t *testing.T) {
	f := vnet.New(router{})
	serveDNS(t, f)
	out := &syncbuf.Buffer{}
	host := &vnet.Host{IP: podIP, Scope: "pod", Source: "pod/ns1/querier"}
	p := &program.Proc{
		Args: []string{"dig", "+notcp", "+noall", "+answer", "+search", "kubernetes.default", "A"},
		Dir:  "/", Stdin: strings.NewReader(""), Stdout: out, Stderr: out,
		Sys: &program.Sys{
			FS: vfs.New(vfs.Options{}), Clock: clock.RealClock{}, Windows: true, Programs: Table(),
			Net: adapterNet{Net: f.Net(host), servers: []string{dnsIP.String()}, search: []string{"ns1.svc.cluster.local", "svc.cluster.local", "cluster.local"}},
		},
	}
	if code := Dig(context.Background(), p); code != 0 {
		t.Fatalf("status %d: %s", code, out)
	}
	if want := "kubernetes.default.svc.cluster.local.\t30\tIN\tA\t10.96.0.1\n"; out.String() != want {
		t.Errorf("output %q, want %q", out, want)
	}
}
