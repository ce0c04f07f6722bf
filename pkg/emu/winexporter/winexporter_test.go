package winexporter

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/clock"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/nodeos"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

type direct struct{}

func (direct) Route(_ vnet.Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	return dst, nil
}

func (direct) Lookup(context.Context, vnet.Host, string) ([]netip.Addr, error) { return nil, nil }

// nodeIP is the address of the HostProcess pod: its node's.
var nodeIP = netip.MustParseAddr("10.0.0.4")

// exporter is a running windows_exporter in a HostProcess container of a
// Windows Server node of release, on a fresh emulated network.
type exporter struct {
	t      *testing.T
	fabric *vnet.Fabric
	ctx    context.Context
	sys    *program.Sys
	out    *syncbuf.Buffer
	code   int
}

func newSys(t *testing.T, release string) (*program.Sys, *vnet.Fabric, context.Context) {
	t.Helper()
	f := vnet.New(direct{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	host := &vnet.Host{IP: nodeIP, Scope: "node/win-1", Source: "node/win-1"}
	sys := &program.Sys{
		Windows: true, FS: vfs.New(vfs.Options{Windows: true}), Clock: clock.RealClock{},
		Hostname: "win-1", User: program.User{Account: `NT AUTHORITY\system`},
		Net: f.Net(host), OS: nodeos.Of(nodeos.Release(release, "win-1")), Programs: Table(),
	}
	_ = sys.FS.MkdirAll(`C:\hpc`, 0o755)
	return sys, f, ctx
}

func start(t *testing.T, sys *program.Sys, f *vnet.Fabric, ctx context.Context, args ...string) *exporter {
	t.Helper()
	e := &exporter{t: t, fabric: f, ctx: ctx, sys: sys, out: &syncbuf.Buffer{}}
	p := &program.Proc{Args: append([]string{`C:\hpc\windows_exporter.exe`}, args...), Dir: `C:\hpc`,
		Env: []string{"NUMBER_OF_PROCESSORS=2"}, Stdout: e.out, Stderr: e.out, Sys: sys}
	e.code, _ = sys.Start(ctx, p)
	return e
}

// get asks the exporter for path from another host of the network.
func (e *exporter) get(port int, path string) (int, string, http.Header) {
	e.t.Helper()
	client := vnet.Host{IP: netip.MustParseAddr("10.244.2.3"), Scope: "pod", Source: "pod/monitoring/prometheus"}
	c, err := e.fabric.Dial(e.ctx, client, "tcp", nodeIP.String()+":"+strconv.Itoa(port))
	if err != nil {
		e.t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	req, _ := http.NewRequest("GET", "http://"+nodeIP.String()+":"+strconv.Itoa(port)+path, nil)
	if err := req.Write(c); err != nil {
		e.t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		e.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header
}

// The chart's container: the config file from the ConfigMap enables
// [defaults],memory,container; /health answers its JSON, /metrics the
// windows_* series with the node's build, and the start lines are
// upstream's.
func TestChartContainerServesHealthAndMetrics(t *testing.T) {
	for _, release := range []string{"2019", "2022"} {
		t.Run(release, func(t *testing.T) {
			sys, f, ctx := newSys(t, release)
			writeFile(t, sys, `C:\hpc\config.yml`, "collectors:\n  enabled: '[defaults],memory,container'\n")
			e := start(t, sys, f, ctx, `--config.file=C:\hpc\/config.yml`, `--collector.textfile.directories=C:\hpc\`, "--web.listen-address=:9182")
			if e.code != program.Forever {
				t.Fatalf("status %d, output:\n%s", e.code, e.out)
			}
			for _, line := range []string{
				`level=INFO msg="using configuration file: C:\\hpc\\/config.yml"`,
				`msg="Running as NT AUTHORITY\\system"`,
				`msg="Enabled collectors: cpu, memory, logical_disk, physical_disk, net, os, service, system, memory, container"`,
				`version=0.31.8`,
				`msg="Listening on" address=[::]:9182`,
			} {
				if !strings.Contains(e.out.String(), line) {
					t.Errorf("log lacks %s:\n%s", line, e.out)
				}
			}
			code, body, h := e.get(9182, "/health")
			if code != 200 || body != `{"status":"ok"}` || h.Get("Content-Type") != "application/json" {
				t.Errorf("/health = %d %q %v", code, body, h)
			}
			code, body, _ = e.get(9182, "/metrics")
			o := sys.OS
			want := `windows_os_info{build_number="` + strconv.Itoa(o.Build) + `",major_version="10",minor_version="0",product="` + o.ProductName +
				`",revision="` + strconv.Itoa(o.UBR) + `",version="10.0.` + strconv.Itoa(o.Build) + `"} 1`
			for _, s := range []string{want, `windows_os_hostname{domain="",fqdn="win-1",hostname="win-1"} 1`,
				"windows_cpu_logical_processor 2", `windows_cpu_time_total{core="0,1",mode="idle"}`,
				`windows_net_nic_address_info{address="10.0.0.4",family="ipv4",nic="Hyper-V Virtual Ethernet Adapter"} 1`,
				`windows_exporter_collector_success{collector="container"} 1`,
				`windows_exporter_build_info{branch="HEAD",goarch="amd64",goos="windows"`,
				"# HELP windows_memory_process_memory_limit_bytes",
				"promhttp_metric_handler_requests_total"} {
				if !strings.Contains(body, s) {
					t.Errorf("/metrics lacks %s", s)
				}
			}
			if code != 200 {
				t.Errorf("/metrics = %d", code)
			}
			if code, body, _ := e.get(9182, "/"); code != 404 || body != "404 page not found\n" {
				t.Errorf("/ = %d %q, want net/http's 404 (v0.31.8 has no landing page)", code, body)
			}
		})
	}
}

// Machine stats from the node become the memory, service and container
// series.
func TestMachineStatsSeries(t *testing.T) {
	sys, f, ctx := newSys(t, "2022")
	boot := time.Now().Add(-time.Hour)
	sys.Machine = func() program.MachineStats {
		return program.MachineStats{
			Boot: boot, LogicalProcessors: 4, MemoryBytes: 8 << 30, MemoryAvailableBytes: 6 << 30, CPUBusy: 10 * time.Minute,
			Services: []program.Service{{Name: "containerd", DisplayName: "containerd", State: "running", StartMode: "auto", PID: 1234, Started: boot}},
			Containers: []program.ContainerStats{{ID: "abc", Namespace: "default", Pod: "web", Container: "iis",
				CPU: 3 * time.Second, CPUUser: 2 * time.Second, WorkingSetBytes: 100 << 20, CommitBytes: 120 << 20, Interface: "eth0", BytesReceived: 42}},
		}
	}
	e := start(t, sys, f, ctx, "--collectors.enabled=memory,service,container,cpu,system")
	_, body, _ := e.get(9182, "/metrics")
	for _, s := range []string{
		"windows_memory_physical_total_bytes 8.589934592e+09", "windows_memory_physical_free_bytes 6.442450944e+09",
		"windows_cpu_logical_processor 4",
		`windows_service_state{name="containerd",state="running"} 1`, `windows_service_state{name="containerd",state="stopped"} 0`,
		`windows_service_process{name="containerd",process_id="1234"}`,
		"windows_container_count 1",
		`windows_container_cpu_usage_seconds_total{container="iis",container_id="containerd://abc",namespace="default",pod="web"} 3`,
		`windows_container_network_receive_bytes_total{container="iis",container_id="containerd://abc",interface="eth0",namespace="default",pod="web"} 42`,
		"windows_system_boot_time_timestamp",
	} {
		if !strings.Contains(body, s) {
			t.Errorf("/metrics lacks %s", s)
		}
	}
}

// --collectors.enabled limits the series to those collectors; a scrape's
// collect[] may narrow them, and asking for one not enabled is a 400.
func TestCollectorsEnabledLimitsSeries(t *testing.T) {
	sys, f, ctx := newSys(t, "2022")
	e := start(t, sys, f, ctx, "--collectors.enabled=os", "--web.listen-address=:9100")
	_, body, _ := e.get(9100, "/metrics")
	if !strings.Contains(body, "windows_os_info{") || strings.Contains(body, "windows_cpu_") || strings.Contains(body, `collector="cpu"`) {
		t.Errorf("os only:\n%s", body)
	}
	if code, body, _ := e.get(9100, "/metrics?collect[]=os"); code != 200 || !strings.Contains(body, "windows_os_info{") {
		t.Errorf("collect[]=os: %d %q", code, body)
	}
	code, body, _ := e.get(9100, "/metrics?collect[]=cpu")
	if code != 400 || body != "Couldn't create filtered metrics handler: couldn't create collector handler: failed to create handler with collectors: unknown collector cpu" {
		t.Errorf("collect[]=cpu: %d %q", code, body)
	}
}

// Bad input fails as the real program does: kingpin's and the
// collection's errors, status 1.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag"}, `ERROR Failed to load configuration err="failed to parse flags: unknown long flag '--no-such-flag'"`},
		{[]string{"--collectors.enabled=cs"}, `level=ERROR msg="couldn't enable collectors" err="unknown collector cs"`},
		{[]string{`--config.file=C:\missing.yml`}, `err="failed to load configuration file: failed to open configuration file: open C:\\missing.yml: The system cannot find the file specified."`},
		{[]string{"--log.level=loud"}, `failed to parse flags: unrecognized log level`},
	} {
		sys, f, ctx := newSys(t, "2022")
		e := start(t, sys, f, ctx, c.args...)
		if e.code != 1 || !strings.Contains(e.out.String(), c.want) {
			t.Errorf("%q: status %d, output %q, want %q", c.args, e.code, e.out, c.want)
		}
	}
	sys, f, ctx := newSys(t, "2022")
	writeFile(t, sys, `C:\bad.yml`, "collectors:\n  enable: cpu\n")
	e := start(t, sys, f, ctx, `--config.file=C:\bad.yml`)
	if e.code != 1 || !strings.Contains(e.out.String(), "configuration file validation error") {
		t.Errorf("unknown key: %d %q", e.code, e.out)
	}
	// The port is taken: the second exporter cannot bind it.
	sys, f, ctx = newSys(t, "2022")
	start(t, sys, f, ctx)
	e = start(t, sys, f, ctx)
	if e.code != 1 || !strings.Contains(e.out.String(), "Only one usage of each socket address") {
		t.Errorf("port taken: %d %q", e.code, e.out)
	}
}

// --version prints version.Print's text and exits 0.
func TestVersion(t *testing.T) {
	sys, f, ctx := newSys(t, "2022")
	e := start(t, sys, f, ctx, "--version")
	if e.code != 0 || !strings.HasPrefix(e.out.String(), "windows_exporter, version 0.31.8 (branch: HEAD, revision: ") {
		t.Errorf("--version: %d %q", e.code, e.out)
	}
}

func writeFile(t *testing.T, sys *program.Sys, name, text string) {
	t.Helper()
	w, err := sys.FS.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(w, text)
	w.Close()
}
