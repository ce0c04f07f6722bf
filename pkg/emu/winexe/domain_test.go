package winexe

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/nodeos"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
	"github.com/winkube/winkube/pkg/windows/activedirectory"
)

const webapp01 = `{"ActiveDirectoryConfig":{"GroupManagedServiceAccounts":[{"Name":"WebApp01","Scope":"CONTOSO"},{"Name":"WebApp01","Scope":"contoso.com"}]},"CmsPlugins":["ActiveDirectory"],"DomainJoinConfig":{"DnsName":"contoso.com","DnsTreeName":"contoso.com","Guid":"244818ae-87ca-4fcd-92ec-e79e5252348a","MachineAccountName":"WebApp01","NetBiosName":"CONTOSO","Sid":"S-1-5-21-2126729477-2524075714-3094792973"}}`

// rule: GMSA-4
func TestNltestWithAGMSA(t *testing.T) {
	sys := wintest.Sys(Table())
	id, err := nodeos.GMSA(webapp01, activedirectory.NewDomain("contoso.com", ""))
	if err != nil {
		t.Fatal(err)
	}
	sys.GMSA = id
	out, _, code := run(t, sys, "", "nltest", "/sc_verify:contoso.com")
	want := "Flags: b0 HAS_IP  HAS_TIMESERV\r\nTrusted DC Name \\\\dc01.contoso.com\r\n" +
		"Trusted DC Connection Status Status = 0 0x0 NERR_Success\r\nTrust Verification Status = 0 0x0 NERR_Success\r\n" +
		"The command completed successfully\r\n"
	if out != want || code != 0 {
		t.Errorf("nltest /sc_verify:contoso.com (%d):\n%q\nwant\n%q", code, out, want)
	}
	if out, _, _ := run(t, sys, "", "nltest.exe", "/SC_VERIFY:CONTOSO"); out != want {
		t.Errorf("the NetBIOS name, any case:\n%q", out)
	}
	if out, _, code := run(t, sys, "", "nltest", "/sc_verify:fabrikam.com"); out != "I_NetLogonControl failed: Status = 1355 0x54b ERROR_NO_SUCH_DOMAIN\r\n" || code != 1 {
		t.Errorf("another domain: %q (%d)", out, code)
	}
	// whoami stays the container's user.
	if out, _, _ := run(t, sys, "", "whoami"); out != "user manager\\containeruser\r\n" {
		t.Errorf("whoami with a gMSA: %q", out)
	}
}

// rule: GMSA-4
func TestNltestWithoutADomain(t *testing.T) {
	sys := wintest.Sys(Table())
	if out, _, code := run(t, sys, "", "nltest", "/sc_verify:contoso.com"); out != "I_NetLogonControl failed: Status = 1717 0x6b5 RPC_S_UNKNOWN_IF\r\n" || code != 1 {
		t.Errorf("no credential spec: %q (%d)", out, code)
	}
	// A spec of a domain the cluster's nodes are not joined to: no DC.
	id, _ := nodeos.GMSA(webapp01, activedirectory.NewDomain("example.org", ""))
	sys.GMSA = id
	out, _, code := run(t, sys, "", "nltest", "/sc_verify:contoso.com")
	if !strings.Contains(out, "Trusted DC Connection Status Status = 1311 0x51f ERROR_NO_LOGON_SERVERS\r\n") || code != 0 {
		t.Errorf("unreachable domain: %q (%d)", out, code)
	}
	out, _, code = run(t, sys, "", "klist", "get", "krbtgt")
	if !strings.Contains(out, "klist failed with 0xc000005e/-1073741730: There are currently no logon servers available to service the logon request.") || code != 1 {
		t.Errorf("klist get krbtgt, unreachable domain: %q (%d)", out, code)
	}
}

// rule: GMSA-4
func TestKlist(t *testing.T) {
	sys := wintest.Sys(Table())
	sys.GMSA, _ = nodeos.GMSA(webapp01, activedirectory.NewDomain("contoso.com", ""))
	out, _, code := run(t, sys, "", "klist", "get", "webapp01")
	for _, want := range []string{
		"A ticket to webapp01 has been retrieved successfully.\r\n\r\nCached Tickets: (2)\r\n",
		"#0>\tClient: webapp01$ @ CONTOSO.COM\r\n\tServer: krbtgt/CONTOSO.COM @ CONTOSO.COM\r\n",
		"#1>\tClient: webapp01$ @ CONTOSO.COM\r\n\tServer: webapp01 @ CONTOSO.COM\r\n\tKerbTicket Encryption Type: AES-256-CTS-HMAC-SHA1-96\r\n" +
			"\tTicket Flags 0x40a10000 -> forwardable renewable pre_authent name_canonicalize\r\n\tStart Time: 3/5/2024 14:07:00 (local)\r\n" +
			"\tEnd Time:   3/6/2024 0:07:00 (local)\r\n\tRenew Time: 3/12/2024 14:07:00 (local)\r\n",
		"\tKdc Called: dc01.contoso.com\r\n",
	} {
		if !strings.Contains(out, want) || code != 0 {
			t.Errorf("klist get webapp01 (%d) lacks %q:\n%s", code, want, out)
		}
	}
	sys.GMSA = nil
	if out, _, _ := run(t, sys, "", "klist"); !strings.Contains(out, "Cached Tickets: (0)") {
		t.Errorf("klist without a gMSA: %q", out)
	}
}
