// Package userland is what programs an image offers its containers, by
// what winkube knows of the image: pause images their pause (and, on
// Windows, cmd.exe and the system tools); Linux images a busybox
// userland with a shell; Windows images cmd.exe, the Windows tools,
// PowerShell and LogMonitor.exe; the e2e test images agnhost, dig and the
// like; the daemons of common images; redis's images redis-cli;
// etcd's images etcd (pkg/emu/etcd); the sample-apiserver image wardle
// (pkg/emu/wardle);
// windows-exporter's image windows_exporter.exe; Fluent Bit's images
// fluent-bit (pkg/emu/fluentbit); winkube's own image
// winkube; the CSI images their sidecar or driver (pkg/emu/csi).
package userland

import (
	"path"
	"strings"
	"sync"

	"github.com/winkube/winkube/pkg/emu/agnhost"
	"github.com/winkube/winkube/pkg/emu/applets"
	"github.com/winkube/winkube/pkg/emu/archive"
	"github.com/winkube/winkube/pkg/emu/csi"
	"github.com/winkube/winkube/pkg/emu/daemons"
	"github.com/winkube/winkube/pkg/emu/dnsutils"
	"github.com/winkube/winkube/pkg/emu/dumpapplets"
	"github.com/winkube/winkube/pkg/emu/etcd"
	"github.com/winkube/winkube/pkg/emu/fluentbit"
	"github.com/winkube/winkube/pkg/emu/logmonitor"
	"github.com/winkube/winkube/pkg/emu/netapplets"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/redis"
	"github.com/winkube/winkube/pkg/emu/selfimage"
	"github.com/winkube/winkube/pkg/emu/sh"
	"github.com/winkube/winkube/pkg/emu/wardle"
	"github.com/winkube/winkube/pkg/emu/winexe"
	"github.com/winkube/winkube/pkg/emu/winexporter"
	"github.com/winkube/winkube/pkg/imageinfo"
)

// The program tables are built once; Of copies what an image
// offers from them.
var (
	linuxTable   = buildLinuxTable()
	windowsTable = winexe.Table()
	agnhostProgs = agnhost.Table()
	daemonProgs  = daemons.Table()
)

// buildLinuxTable is a busybox userland: the shell and its applets
// (hexdump, hd, xxd and od from dumpapplets).
func buildLinuxTable() map[string]program.Main {
	t := applets.Table()
	for _, name := range []string{"sh", "bash", "ash", "dash"} {
		t[name] = sh.Main
	}
	t["tar"] = archive.Tar
	for name, m := range dumpapplets.Table() {
		t[name] = m
	}
	return t
}

func linuxUserland() map[string]program.Main   { return linuxTable }
func windowsUserland() map[string]program.Main { return windowsTable }
func agnhostTable() map[string]program.Main    { return agnhostProgs }
func daemonsTable() map[string]program.Main    { return daemonProgs }

// Of is the programs an image offers, by what winkube knows of
// it: the pause image runs pause alone (on Windows, beside Nano Server's
// cmd.exe and tools); Windows images have cmd.exe, the
// Windows tools and (Server Core) PowerShell; Linux images a busybox or
// coreutils userland with a shell; the e2e test images agnhost too (their
// Windows variants ship busybox as well); winkube's own image runs winkube
// (`webhook serve`); windows-exporter's image windows_exporter.exe. Tables are shared per kind of image, not made per
// container.
func Of(ref string, win bool) map[string]program.Main {
	repo := imageinfo.Repository(ref)
	k := imageKind{
		pause:   strings.HasSuffix(repo, "/pause"),
		busybox: !win || E2ETestImage(ref),
		agnhost: strings.HasSuffix(repo, "/agnhost") || strings.HasSuffix(repo, "/kitten") || strings.HasSuffix(repo, "/nautilus"), // agnhost with two files more
		nnp:     strings.HasSuffix(repo, "/nonewprivs"),
		// glibc-dns-testing is the e2e DNS probers' image (v1.36's),
		// jessie-dnsutils before: Debian with BIND's tools and glibc.
		dnsutils: strings.HasSuffix(repo, "/jessie-dnsutils") || strings.HasSuffix(repo, "/glibc-dns-testing"),
		winkube:  repo == selfimage.Repository,
		// windows-exporter's image (ghcr.io, Docker Hub and quay.io
		// publish it) is windows_exporter.exe on the HostProcess base.
		winexporter: strings.HasSuffix(repo, "/windows-exporter") && win,
		// redis's images (library/redis, bitnami/redis, ...) ship redis-cli.
		redis: path.Base(repo) == "redis",
		// Fluent Bit's images (cr.fluentbit.io/fluent/fluent-bit and
		// its mirrors) ship fluent-bit, Linux and Windows alike.
		fluentbit: path.Base(repo) == "fluent-bit",
		// etcd's images (registry.k8s.io/etcd, quay.io/coreos/etcd, ...)
		// ship the etcd server.
		etcd: path.Base(repo) == "etcd",
		// The e2e sample-apiserver image is the wardle server alone.
		sampleAPIServer: strings.HasSuffix(repo, "/sample-apiserver"),
		windows:         win,
	}
	if csi.Is(ref) {
		// The CSI images' programs carry the version of the image's
		// tag: a table per reference.
		k.csi = ref
	}
	if t, ok := kindTables.Load(k); ok {
		return t.(map[string]program.Main)
	}
	t := k.table()
	kindTables.Store(k, t)
	return t
}

// E2ETestImage: one of Kubernetes' e2e test images, whose Windows
// variants are built on a busybox layer (busybox.exe with its applets,
// C:\tmp).
func E2ETestImage(ref string) bool {
	return strings.HasPrefix(imageinfo.Repository(ref), "registry.k8s.io/e2e-test-images/")
}

type imageKind struct {
	pause, busybox, agnhost, nnp, dnsutils, winkube, winexporter, redis, etcd, fluentbit, sampleAPIServer, windows bool
	// csi is the reference of a CSI sidecar or driver image ("" for
	// others).
	csi string
}

var kindTables sync.Map

func (k imageKind) table() map[string]program.Main {
	out := map[string]program.Main{}
	add := func(t map[string]program.Main) {
		for name, m := range t {
			out[name] = m
		}
	}
	if k.pause {
		// The Windows pause image is Nano Server: cmd.exe and the
		// system tools are there (tests exec them), PowerShell is not.
		if k.windows {
			add(windowsUserland())
			delete(out, "powershell")
			delete(out, "pwsh")
		}
		out["pause"] = daemonsTable()["pause"]
		return out
	}
	add(daemonsTable())
	if k.busybox {
		add(linuxUserland())
	}
	if k.windows {
		add(windowsUserland())
		// LogMonitor.exe is no part of Windows: images COPY it in
		// (C:\LogMonitor\LogMonitor.exe) and name it in their
		// ENTRYPOINT. winkube cannot see an image's files, so every
		// Windows image but pause offers it, and a command that names it
		// runs it.
		add(logmonitor.Table())
		delete(out, "ip") // busybox-w32 has no ip applet
		if k.busybox {
			// The e2e test images' C:\bin, ahead of System32 on PATH:
			// netcat 1.12 NT as nc.exe (busybox.exe has no nc), and
			// busybox's timeout rather than Windows' timeout.exe.
			out["nc"] = netapplets.NcWin32
			out["timeout"] = netapplets.Timeout
			out["tar"] = archive.Tar // busybox's tar, ahead of System32's tar.exe (bsdtar)
			// The e2e images' own hostname.exe (a Go program) in C:\bin,
			// and ISC BIND's dig in C:\dig, both ahead of System32.
			out["hostname"] = winexe.E2EHostname
			out["dig"] = dnsutils.Dig
		}
	}
	if k.nnp {
		out["nnp"] = agnhost.NNP
	}
	if k.agnhost {
		add(agnhostTable())
		if !k.windows {
			// agnhost's Linux image adds curl to its Alpine base.
			out["curl"] = winexe.Curl
		}
	}
	if k.dnsutils && !k.windows {
		add(dnsutils.Table()) // dig, getent
	}
	if k.winkube {
		add(selfimage.Table())
	}
	if k.winexporter {
		add(winexporter.Table())
	}
	if k.redis && !k.windows {
		out["redis-cli"] = redis.CLI
	}
	if k.etcd {
		add(etcd.Table())
	}
	if k.fluentbit {
		add(fluentbit.Table())
	}
	if k.sampleAPIServer {
		add(wardle.Table())
	}
	if k.csi != "" {
		add(csi.Table(k.csi))
	}
	return out
}
