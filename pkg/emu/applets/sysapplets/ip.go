package sysapplets

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/network/cni"
)

// IP is busybox's ip for what pods and tests do with it: list links,
// addresses and routes of the container's namespace (Sys.Netns), and add
// or delete a dummy link. Changing the namespace needs CAP_NET_ADMIN, as
// the kernel checks it for every rtnetlink request that is not a read;
// other changes (addresses, routes, link settings) the emulation does not
// model, and says so as the kernel does for an operation it lacks.
func IP(_ context.Context, p *program.Proc) int {
	if p.Sys.Windows {
		// busybox-w32 has no ip applet.
		fmt.Fprintf(p.Stderr, "%s: applet not found\n", p.Args[0])
		return 127
	}
	args := p.Args[1:]
	// -4, -6, -o, -f FAMILY: the emulation has one IPv4 view.
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		if abbrev(args[0], "-family", 2) && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return ipUsage(p)
	}
	obj, rest := args[0], args[1:]
	switch {
	case abbrev(obj, "address", 1):
		return ipAddr(p, rest)
	case abbrev(obj, "link", 1):
		return ipLink(p, rest)
	case abbrev(obj, "route", 1):
		return ipRoute(p, rest)
	}
	return ipUsage(p)
}

// abbrev: s is word or a prefix of it at least min long, as busybox
// matches ip's keywords.
func abbrev(s, word string, min int) bool {
	return len(s) >= min && strings.HasPrefix(word, s)
}

func ipUsage(p *program.Proc) int {
	fmt.Fprint(p.Stderr, `BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary.

Usage: ip [OPTIONS] address|route|link|tunnel|neigh|rule [ARGS]

OPTIONS := -f[amily] inet|inet6|link | -o[neline]

ip addr add|del IFADDR dev IFACE | show|flush [dev IFACE] [to PREFIX]
ip route list|flush|add|del|change|append|replace|test ROUTE
ip link set IFACE [up|down] [arp on|off] [multicast on|off]
	[promisc on|off] [mtu NUM] [name NAME] [qlen NUM] [address MAC]
	[master IFACE | nomaster] [netns PID]
`)
	return 1
}

// listing: no command, or show/list/lst with an optional [dev] NAME.
func listing(args []string) (name string, ok bool) {
	if len(args) == 0 {
		return "", true
	}
	if !abbrev(args[0], "show", 1) && !abbrev(args[0], "list", 1) && args[0] != "lst" {
		return "", false
	}
	args = args[1:]
	if len(args) > 0 && args[0] == "dev" {
		args = args[1:]
	}
	if len(args) > 0 {
		name = args[0]
	}
	return name, true
}

// change answers a request that would change the namespace: EPERM
// without CAP_NET_ADMIN, else what the emulation does not model.
func change(p *program.Proc) int {
	if !p.Sys.HasCap("NET_ADMIN") {
		return rtnetlink(p, "Operation not permitted")
	}
	return rtnetlink(p, "Operation not supported")
}

func rtnetlink(p *program.Proc, what string) int {
	kit.Errorf(p, "RTNETLINK answers: %s", what)
	return 2
}

func ipAddr(p *program.Proc, args []string) int {
	name, ok := listing(args)
	if !ok {
		return change(p)
	}
	return showLinks(p, name, true)
}

func ipRoute(p *program.Proc, args []string) int {
	if _, ok := listing(args); !ok {
		return change(p)
	}
	ns := p.Sys.Netns
	if ns == nil || !ns.Addr.IsValid() {
		return 0
	}
	if ns.Gateway.IsValid() {
		fmt.Fprintf(p.Stdout, "default via %s dev eth0\n", ns.Gateway)
	}
	fmt.Fprintf(p.Stdout, "%s dev eth0 scope link  src %s\n", ns.Addr.Masked(), ns.Addr.Addr())
	return 0
}

func ipLink(p *program.Proc, args []string) int {
	if name, ok := listing(args); ok {
		return showLinks(p, name, false)
	}
	switch {
	case abbrev(args[0], "add", 1):
		return linkAdd(p, args[1:])
	case abbrev(args[0], "delete", 1):
		return linkDelete(p, args[1:])
	}
	return change(p)
}

// linkAdd is `ip link add [name] NAME type dummy`.
func linkAdd(p *program.Proc, args []string) int {
	var name, kind string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "name" || a == "dev" || a == "type") && i+1 < len(args):
			if a == "type" {
				kind = args[i+1]
			} else {
				name = args[i+1]
			}
			i++
		default:
			name = a
		}
	}
	if !p.Sys.HasCap("NET_ADMIN") {
		return rtnetlink(p, "Operation not permitted")
	}
	if name == "" || kind != "dummy" || p.Sys.Netns == nil {
		return rtnetlink(p, "Operation not supported")
	}
	if !p.Sys.Netns.AddLink(name) {
		return rtnetlink(p, "File exists")
	}
	return 0
}

// linkDelete is `ip link delete [dev] NAME`: the name is resolved before
// the request, so an unknown one fails without the capability too.
func linkDelete(p *program.Proc, args []string) int {
	if len(args) > 0 && args[0] == "dev" {
		args = args[1:]
	}
	if len(args) == 0 {
		return ipUsage(p)
	}
	name := args[0]
	if _, ok := findLink(p.Sys.Netns, name); !ok {
		kit.Errorf(p, "can't find device '%s'", name)
		return 1
	}
	if !p.Sys.HasCap("NET_ADMIN") {
		return rtnetlink(p, "Operation not permitted")
	}
	if p.Sys.Netns == nil || !p.Sys.Netns.DeleteLink(name) {
		return rtnetlink(p, "Operation not supported")
	}
	return 0
}

// iface is one link as ip prints it.
type iface struct {
	index int
	name  string
	flags string
	mtu   int
	qdisc string
	qlen  bool
	kind  string // link/loopback or link/ether
	mac   string
	inet  []string
}

func links(ns *program.Netns) []iface {
	out := []iface{{index: 1, name: "lo", flags: "LOOPBACK,UP,LOWER_UP", mtu: 65536, qdisc: "noqueue", qlen: true,
		kind: "link/loopback", mac: "00:00:00:00:00:00", inet: []string{"127.0.0.1/8 scope host lo"}}}
	if ns == nil {
		return out
	}
	if ns.Addr.IsValid() {
		a := ns.Addr.Addr().As4()
		eth := iface{index: 2, name: "eth0", flags: "BROADCAST,MULTICAST,UP,LOWER_UP,M-DOWN", mtu: 1500, qdisc: "noqueue",
			kind: "link/ether", mac: fmt.Sprintf("0a:58:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3])}
		eth.inet = []string{fmt.Sprintf("%s brd %s scope global eth0", ns.Addr, cni.Broadcast(ns.Addr))}
		out = append(out, eth)
	}
	for _, l := range ns.Added() {
		out = append(out, iface{index: l.Index, name: l.Name, flags: "BROADCAST,NOARP", mtu: 1500, qdisc: "noop", qlen: true,
			kind: "link/ether", mac: dummyMAC(l.Name)})
	}
	return out
}

func findLink(ns *program.Netns, name string) (iface, bool) {
	for _, l := range links(ns) {
		if l.name == name {
			return l, true
		}
	}
	return iface{}, false
}

// showLinks prints every link, or the one named, with its addresses when
// withAddrs (ip addr).
func showLinks(p *program.Proc, name string, withAddrs bool) int {
	all := links(p.Sys.Netns)
	if name != "" {
		l, ok := findLink(p.Sys.Netns, name)
		if !ok {
			kit.Errorf(p, "can't find device '%s'", name)
			return 1
		}
		all = []iface{l}
	}
	for _, l := range all {
		fmt.Fprintf(p.Stdout, "%d: %s: <%s> mtu %d qdisc %s", l.index, l.name, l.flags, l.mtu, l.qdisc)
		if l.qlen {
			fmt.Fprint(p.Stdout, " qlen 1000")
		}
		fmt.Fprintf(p.Stdout, "\n    %s %s brd ", l.kind, l.mac)
		if l.kind == "link/loopback" {
			fmt.Fprintln(p.Stdout, "00:00:00:00:00:00")
		} else {
			fmt.Fprintln(p.Stdout, "ff:ff:ff:ff:ff:ff")
		}
		if !withAddrs {
			continue
		}
		for _, a := range l.inet {
			fmt.Fprintf(p.Stdout, "    inet %s\n       valid_lft forever preferred_lft forever\n", a)
		}
	}
	return 0
}

// dummyMAC is a dummy link's address: random in the kernel, here derived
// from the name so that ip shows the same one each time. It is a local,
// unicast address.
func dummyMAC(name string) string {
	h := fnv.New64a()
	h.Write([]byte(name))
	b := h.Sum(nil)
	b[0] = b[0]&0xfc | 0x02
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4], b[5])
}
