package winexe

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// A container talks to its domain only through a gMSA (program.Sys.GMSA):
// without one it is a workgroup machine whose Netlogon service is not
// running. The wording is nltest's and klist's; the success lines are
// those of Microsoft's "Run a container with a gMSA".

// Nltest verifies or queries the secure channel to a domain
// (/sc_verify:DOMAIN, /sc_query:DOMAIN).
func Nltest(_ context.Context, p *program.Proc) int {
	var op, domain string
	for _, a := range p.Args[1:] {
		name, value, _ := strings.Cut(a, ":")
		switch strings.ToLower(strings.TrimLeft(name, "/-")) {
		case "sc_verify", "sc_query":
			op, domain = strings.ToLower(strings.TrimLeft(name, "/-")), value
		default:
			fmt.Fprintf(p.Stderr, "Invalid option: %s%s", a, nl)
			nltestUsage(p.Stdout)
			return 1
		}
	}
	if op == "" {
		nltestUsage(p.Stdout)
		return 1
	}
	id := p.Sys.GMSA
	if id == nil {
		// Not in a domain: nothing serves Netlogon's RPC interface.
		fmt.Fprint(p.Stdout, "I_NetLogonControl failed: Status = 1717 0x6b5 RPC_S_UNKNOWN_IF"+nl)
		return 1
	}
	if domain != "" && !namesDomain(id, domain) {
		fmt.Fprint(p.Stdout, "I_NetLogonControl failed: Status = 1355 0x54b ERROR_NO_SUCH_DOMAIN"+nl)
		return 1
	}
	if id.DomainController == "" {
		// The spec's domain is not one the node reaches: no DC answers.
		fmt.Fprint(p.Stdout, "Flags: 0"+nl+"Trusted DC Name "+nl+
			"Trusted DC Connection Status Status = 1311 0x51f ERROR_NO_LOGON_SERVERS"+nl)
		if op == "sc_verify" {
			fmt.Fprint(p.Stdout, "Trust Verification Status = 1311 0x51f ERROR_NO_LOGON_SERVERS"+nl)
		}
		fmt.Fprint(p.Stdout, "The command completed successfully"+nl)
		return 0
	}
	fmt.Fprint(p.Stdout, "Flags: b0 HAS_IP  HAS_TIMESERV"+nl+`Trusted DC Name \\`+id.DomainController+nl+
		"Trusted DC Connection Status Status = 0 0x0 NERR_Success"+nl)
	if op == "sc_verify" {
		fmt.Fprint(p.Stdout, "Trust Verification Status = 0 0x0 NERR_Success"+nl)
	}
	fmt.Fprint(p.Stdout, "The command completed successfully"+nl)
	return 0
}

func nltestUsage(w io.Writer) {
	fmt.Fprint(w, "Usage: nltest [/OPTIONS]"+nl+nl+
		"    /SC_QUERY:<DomainName> - Query secure channel for <Domain> on <ServerName>"+nl+
		"    /SC_VERIFY:<DomainName> - Verify secure channel for <Domain> on <ServerName>"+nl)
}

func namesDomain(id *program.GMSAIdentity, name string) bool {
	name = strings.TrimSuffix(name, ".")
	return strings.EqualFold(name, id.DNSName) || strings.EqualFold(name, id.NetBIOSName)
}

// Kerberos ticket lifetimes of a default domain policy.
const (
	ticketLifetime = 10 * time.Hour
	renewLifetime  = 7 * 24 * time.Hour
)

// Klist lists the Kerberos tickets of the container's logon session
// (klist, klist tickets) or gets one (klist get SERVICE): the gMSA's,
// from its domain's controller.
func Klist(_ context.Context, p *program.Proc) int {
	args := p.Args[1:]
	verb := "tickets"
	if len(args) > 0 {
		verb = strings.ToLower(args[0])
	}
	fmt.Fprintf(p.Stdout, "%sCurrent LogonId is 0:0x%x%s", nl, logonID(p.Sys), nl)
	id := p.Sys.GMSA
	reachable := id != nil && id.DomainController != ""
	switch verb {
	case "tickets", "tgt":
		if !reachable {
			fmt.Fprint(p.Stdout, nl+"Cached Tickets: (0)"+nl+nl)
			return 0
		}
		fmt.Fprint(p.Stdout, nl+"Cached Tickets: (1)"+nl+nl)
		writeTicket(p.Stdout, 0, id, "krbtgt/"+realm(id), p.Sys.Clock)
		return 0
	case "get":
		if len(args) < 2 {
			fmt.Fprint(p.Stdout, "Error: Missing target name."+nl)
			return 1
		}
		target := args[1]
		if !reachable {
			fmt.Fprint(p.Stdout, "Error calling API LsaCallAuthenticationPackage (GetTicket substatus): 0x51f"+nl+nl+
				"klist failed with 0xc000005e/-1073741730: There are currently no logon servers available to service the logon request."+nl+nl)
			return 1
		}
		fmt.Fprintf(p.Stdout, "A ticket to %s has been retrieved successfully.%s", target, nl)
		server := target
		if strings.EqualFold(target, "krbtgt") {
			server = "krbtgt/" + realm(id)
		}
		if strings.EqualFold(server, "krbtgt/"+realm(id)) {
			fmt.Fprint(p.Stdout, nl+"Cached Tickets: (1)"+nl+nl)
			writeTicket(p.Stdout, 0, id, server, p.Sys.Clock)
			return 0
		}
		fmt.Fprint(p.Stdout, nl+"Cached Tickets: (2)"+nl+nl)
		writeTicket(p.Stdout, 0, id, "krbtgt/"+realm(id), p.Sys.Clock)
		writeTicket(p.Stdout, 1, id, server, p.Sys.Clock)
		return 0
	default:
		fmt.Fprint(p.Stdout, nl+"Usage: klist [-lh <LogonId.HighPart>] [-li <LogonId.LowPart>] tickets | tgt | purge | sessions | kcd_cache | get | add_bind | query_bind | purge_bind"+nl)
		return 1
	}
}

func realm(id *program.GMSAIdentity) string { return strings.ToUpper(id.DNSName) }

// logonID is the container's logon session, stable for its hostname.
func logonID(sys *program.Sys) uint32 {
	h := fnv.New32a()
	_, _ = io.WriteString(h, sys.Hostname)
	return 0x3e7 + h.Sum32()%0xfffff0
}

// writeTicket prints one cached ticket of the gMSA account as klist does:
// the TGT (initial, the primary cache entry) or a service ticket.
func writeTicket(w io.Writer, n int, id *program.GMSAIdentity, server string, clock program.Clock) {
	now := time.Now()
	if clock != nil {
		now = clock.Now()
	}
	tgt := strings.HasPrefix(strings.ToLower(server), "krbtgt/")
	flags, names, cache := "0x40a10000", "forwardable renewable pre_authent name_canonicalize", "0"
	if tgt {
		flags, names, cache = "0x40e10000", "forwardable renewable initial pre_authent name_canonicalize", "0x1 -> PRIMARY"
	}
	if !strings.Contains(server, " @ ") {
		server += " @ " + realm(id)
	}
	fmt.Fprintf(w, "#%d>\tClient: %s$ @ %s%s", n, strings.ToLower(id.Account), realm(id), nl)
	fmt.Fprintf(w, "\tServer: %s%s", server, nl)
	fmt.Fprint(w, "\tKerbTicket Encryption Type: AES-256-CTS-HMAC-SHA1-96"+nl)
	fmt.Fprintf(w, "\tTicket Flags %s -> %s%s", flags, names, nl)
	fmt.Fprintf(w, "\tStart Time: %s (local)%s", klistTime(now), nl)
	fmt.Fprintf(w, "\tEnd Time:   %s (local)%s", klistTime(now.Add(ticketLifetime)), nl)
	fmt.Fprintf(w, "\tRenew Time: %s (local)%s", klistTime(now.Add(renewLifetime)), nl)
	fmt.Fprint(w, "\tSession Key Type: AES-256-CTS-HMAC-SHA1-96"+nl)
	fmt.Fprintf(w, "\tCache Flags: %s%s", cache, nl)
	fmt.Fprintf(w, "\tKdc Called: %s%s%s", id.DomainController, nl, nl)
}

// klistTime is klist's M/D/YYYY H:MM:SS, the hour unpadded (3/21/2019
// 4:17:53).
func klistTime(t time.Time) string {
	return fmt.Sprintf("%s %d:%s", t.Format("1/2/2006"), t.Hour(), t.Format("04:05"))
}
