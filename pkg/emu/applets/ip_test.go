package applets

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

func ipEnv(pr program.Privileges) *testEnv {
	e := newEnv()
	e.sys.Privileges = pr
	e.sys.Netns = &program.Netns{Addr: netip.MustParsePrefix("10.244.1.5/24"), Gateway: netip.MustParseAddr("10.244.1.1")}
	return e
}

// The e2e test "should run the container as unprivileged when false" runs
// `ip link add dummy0 type dummy` and wants "Operation not permitted" in
// the log; with privileged: true the link is made, silently.
func TestIPLinkAddNeedsNetAdmin(t *testing.T) {
	e := ipEnv(program.Privileges{})
	runCases(t, e, []tc{
		{argv: []string{"ip", "link", "add", "dummy0", "type", "dummy"}, errText: "ip: RTNETLINK answers: Operation not permitted\n", code: 2},
		{argv: []string{"ip", "link", "show", "dummy0"}, errText: "ip: can't find device 'dummy0'\n", code: 1},
	})
	for _, pr := range []program.Privileges{{Privileged: true}, {Add: []string{"NET_ADMIN"}}} {
		e := ipEnv(pr)
		runCases(t, e, []tc{
			{argv: []string{"ip", "link", "add", "dummy0", "type", "dummy"}},
			{argv: []string{"ip", "link", "add", "name", "dummy0", "type", "dummy"}, errText: "ip: RTNETLINK answers: File exists\n", code: 2},
			{argv: []string{"ip", "link", "add", "br0", "type", "bridge"}, errText: "Operation not supported", code: 2},
		})
		out, _, code := e.run(t, "", "ip", "link", "show", "dummy0")
		if code != 0 || !strings.HasPrefix(out, "3: dummy0: <BROADCAST,NOARP> mtu 1500 qdisc noop qlen 1000\n    link/ether ") {
			t.Errorf("%+v: ip link show dummy0 = %q, %d", pr, out, code)
		}
		runCases(t, e, []tc{
			{argv: []string{"ip", "link", "delete", "dummy0"}},
			{argv: []string{"ip", "link", "del", "dummy0"}, errText: "ip: can't find device 'dummy0'\n", code: 1},
		})
	}
	// A privileged container whose user is not root holds no capability.
	e = ipEnv(program.Privileges{Privileged: true})
	e.sys.User.UID = 1000
	runCases(t, e, []tc{{argv: []string{"ip", "link", "add", "dummy0", "type", "dummy"}, errText: "Operation not permitted", code: 2}})
}

func TestIPShow(t *testing.T) {
	e := ipEnv(program.Privileges{})
	lo := "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue qlen 1000\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
	eth := "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP,M-DOWN> mtu 1500 qdisc noqueue\n    link/ether 0a:58:0a:f4:01:05 brd ff:ff:ff:ff:ff:ff\n"
	loAddr := "    inet 127.0.0.1/8 scope host lo\n       valid_lft forever preferred_lft forever\n"
	ethAddr := "    inet 10.244.1.5/24 brd 10.244.1.255 scope global eth0\n       valid_lft forever preferred_lft forever\n"
	route := "default via 10.244.1.1 dev eth0\n10.244.1.0/24 dev eth0 scope link  src 10.244.1.5\n"
	runCases(t, e, []tc{
		{argv: []string{"ip", "link"}, out: lo + eth},
		{argv: []string{"ip", "link", "show"}, out: lo + eth},
		{argv: []string{"ip", "a"}, out: lo + loAddr + eth + ethAddr},
		{argv: []string{"ip", "-4", "addr", "show", "dev", "eth0"}, out: eth + ethAddr},
		{argv: []string{"ip", "route"}, out: route},
		{argv: []string{"ip", "r", "show"}, out: route},
		{argv: []string{"busybox", "ip", "ro"}, out: route},
		// Changing addresses or routes: refused without NET_ADMIN.
		{argv: []string{"ip", "addr", "add", "10.0.0.1/24", "dev", "eth0"}, errText: "Operation not permitted", code: 2},
		{argv: []string{"ip"}, errText: "Usage: ip [OPTIONS] address|route|link", code: 1},
		{argv: []string{"ip", "bogus"}, errText: "Usage: ip", code: 1},
	})
	// Without a namespace to show (no pod address): lo alone, no routes.
	e.sys.Netns = nil
	runCases(t, e, []tc{{argv: []string{"ip", "link"}, out: lo}, {argv: []string{"ip", "route"}}})
}

// busybox-w32 has no ip applet.
func TestIPNotOnWindows(t *testing.T) {
	e := ipEnv(program.Privileges{Privileged: true})
	e.sys.Windows = true
	runCases(t, e, []tc{{argv: []string{"busybox", "ip", "link"}, errText: "ip: applet not found\n", code: 127}})
}
