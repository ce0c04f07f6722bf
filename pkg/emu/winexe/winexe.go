// Package winexe holds the executables of Windows images: whoami,
// hostname, ipconfig, nslookup, ping, curl.exe, timeout, where,
// findstr, more, sort, tasklist, net localgroup, nltest and klist (a gMSA
// container's domain), and the event log's eventcreate
// and wevtutil. Table adds cmd.exe, PowerShell and tar.exe (bsdtar, in
// pkg/emu/archive), which kubectl cp runs.
package winexe

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/pkg/emu/archive"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh"
	"github.com/winkube/winkube/pkg/emu/wincmd"
)

const nl = "\r\n"

// Table is the programs of a Windows image, by program.Name.
func Table() map[string]program.Main {
	return map[string]program.Main{
		"cmd": wincmd.Main, "powershell": pwsh.Main, "pwsh": pwsh.Main,
		"whoami": Whoami, "hostname": Hostname, "ipconfig": Ipconfig, "nslookup": Nslookup,
		"ping": Ping, "curl": Curl, "timeout": Timeout, "where": Where, "findstr": Findstr,
		"more": More, "sort": Sort, "tasklist": Tasklist, "net": Net, "systeminfo": Systeminfo,
		"eventcreate": Eventcreate, "wevtutil": Wevtutil, "nltest": Nltest, "klist": Klist,
		"tar": archive.BSDTar,
	}
}

// account is the user as Windows names it: user manager\containeruser.
func account(sys *program.Sys) string {
	a := sys.User.Account
	if a == "" {
		a = "ContainerUser"
	}
	if !strings.Contains(a, `\`) {
		a = `User Manager\` + a
	}
	return strings.ToLower(a)
}

// Whoami prints the account; /user adds its SID.
func Whoami(_ context.Context, p *program.Proc) int {
	name := account(p.Sys)
	if len(p.Args) > 1 && strings.EqualFold(p.Args[1], "/user") {
		sid := "S-1-5-93-2-2"
		if strings.HasSuffix(name, `\containeradministrator`) {
			sid = "S-1-5-93-2-1"
		}
		w := max(len(name), len("User Name"))
		fmt.Fprintf(p.Stdout, "%sUSER INFORMATION%s----------------%s%s", nl, nl, nl, nl)
		fmt.Fprintf(p.Stdout, "%-*s %s%s%s %s%s%-*s %s%s", w, "User Name", "SID", nl, strings.Repeat("=", w), strings.Repeat("=", len(sid)), nl, w, name, sid, nl)
		return 0
	}
	if len(p.Args) > 1 {
		fmt.Fprintf(p.Stderr, "ERROR: Invalid argument/option - '%s'.%sType \"WHOAMI /?\" for usage.%s", p.Args[1], nl, nl)
		return 1
	}
	fmt.Fprint(p.Stdout, name+nl)
	return 0
}

// Hostname prints the computer name.
func Hostname(_ context.Context, p *program.Proc) int {
	if len(p.Args) > 1 {
		fmt.Fprint(p.Stderr, "sethostname: Use the Network Control Panel Applet to set hostname."+nl)
		return 1
	}
	fmt.Fprint(p.Stdout, p.Sys.Hostname+nl)
	return 0
}

// Timeout waits /t N seconds on the container's clock (-1: until
// stopped). As the real one, it refuses to run without a console.
func Timeout(ctx context.Context, p *program.Proc) int {
	secs, ok := -2, false
	for k := 1; k < len(p.Args); k++ {
		a := strings.ToLower(p.Args[k])
		switch {
		case (a == "/t" || a == "-t") && k+1 < len(p.Args):
			k++
			_, err := fmt.Sscan(p.Args[k], &secs)
			ok = err == nil
		case a == "/nobreak" || a == "-nobreak":
		default:
			if _, err := fmt.Sscan(a, &secs); err == nil {
				ok = true
			}
		}
	}
	if !ok || secs < -1 || secs > 99999 {
		fmt.Fprint(p.Stderr, "ERROR: Invalid value for timeout (/T) specified. Valid range is -1 to 99999."+nl)
		return 1
	}
	if !p.TTY {
		fmt.Fprint(p.Stderr, "ERROR: Input redirection is not supported, exiting the process immediately."+nl)
		return 1
	}
	if secs == -1 {
		fmt.Fprint(p.Stdout, nl+"Press any key to continue ...")
		<-ctx.Done()
		return 1
	}
	fmt.Fprintf(p.Stdout, "%sWaiting for %d seconds, press a key to continue ...", nl, secs)
	if !p.Sys.Sleep(ctx, secsDuration(secs)) {
		return 1
	}
	fmt.Fprint(p.Stdout, nl)
	return 0
}

// Where finds programs of the image.
func Where(_ context.Context, p *program.Proc) int {
	found := false
	for _, name := range p.Args[1:] {
		if strings.HasPrefix(name, "/") {
			continue
		}
		if _, err := p.Sys.Lookup(name); err == nil {
			n := program.Name(name)
			fmt.Fprintf(p.Stdout, `C:\Windows\System32\%s.exe%s`, n, nl)
			found = true
		}
	}
	if !found {
		fmt.Fprint(p.Stderr, "INFO: Could not find files for the given pattern(s)."+nl)
		return 1
	}
	return 0
}

// Tasklist lists the container's processes (the emulation knows of the
// one that asks).
func Tasklist(_ context.Context, p *program.Proc) int {
	fmt.Fprintf(p.Stdout, "%s%-25s %8s %-16s %11s %12s%s", nl, "Image Name", "PID", "Session Name", "Session#", "Mem Usage", nl)
	fmt.Fprintf(p.Stdout, "%s %s %s %s %s%s", strings.Repeat("=", 25), strings.Repeat("=", 8), strings.Repeat("=", 16), strings.Repeat("=", 11), strings.Repeat("=", 12), nl)
	for _, row := range [][]string{{"System Idle Process", "0", "0", "8 K"}, {"System", "4", "0", "148 K"}, {"tasklist.exe", "1000", "1", "8,412 K"}} {
		fmt.Fprintf(p.Stdout, "%-25s %8s %-16s %11s %12s%s", row[0], row[1], "Services", row[2], row[3], nl)
	}
	return 0
}

func writeLines(w io.Writer, lines []string) {
	for _, l := range lines {
		io.WriteString(w, l+nl)
	}
}
