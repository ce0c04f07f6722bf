package sysapplets

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/applets/applettest"
	"github.com/winkube/winkube/pkg/emu/program"
)

// date [-uRI] [-d DATE] [-r FILE] [+FMT]: the container clock in UTC,
// strftime's directives, -d's forms.
func TestDate(t *testing.T) {
	e := newEnv()
	e.FS.Put("/stamp", "", 0o644)
	e.Check(t, []tc{
		{Argv: a("date"), Out: "Tue Nov 24 10:00:00 UTC 2026\n"},
		{Argv: a("date -R"), Out: "Tue, 24 Nov 2026 10:00:00 +0000\n"},
		{Argv: a("date -I"), Out: "2026-11-24\n"},
		{Argv: a("date -u +%F_%T"), Out: "2026-11-24_10:00:00\n"},
		{Argv: a("date +%a|%A|%b|%B|%h|%C|%y|%D"), Out: "Tue|Tuesday|Nov|November|Nov|20|26|11/24/26\n"},
		{Argv: a("date +%I|%l|%k|%p|%P|%r|%R"), Out: "10|10|10|AM|am|10:00:00 AM|10:00\n"},
		{Argv: a("date +%u|%w|%j|%s|%N|%z|%Z|%%|%q"), Out: "2|2|328|1795514400|000000000|+0000|UTC|%|%q\n"},
		{Argv: a("date +%-d|%_m|%e|%-j"), Out: "24|11|24|328\n"},
		{Argv: []string{"date", "+%c%n%t."}, Out: "Tue Nov 24 10:00:00 2026\n\t.\n"},
		{Argv: []string{"date", "-d", "2021-02-03 04:05:06", "+%s"}, Out: "1612325106\n"},
		{Argv: []string{"date", "-d", "2021-02-03 04:05", "+%F %T"}, Out: "2021-02-03 04:05:00\n"},
		{Argv: a("date -d 2021-02-03 +%F"), Out: "2021-02-03\n"},
		{Argv: a("date -d @86400 +%F"), Out: "1970-01-02\n"},
		{Argv: a("date -d 2021-02-03T04:05:06Z +%T"), Out: "04:05:06\n"},
		{Argv: a("date -r /stamp +%s"), Out: "1795514400\n"},
		{Argv: a("date -d tomorrow"), Err: "date: invalid date 'tomorrow'", Code: 1},
		{Argv: a("date -r /nosuch"), Err: "date: can't stat '/nosuch': No such file or directory", Code: 1},
		{Argv: a("date -s 2020-01-01"), Err: "date: can't set date: Operation not permitted", Code: 1},
		{Argv: a("date now"), Err: "date: invalid date 'now'", Code: 1},
		{Argv: a("date -x"), Err: "date: invalid option -- 'x'", Code: 1},
	})
	// 12-hour clock at midnight and noon.
	if got := strftime("%I %l %p", applettest.Epoch.Add(14*time.Hour)); got != "12 12 AM" {
		t.Errorf("midnight = %q", got)
	}
	if got := strftime("%I %p", applettest.Epoch.Add(2*time.Hour)); got != "12 PM" {
		t.Errorf("noon = %q", got)
	}
}

// mount lists /proc/mounts (nothing when there is none); -t keeps one
// type; mounting needs root.
func TestMount(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{{Argv: a("mount")}})
	e.FS.Put("/proc/mounts", "overlay / overlay rw,relatime 0 0\ntmpfs /dev tmpfs rw,nosuid 0 0\nshort line\n", 0o444)
	e.Check(t, []tc{
		{Argv: a("mount"), Out: "overlay on / type overlay (rw,relatime)\ntmpfs on /dev type tmpfs (rw,nosuid)\n"},
		{Argv: a("mount -t tmpfs"), Out: "tmpfs on /dev type tmpfs (rw,nosuid)\n"},
		{Argv: a("mount -t nfs")},
		{Argv: a("mount -o ro /dev/sdb /mnt"), Err: "mount: permission denied (are you root?)", Code: 255},
		{Argv: a("mount -z"), Err: "mount: invalid option -- 'z'", Code: 1},
	})
}

// stty: the terminal's size and settings; without a terminal it fails.
func TestStty(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{{Argv: a("stty size"), Err: "stty: standard input: Not a tty", Code: 1}})
	term := program.DefaultTerminal()
	for args, want := range map[string]string{
		"stty size": "24 80\n",
		"stty":      "speed 38400 baud; rows 24; columns 80; line = 0;\n",
		"stty -a":   "speed 38400 baud; rows 24; columns 80; line = 0;\nintr = ^C;",
		"stty sane": "",
	} {
		var out bytes.Buffer
		p := &program.Proc{Args: a(args), Dir: "/", Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, TTY: true, Term: term, Sys: e.Sys}
		if code := Stty(context.Background(), p); code != 0 || !strings.HasPrefix(out.String(), want) || want == "" && out.Len() > 0 {
			t.Errorf("%s = %q (%d), want %q...", args, out.String(), code, want)
		}
	}
}

// sysctl NAME...: values under /proc/sys, dots as slashes; -a lists
// every key when the FS has them.
func TestSysctlNames(t *testing.T) {
	e := newEnv()
	e.FS.Put("/proc/sys/net/ipv4/ip_forward", "1\n", 0o644)
	e.FS.Put("/proc/sys/kernel/hostname", "web-0\n", 0o644)
	e.Check(t, []tc{
		{Argv: a("sysctl net.ipv4.ip_forward kernel.hostname"), Out: "net.ipv4.ip_forward = 1\nkernel.hostname = web-0\n"},
		{Argv: a("sysctl net/ipv4/ip_forward"), Out: "net.ipv4.ip_forward = 1\n"},
		{Argv: a("sysctl -n kernel.hostname"), Out: "web-0\n"},
		{Argv: a("sysctl vm.nope"), Err: "sysctl: error: 'vm.nope' is an unknown key", Code: 1},
		{Argv: a("sysctl net.ipv4.ip_forward=0"), Out: "net.ipv4.ip_forward = 0\n"},
		{Argv: a("sysctl -n net.ipv4.ip_forward"), Out: "0\n"},
		{Argv: a("sysctl vm.nope=1"), Err: "sysctl: error setting key 'vm.nope': No such file or directory", Code: 1},
	})
}

// nslookup HOST [SERVER] and ping [-c N] [-q] HOST through the pod
// network's resolver.
func TestNslookupPing(t *testing.T) {
	e := newEnv()
	e.Sys.Net = names{"web": {"10.0.0.9"}, "far": {"10.9.9.9"}}
	e.FS.Put("/etc/resolv.conf", "search default.svc.cluster.local\nnameserver 10.96.0.10\n", 0o644)
	e.Check(t, []tc{
		{Argv: a("nslookup web"), Out: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb\nAddress: 10.0.0.9\n\n"},
		{Argv: a("nslookup -type=A web 1.1.1.1"), Out: "Server:\t\t1.1.1.1\nAddress:\t1.1.1.1:53\n\nName:\tweb\nAddress: 10.0.0.9\n\n"},
		{Argv: a("nslookup none"), Out: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n** server can't find none: NXDOMAIN\n\n", Code: 1},
		{Argv: a("nslookup"), Err: "Usage: nslookup", Code: 1},
		{Argv: a("ping -q -c 1 web"), Out: "PING web (10.0.0.9): 56 data bytes\n\n--- web ping statistics ---\n" +
			"1 packets transmitted, 1 packets received, 0% packet loss\nround-trip min/avg/max = 0.100/0.100/0.100 ms\n"},
		{Argv: a("ping -c1 far"), Out: "PING far (10.9.9.9): 56 data bytes\n\n--- far ping statistics ---\n" +
			"1 packets transmitted, 0 packets received, 100% packet loss\n", Code: 1},
		{Argv: a("ping -c 1 none"), Err: "ping: bad address 'none'", Code: 1},
		{Argv: a("ping"), Err: "Usage: ping", Code: 1},
		{Argv: a("ping -Z web"), Err: "ping: invalid option -- 'Z'", Code: 1},
	})
}
