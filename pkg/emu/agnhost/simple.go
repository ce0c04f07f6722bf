package agnhost

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// entrypointTester prints the whole argv, as the real one prints
// os.Args: the entrypoint tests compare it with the command they set
// ("[/agnhost-2 entrypoint-tester override arguments]").
func entrypointTester(_ context.Context, a *kit.App, _ []string) int {
	fmt.Fprintf(a.P.Stdout, "%v\n", a.P.Args)
	return 0
}

// nonewprivs prints the effective uid (-1 on Windows, as Go reports it).
func nonewprivs(_ context.Context, a *kit.App, _ []string) int {
	uid := a.P.Sys.User.UID
	if a.P.Sys.Windows {
		uid = -1
	}
	fmt.Fprintf(a.P.Stdout, "Effective uid: %d\n", uid)
	return 0
}

// pause waits for the container to be stopped. The real one traps
// SIGTERM, writes `exiting because of signal "terminated"` to the
// termination message file and stdout, and exits 2; a stopped program
// cannot tell TERM from KILL here, so it takes the usual TERM path.
func pause(ctx context.Context, a *kit.App, _ []string) int {
	p := a.P
	fmt.Fprintln(p.Stdout, "Paused")
	fmt.Fprintln(p.Stdout, "Signals registered")
	<-ctx.Done()
	msg := fmt.Sprintf("exiting because of signal %q\n", "terminated")
	path := p.Getenv("TERMINATION_MESSAGE_PATH")
	if path == "" {
		path = "/dev/termination-log"
	}
	_ = kit.WriteFile(p, path, []byte(msg), 0o644)
	io.WriteString(p.Stdout, msg)
	return 2
}

// etcHosts prints the hosts file (Windows: the drivers\etc copy the
// kubelet manages) and a newline, as fmt.Println does.
func etcHosts(_ context.Context, a *kit.App, _ []string) int {
	name := "/etc/hosts"
	if a.P.Sys.Windows {
		name = "C:/Windows/System32/drivers/etc/hosts"
	}
	data, err := kit.ReadFile(a.P, name)
	if err != nil {
		return kit.GoPanic(a.P, kit.GoError(a.P, err))
	}
	fmt.Fprintln(a.P.Stdout, string(data))
	return 0
}

// dnsSuffix prints the search list of resolv.conf, comma-separated. The
// Windows image asks the registry instead; the emulation reads the
// resolv.conf the node writes for both.
func dnsSuffix(_ context.Context, a *kit.App, _ []string) int {
	if a.P.Sys.Windows {
		// dns_windows.go reads the SearchList values of the TCP/IP
		// registry keys: the pod adapter's suffixes.
		_, search := winutil.DNS(a.P.Sys)
		fmt.Fprintln(a.P.Stdout, strings.Join(search, ","))
		return 0
	}
	return printResolvConf(a, "search")
}

// dnsServerList prints the nameservers (Linux: the first nameserver
// line's; Windows: every server of the adapter's list).
func dnsServerList(_ context.Context, a *kit.App, _ []string) int {
	if a.P.Sys.Windows {
		// dns_windows.go asks GetNetworkParams: the adapter's servers.
		servers, _ := winutil.DNS(a.P.Sys)
		fmt.Fprintln(a.P.Stdout, strings.Join(servers, ","))
		return 0
	}
	return printResolvConf(a, "nameserver")
}

func printResolvConf(a *kit.App, key string) int {
	data, err := kit.ReadFile(a.P, "/etc/resolv.conf")
	if err != nil {
		return kit.GoPanic(a.P, kit.GoError(a.P, err))
	}
	var list []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, key) {
			continue
		}
		// the real one drops the first space-separated word.
		words := strings.Split(line, " ")[1:]
		if !a.P.Sys.Windows {
			list = words
			break
		}
		for _, w := range words {
			if w != "" && !kit.Contains(list, w) {
				list = append(list, w)
			}
		}
	}
	if list == nil && !a.P.Sys.Windows {
		return kit.GoPanic(a.P, "Could not find DNS search list!")
	}
	fmt.Fprintln(a.P.Stdout, strings.Join(list, ","))
	return 0
}
