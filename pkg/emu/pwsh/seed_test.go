package pwsh

import (
	"os"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/vnet"
)

// The web server of seed 003 (the Kubernetes scheduling guide), as the
// kubelet hands its command to powershell.exe ($$ expanded to $), serves
// what it serves on a real node: the H1, then "IP <pod IP> callerCount N"
// for each client, counting that client's requests; and it logs each
// request's URL, its page and the status. It needs Hashtable's Get_Item,
// Set_Item and Item, ForEach-Object assigning in the caller's scope, and
// Get-NetAdapter | Get-NetIPAddress listing IPv6 link-local first, as
// Windows does ($ip[1] is the IPv4 address).
func TestSeedWebServer(t *testing.T) {
	b, err := os.ReadFile("testdata/seed003-webserver.ps1")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimSpace(string(b))
	if got := UnsupportedCommand([]string{"powershell.exe", "-command", text}); got != "" {
		t.Errorf("UnsupportedCommand names %q in the seed's script", got)
	}
	fabric := vnet.New(flatRouter{})
	s := runScript(t, fabric, text)
	s.waitListening(t, 80)
	client := podClient(fabric, false)
	for n := 1; n <= 2; n++ {
		resp, body, _ := fetch(t, client, "GET", "http://10.244.1.10/", "")
		want := "<html><body><H1>Windows Container Web Server</H1><p>IP 10.244.1.10 callerCount " + string(rune('0'+n)) + " </body></html>"
		if resp.StatusCode != 200 || body != want {
			t.Errorf("request %d: %d %q, want %q", n, resp.StatusCode, body, want)
		}
	}
	s.stop(t)
	for _, line := range []string{"Listening at http://*:80/", "> http://10.244.1.10/", "callerCount 2", "< 200"} {
		if !strings.Contains(s.out, line) {
			t.Errorf("the log lacks %q:\n%s", line, s.out)
		}
	}
	if s.errOut != "" {
		t.Errorf("errors: %q", s.errOut)
	}
}
