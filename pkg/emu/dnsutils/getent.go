package dnsutils

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// getent's exit statuses (getent(1)).
const (
	getentMissing = 1 // missing arguments or an unknown database
	getentNotOne  = 2 // a key was not found
)

// Getent is getent(1) for the hosts database: each key looked up as
// gethostbyname2 does (the hosts file, then DNS through the pod's
// resolver; IPv6 before IPv4), printed as "address name aliases".
func Getent(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	if len(args) == 0 {
		fmt.Fprintf(p.Stderr, "Usage: getent [OPTION...] database [key ...]\nTry `getent --help' or `getent --usage' for more information.\n")
		return getentMissing
	}
	if args[0] != "hosts" {
		fmt.Fprintf(p.Stderr, "Unknown database: %s\nTry `getent --help' or `getent --usage' for more information.\n", args[0])
		return getentMissing
	}
	code := 0
	for _, key := range args[1:] {
		if !hostEntry(ctx, p, key) {
			code = getentNotOne
		}
	}
	return code
}

// hostEntry prints what key resolves to and reports whether it did.
func hostEntry(ctx context.Context, p *program.Proc, key string) bool {
	if ip, err := netip.ParseAddr(key); err == nil {
		return printHosts(p, hostsFile(p, func(a netip.Addr, _ []string) bool { return a == ip }))
	}
	for _, v6 := range []bool{true, false} {
		match := func(a netip.Addr, names []string) bool {
			return a.Is6() == v6 && hasName(names, key)
		}
		if printHosts(p, hostsFile(p, match)) {
			return true
		}
	}
	if p.Sys.Net == nil {
		return false
	}
	addrs, err := p.Sys.Net.LookupHost(ctx, key)
	if err != nil {
		return false
	}
	var lines []hostLine
	for _, a := range addrs {
		if ip, err := netip.ParseAddr(a); err == nil {
			lines = append(lines, hostLine{ip, []string{key}})
		}
	}
	return printHosts(p, lines)
}

type hostLine struct {
	addr  netip.Addr
	names []string // canonical name, then aliases
}

// hostsFile is the entries of /etc/hosts that match.
func hostsFile(p *program.Proc, match func(netip.Addr, []string) bool) []hostLine {
	f, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, "/etc/hosts"), os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []hostLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		ip, err := netip.ParseAddr(fields[0])
		if err == nil && match(ip, fields[1:]) {
			out = append(out, hostLine{ip, fields[1:]})
		}
	}
	return out
}

func hasName(names []string, key string) bool {
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return true
		}
	}
	return false
}

// printHosts prints the entries of one key: glibc merges the lines of
// a name into one entry whose canonical name is the first line's.
func printHosts(p *program.Proc, lines []hostLine) bool {
	if len(lines) == 0 {
		return false
	}
	names := strings.Join(lines[0].names, " ")
	for _, l := range lines {
		fmt.Fprintf(p.Stdout, "%-15s %s\n", l.addr, names)
	}
	return true
}
