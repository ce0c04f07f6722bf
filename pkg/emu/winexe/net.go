package winexe

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// defaultDNS is the server nslookup names when the network does not
// tell the pod's: the usual kube-dns service address.
const defaultDNS = "10.96.0.10"

func dnsServer(sys *program.Sys) string {
	if servers, _ := winutil.DNS(sys); len(servers) > 0 {
		return servers[0]
	}
	return defaultDNS
}

// Ipconfig prints the pod's one adapter; /all adds the host name and
// DNS settings.
func Ipconfig(_ context.Context, p *program.Proc) int {
	all := len(p.Args) > 1 && strings.EqualFold(p.Args[1], "/all")
	ip := winutil.PodIP(p.Sys)
	gw := ip
	if k := strings.LastIndex(ip, "."); k > 0 {
		gw = ip[:k] + ".1"
	}
	servers, search := winutil.DNS(p.Sys)
	row := func(label, value string) string {
		b := []byte("   " + label) // the dot leader: dots on odd columns, as ipconfig's labels have
		for len(b) < 36 {
			if len(b)%2 == 1 {
				b = append(b, '.')
			} else {
				b = append(b, ' ')
			}
		}
		return strings.TrimRight(string(b)+" : "+value, " ")
	}
	multi := func(label string, values []string) []string {
		if len(values) == 0 {
			return []string{row(label, "")}
		}
		out := []string{row(label, values[0])}
		for _, v := range values[1:] {
			out = append(out, strings.Repeat(" ", 39)+v)
		}
		return out
	}
	lines := []string{"", "Windows IP Configuration", ""}
	if all {
		lines = append(lines, row("Host Name", p.Sys.Hostname), row("Primary Dns Suffix ", ""), row("Node Type", "Hybrid"),
			row("IP Routing Enabled", "No"), row("WINS Proxy Enabled", "No"))
		lines = append(lines, multi("DNS Suffix Search List", search)...)
	}
	lines = append(lines, "", "Ethernet adapter vEthernet (Ethernet):", "")
	suffix := ""
	if len(search) > 0 {
		suffix = search[0]
	}
	lines = append(lines, row("Connection-specific DNS Suffix ", suffix))
	if all {
		lines = append(lines, row("Description", "Hyper-V Virtual Ethernet Container Adapter"), row("Physical Address", "00-15-5D-00-00-01"),
			row("DHCP Enabled", "No"), row("Autoconfiguration Enabled", "Yes"), row("IPv4 Address", ip+"(Preferred)"))
	} else {
		lines = append(lines, row("IPv4 Address", ip))
	}
	lines = append(lines, row("Subnet Mask", "255.255.255.0"), row("Default Gateway", gw))
	if all {
		lines = append(lines, multi("DNS Servers", servers)...)
		lines = append(lines, row("NetBIOS over Tcpip", "Disabled"))
	}
	writeLines(p.Stdout, lines)
	return 0
}

// Nslookup resolves a name through the pod's DNS, in nslookup's format.
func Nslookup(ctx context.Context, p *program.Proc) int {
	var name string
	for _, a := range p.Args[1:] {
		if !strings.HasPrefix(a, "-") && name == "" {
			name = a
		}
	}
	if name == "" {
		fmt.Fprint(p.Stderr, "winkube: interactive nslookup is not emulated"+nl)
		return 1
	}
	server := dnsServer(p.Sys)
	fmt.Fprintf(p.Stdout, "Server:  UnKnown%sAddress:  %s%s%s", nl, server, nl, nl)
	if p.Sys.Net == nil {
		fmt.Fprintf(p.Stderr, "*** UnKnown can't find %s: Server failed%s", name, nl)
		return 1
	}
	addrs, err := p.Sys.Net.LookupHost(ctx, name)
	if err != nil || len(addrs) == 0 {
		fmt.Fprintf(p.Stderr, "*** UnKnown can't find %s: Non-existent domain%s", name, nl)
		return 1
	}
	fmt.Fprintf(p.Stdout, "Name:    %s%s", name, nl)
	if len(addrs) == 1 {
		fmt.Fprintf(p.Stdout, "Address:  %s%s%s", addrs[0], nl, nl)
		return 0
	}
	fmt.Fprintf(p.Stdout, "Addresses:  %s%s", addrs[0], nl)
	for _, a := range addrs[1:] {
		fmt.Fprintf(p.Stdout, "\t  %s%s", a, nl)
	}
	fmt.Fprint(p.Stdout, nl)
	return 0
}

// Ping echoes once a second (-n N times, 4 by default; -t until
// stopped). The network has no ICMP: a host that resolves answers.
func Ping(ctx context.Context, p *program.Proc) int {
	count, forever, size, host := 4, false, 32, ""
	wait := 4000
	for k := 1; k < len(p.Args); k++ {
		a := strings.ToLower(p.Args[k])
		next := func() int {
			if k+1 < len(p.Args) {
				k++
				n, _ := strconv.Atoi(p.Args[k])
				return n
			}
			return -1
		}
		switch a {
		case "-t", "/t":
			forever = true
		case "-n", "/n":
			count = next()
		case "-l", "/l":
			size = next()
		case "-w", "/w":
			wait = next()
		case "-4", "/4", "-6", "/6", "-a", "/a":
		default:
			host = p.Args[k]
		}
	}
	if host == "" || count < 1 || size < 0 || wait < 0 {
		fmt.Fprint(p.Stdout, "Bad parameters"+nl)
		return 1
	}
	ip, reachable := resolve(ctx, p.Sys, host)
	if ip == "" {
		fmt.Fprintf(p.Stdout, "Ping request could not find host %s. Please check the name and try again.%s", host, nl)
		return 1
	}
	if ip == host {
		fmt.Fprintf(p.Stdout, "%sPinging %s with %d bytes of data:%s", nl, ip, size, nl)
	} else {
		fmt.Fprintf(p.Stdout, "%sPinging %s [%s] with %d bytes of data:%s", nl, host, ip, size, nl)
	}
	if forever && reachable && p.Stdout == io.Discard {
		// ping -t > NUL: nobody can read a reply or the statistics, so
		// rather than wake every second it waits to be stopped, and
		// ends as the loop would (status 1).
		p.Sys.Sleep(ctx, math.MaxInt64)
		return 1
	}
	sent := 0
	for ; forever || sent < count; sent++ {
		if sent > 0 && !p.Sys.Sleep(ctx, time.Second) {
			return 1
		}
		if reachable {
			fmt.Fprintf(p.Stdout, "Reply from %s: bytes=%d time<1ms TTL=128%s", ip, size, nl)
		} else {
			if !p.Sys.Sleep(ctx, time.Duration(wait)*time.Millisecond) {
				return 1
			}
			fmt.Fprint(p.Stdout, "Request timed out."+nl)
		}
	}
	received := 0
	if reachable {
		received = sent
	}
	fmt.Fprintf(p.Stdout, "%sPing statistics for %s:%s    Packets: Sent = %d, Received = %d, Lost = %d (%d%% loss),%s",
		nl, ip, nl, sent, received, sent-received, (sent-received)*100/sent, nl)
	if !reachable {
		return 1
	}
	fmt.Fprintf(p.Stdout, "Approximate round trip times in milli-seconds:%s    Minimum = 0ms, Maximum = 0ms, Average = 0ms%s", nl, nl)
	return 0
}

// resolve is a host's address ("" when the name does not resolve) and
// whether the pod can reach it.
func resolve(ctx context.Context, sys *program.Sys, host string) (string, bool) {
	// The container's own loopback answers without any network.
	if strings.EqualFold(host, "localhost") {
		return "::1", true
	}
	ip := host
	if net.ParseIP(host) == nil {
		if sys.Net == nil {
			return "", false
		}
		addrs, err := sys.Net.LookupHost(ctx, host)
		if err != nil || len(addrs) == 0 {
			return "", false
		}
		ip = addrs[0]
	}
	if parsed := net.ParseIP(ip); parsed.IsLoopback() {
		return ip, true
	}
	if sys.Net == nil {
		return ip, false
	}
	// An echo is answered when the network delivers ICMP there (it does
	// not leave the cluster from a Windows pod: LIM-17).
	c, err := sys.Net.Dial(ctx, "icmp", ip)
	if err != nil {
		return ip, false
	}
	c.Close()
	return ip, true
}
