package sysapplets

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// date [-uRI] [-d DATE] [-r FILE] [+FMT]: the container clock in UTC,
// strftime's directives, -d's forms.
func TestDate(t *testing.T) {
	e := newEnv()
	e.fs.Put("/stamp", "", 0o644)
	e.check(t, []tc{
		{argv: a("date"), out: "Tue Nov 24 10:00:00 UTC 2026\n"},
		{argv: a("date -R"), out: "Tue, 24 Nov 2026 10:00:00 +0000\n"},
		{argv: a("date -I"), out: "2026-11-24\n"},
		{argv: a("date -u +%F_%T"), out: "2026-11-24_10:00:00\n"},
		{argv: a("date +%a|%A|%b|%B|%h|%C|%y|%D"), out: "Tue|Tuesday|Nov|November|Nov|20|26|11/24/26\n"},
		{argv: a("date +%I|%l|%k|%p|%P|%r|%R"), out: "10|10|10|AM|am|10:00:00 AM|10:00\n"},
		{argv: a("date +%u|%w|%j|%s|%N|%z|%Z|%%|%q"), out: "2|2|328|1795514400|000000000|+0000|UTC|%|%q\n"},
		{argv: a("date +%-d|%_m|%e|%-j"), out: "24|11|24|328\n"},
		{argv: []string{"date", "+%c%n%t."}, out: "Tue Nov 24 10:00:00 2026\n\t.\n"},
		{argv: []string{"date", "-d", "2021-02-03 04:05:06", "+%s"}, out: "1612325106\n"},
		{argv: []string{"date", "-d", "2021-02-03 04:05", "+%F %T"}, out: "2021-02-03 04:05:00\n"},
		{argv: a("date -d 2021-02-03 +%F"), out: "2021-02-03\n"},
		{argv: a("date -d @86400 +%F"), out: "1970-01-02\n"},
		{argv: a("date -d 2021-02-03T04:05:06Z +%T"), out: "04:05:06\n"},
		{argv: a("date -r /stamp +%s"), out: "1795514400\n"},
		{argv: a("date -d tomorrow"), err: "date: invalid date 'tomorrow'", code: 1},
		{argv: a("date -r /nosuch"), err: "date: can't stat '/nosuch': No such file or directory", code: 1},
		{argv: a("date -s 2020-01-01"), err: "date: can't set date: Operation not permitted", code: 1},
		{argv: a("date now"), err: "date: invalid date 'now'", code: 1},
		{argv: a("date -x"), err: "date: invalid option -- 'x'", code: 1},
	})
	// 12-hour clock at midnight and noon.
	if got := strftime("%I %l %p", epoch.Add(14*time.Hour)); got != "12 12 AM" {
		t.Errorf("midnight = %q", got)
	}
	if got := strftime("%I %p", epoch.Add(2*time.Hour)); got != "12 PM" {
		t.Errorf("noon = %q", got)
	}
}

// mount lists /proc/mounts (nothing when there is none); -t keeps one
// type; mounting needs root.
func TestMount(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{{argv: a("mount")}})
	e.fs.Put("/proc/mounts", "overlay / overlay rw,relatime 0 0\ntmpfs /dev tmpfs rw,nosuid 0 0\nshort line\n", 0o444)
	e.check(t, []tc{
		{argv: a("mount"), out: "overlay on / type overlay (rw,relatime)\ntmpfs on /dev type tmpfs (rw,nosuid)\n"},
		{argv: a("mount -t tmpfs"), out: "tmpfs on /dev type tmpfs (rw,nosuid)\n"},
		{argv: a("mount -t nfs")},
		{argv: a("mount -o ro /dev/sdb /mnt"), err: "mount: permission denied (are you root?)", code: 255},
		{argv: a("mount -z"), err: "mount: invalid option -- 'z'", code: 1},
	})
}

// stty: the terminal's size and settings; without a terminal it fails.
func TestStty(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{{argv: a("stty size"), err: "stty: standard input: Not a tty", code: 1}})
	term := program.DefaultTerminal()
	for args, want := range map[string]string{
		"stty size": "24 80\n",
		"stty":      "speed 38400 baud; rows 24; columns 80; line = 0;\n",
		"stty -a":   "speed 38400 baud; rows 24; columns 80; line = 0;\nintr = ^C;",
		"stty sane": "",
	} {
		var out bytes.Buffer
		p := &program.Proc{Args: a(args), Dir: "/", Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, TTY: true, Term: term, Sys: e.sys}
		if code := Stty(context.Background(), p); code != 0 || !strings.HasPrefix(out.String(), want) || want == "" && out.Len() > 0 {
			t.Errorf("%s = %q (%d), want %q...", args, out.String(), code, want)
		}
	}
}

// sysctl NAME...: values under /proc/sys, dots as slashes; -a lists
// every key when the FS has them.
func TestSysctlNames(t *testing.T) {
	e := newEnv()
	e.fs.Put("/proc/sys/net/ipv4/ip_forward", "1\n", 0o644)
	e.fs.Put("/proc/sys/kernel/hostname", "web-0\n", 0o644)
	e.check(t, []tc{
		{argv: a("sysctl net.ipv4.ip_forward kernel.hostname"), out: "net.ipv4.ip_forward = 1\nkernel.hostname = web-0\n"},
		{argv: a("sysctl net/ipv4/ip_forward"), out: "net.ipv4.ip_forward = 1\n"},
		{argv: a("sysctl -n kernel.hostname"), out: "web-0\n"},
		{argv: a("sysctl vm.nope"), err: "sysctl: error: 'vm.nope' is an unknown key", code: 1},
		{argv: a("sysctl net.ipv4.ip_forward=0"), out: "net.ipv4.ip_forward = 0\n"},
		{argv: a("sysctl -n net.ipv4.ip_forward"), out: "0\n"},
		{argv: a("sysctl vm.nope=1"), err: "sysctl: error setting key 'vm.nope': No such file or directory", code: 1},
	})
}

// nslookup HOST [SERVER] and ping [-c N] [-q] HOST through the pod
// network's resolver.
func TestNslookupPing(t *testing.T) {
	e := newEnv()
	e.sys.Net = names{"web": {"10.0.0.9"}, "far": {"10.9.9.9"}}
	e.fs.Put("/etc/resolv.conf", "search default.svc.cluster.local\nnameserver 10.96.0.10\n", 0o644)
	e.check(t, []tc{
		{argv: a("nslookup web"), out: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb\nAddress: 10.0.0.9\n\n"},
		{argv: a("nslookup -type=A web 1.1.1.1"), out: "Server:\t\t1.1.1.1\nAddress:\t1.1.1.1:53\n\nName:\tweb\nAddress: 10.0.0.9\n\n"},
		{argv: a("nslookup none"), out: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n** server can't find none: NXDOMAIN\n\n", code: 1},
		{argv: a("nslookup"), err: "Usage: nslookup", code: 1},
		{argv: a("ping -q -c 1 web"), out: "PING web (10.0.0.9): 56 data bytes\n\n--- web ping statistics ---\n" +
			"1 packets transmitted, 1 packets received, 0% packet loss\nround-trip min/avg/max = 0.100/0.100/0.100 ms\n"},
		{argv: a("ping -c1 far"), out: "PING far (10.9.9.9): 56 data bytes\n\n--- far ping statistics ---\n" +
			"1 packets transmitted, 0 packets received, 100% packet loss\n", code: 1},
		{argv: a("ping -c 1 none"), err: "ping: bad address 'none'", code: 1},
		{argv: a("ping"), err: "Usage: ping", code: 1},
		{argv: a("ping -Z web"), err: "ping: invalid option -- 'Z'", code: 1},
	})
}
