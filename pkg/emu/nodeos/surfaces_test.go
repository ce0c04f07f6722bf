package nodeos_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/applets"
	"github.com/winkube/winkube/pkg/emu/nodeos"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

// surface is one place a program reads its OS, and what it must say there
// on a node, worked out from the Node object alone.
type surface struct {
	argv []string
	want func(n *corev1.Node, sys *program.Sys) string
}

// build, ubr and label split nodeInfo.kernelVersion (10.0.build.UBR).
func build(n *corev1.Node) string { return strings.Split(n.Status.NodeInfo.KernelVersion, ".")[2] }
func ubr(n *corev1.Node) string   { return strings.Split(n.Status.NodeInfo.KernelVersion, ".")[3] }
func label(n *corev1.Node) string { return "10.0." + build(n) }

func ps(script string) []string { return []string{"powershell", "-NoProfile", "-Command", script} }

const currentVersion = `'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion'`

var windowsSurfaces = []surface{
	{[]string{"cmd", "/c", "ver"}, func(n *corev1.Node, _ *program.Sys) string {
		return "\r\nMicrosoft Windows [Version " + n.Status.NodeInfo.KernelVersion + "]\r\n"
	}},
	{[]string{"hostname"}, func(_ *corev1.Node, sys *program.Sys) string { return sys.Hostname + "\r\n" }},
	{ps("[Environment]::OSVersion.VersionString; [Environment]::OSVersion.Version.Build"), func(n *corev1.Node, _ *program.Sys) string {
		return "Microsoft Windows NT " + label(n) + ".0\r\n" + build(n) + "\r\n"
	}},
	{ps("$PSVersionTable.PSVersion; $PSVersionTable.BuildVersion"), func(n *corev1.Node, _ *program.Sys) string {
		return "5.1." + build(n) + "." + ubr(n) + "\r\n" + n.Status.NodeInfo.KernelVersion + "\r\n"
	}},
	{ps("$k = Get-ItemProperty " + currentVersion + "; $k.CurrentBuild; $k.UBR; $k.ProductName; $k.EditionID"), func(n *corev1.Node, _ *program.Sys) string {
		return build(n) + "\r\n" + ubr(n) + "\r\n" + n.Status.NodeInfo.OSImage + "\r\nServerDatacenter\r\n"
	}},
	{ps("Get-ItemPropertyValue " + currentVersion + " -Name CurrentBuildNumber"), func(n *corev1.Node, _ *program.Sys) string {
		return build(n) + "\r\n"
	}},
	{ps("$o = Get-CimInstance Win32_OperatingSystem; $o.Caption; $o.Version; $o.BuildNumber; $o.CSName"), func(n *corev1.Node, sys *program.Sys) string {
		return "Microsoft " + n.Status.NodeInfo.OSImage + "\r\n" + label(n) + "\r\n" + build(n) + "\r\n" + strings.ToUpper(sys.Hostname) + "\r\n"
	}},
	{ps("(Get-WmiObject -Class Win32_OperatingSystem).Caption"), func(n *corev1.Node, _ *program.Sys) string {
		return "Microsoft " + n.Status.NodeInfo.OSImage + "\r\n"
	}},
	{ps("$c = Get-ComputerInfo; $c.WindowsProductName; $c.OsBuildNumber; $c.CsName"), func(n *corev1.Node, sys *program.Sys) string {
		return n.Status.NodeInfo.OSImage + "\r\n" + build(n) + "\r\n" + strings.ToUpper(sys.Hostname) + "\r\n"
	}},
	{ps("(Get-NetAdapter | Get-NetIPAddress -AddressFamily IPv4).IPAddress; (Get-NetIPConfiguration).IPv4Address; (Get-DnsClientServerAddress).ServerAddresses"), func(_ *corev1.Node, sys *program.Sys) string {
		n := sys.Net.(podNet)
		return n.IP + "\r\n" + n.IP + "\r\n" + n.DNSServers()[0] + "\r\n"
	}},
	{[]string{"ipconfig"}, func(_ *corev1.Node, sys *program.Sys) string { return sys.Net.(podNet).IP }},
	{[]string{"systeminfo"}, func(n *corev1.Node, sys *program.Sys) string {
		return "OS Name:                   Microsoft " + n.Status.NodeInfo.OSImage + "\r\n" +
			"OS Version:                " + label(n) + " N/A Build " + build(n) + "\r\n"
	}},
}

// podNet is the pod's address and DNS servers, as the node's network gives
// them.
type podNet struct{ *wintest.Net }

func (podNet) DNSServers() []string { return []string{"10.96.0.10"} }
func (podNet) DNSSearch() []string  { return []string{"default.svc.cluster.local"} }

// rule: KLT-1
// Every surface a Windows program reads its OS through reports the node's
// build, UBR and product name: a container on a 2019 node says 2019.
func TestWindowsSurfacesMatchTheNode(t *testing.T) {
	for _, release := range []string{"2019", "2022"} {
		node := nodeos.Release(release, "win-"+release)
		sys := wintest.Sys(winexe.Table())
		sys.OS = nodeos.Of(node) // as the node builds a container's Sys
		sys.Hostname = "web-" + release
		sys.Net = podNet{&wintest.Net{IP: "10.244.1.7"}}
		for _, s := range windowsSurfaces {
			out, errOut, code := wintest.Run(context.Background(), sys, sys.Programs[program.Name(s.argv[0])], "", s.argv...)
			want := s.want(node, sys)
			if code != 0 || errOut != "" || !strings.Contains(out, want) {
				t.Errorf("%s: %q = %q (stderr %q, status %d), want %q", release, s.argv, out, errOut, code, want)
			}
		}
	}
}

// rule: KLT-1
// The registry says DisplayVersion only from 20H2 on: 2022 has 21H2,
// 2019 has its ReleaseId 1809 and no DisplayVersion.
func TestRegistryDisplayVersion(t *testing.T) {
	for release, want := range map[string]string{"2019": "1809\r\n\r\n", "2022": "2009\r\n21H2\r\n"} {
		sys := wintest.Sys(winexe.Table())
		sys.OS = nodeos.Of(nodeos.Release(release, "n"))
		out, _, _ := wintest.Run(context.Background(), sys, sys.Programs["powershell"], "", ps("$k = Get-ItemProperty "+currentVersion+"; $k.ReleaseId; \"$($k.DisplayVersion)\"")...)
		if out != want {
			t.Errorf("%s: ReleaseId, DisplayVersion = %q, want %q", release, out, want)
		}
	}
}

// rule: KLT-1
// A Linux container's uname reports its node's kernel (nodeInfo.kernelVersion)
// and the pod's hostname.
func TestLinuxUnameMatchesTheNode(t *testing.T) {
	node := &corev1.Node{}
	node.Labels = map[string]string{corev1.LabelOSStable: "linux"}
	node.Status.NodeInfo = corev1.NodeSystemInfo{OperatingSystem: "linux", OSImage: "Debian GNU/Linux 12 (bookworm)", KernelVersion: "6.1.0-28-cloud-amd64"}
	sys := &program.Sys{Hostname: "web-0", Programs: applets.Table(), OS: nodeos.Of(node)}
	out, _, code := wintest.Run(context.Background(), sys, applets.Table()["uname"], "", "uname", "-n", "-r")
	if want := "web-0 " + node.Status.NodeInfo.KernelVersion + "\n"; out != want || code != 0 {
		t.Errorf("uname -n -r = %q (%d), want %q", out, code, want)
	}
}
