package winexe

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// Systeminfo prints the host and OS lines of systeminfo, from the node's
// facts; the hardware, memory and hotfix lines the emulation does not
// model are left out.
func Systeminfo(_ context.Context, p *program.Proc) int {
	if len(p.Args) > 1 {
		fmt.Fprintf(p.Stderr, "ERROR: Invalid argument/option - '%s'.%sType \"SYSTEMINFO /?\" for usage.%s", p.Args[1], nl, nl)
		return 1
	}
	os := p.Sys.OS
	rows := [][2]string{
		{"Host Name", strings.ToUpper(p.Sys.Hostname)},
		{"OS Name", os.Caption()},
		{"OS Version", strings.TrimSuffix(os.NTVersion(), ".0") + " N/A Build " + strconv.Itoa(os.Build)},
		{"OS Manufacturer", "Microsoft Corporation"},
		{"OS Configuration", "Standalone Server"},
		{"OS Build Type", "Multiprocessor Free"},
		{"System Type", "x64-based PC"},
		{"Windows Directory", `C:\Windows`},
		{"System Directory", `C:\Windows\system32`},
		{"Network Card(s)", "1 NIC(s) Installed."},
	}
	io := p.Stdout
	fmt.Fprint(io, nl)
	for _, r := range rows {
		fmt.Fprintf(io, "%-27s%s%s", r[0]+":", r[1], nl)
	}
	fmt.Fprintf(io, "%27s[01]: vEthernet (Ethernet)%s", "", nl)
	fmt.Fprintf(io, "%27s      DHCP Enabled:    No%s", "", nl)
	fmt.Fprintf(io, "%27s      IP address(es)%s", "", nl)
	fmt.Fprintf(io, "%27s      [01]: %s%s", "", winutil.PodIP(p.Sys), nl)
	return 0
}
