package netapplets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// The programs talk only through Sys.Net; with no Net they fail as on a
// pod with no reachable network.

var errNoNet = errors.New("network is unreachable")

// Lookup resolves a name through the pod's DNS, every address (an IP
// stays itself).
func Lookup(ctx context.Context, p *program.Proc, host string) ([]string, error) {
	if net.ParseIP(host) != nil {
		return []string{host}, nil
	}
	if p.Sys.Net == nil {
		return nil, errNoNet
	}
	addrs, err := p.Sys.Net.LookupHost(ctx, host)
	if err == nil && len(addrs) == 0 {
		err = errors.New("no address")
	}
	return addrs, err
}

// lookup is the first address Lookup finds, the one a client dials.
func lookup(ctx context.Context, p *program.Proc, host string) (string, error) {
	addrs, err := Lookup(ctx, p, host)
	if err != nil {
		return "", err
	}
	return addrs[0], nil
}

// ClockTimeout is context.WithTimeout on the container's clock; d <= 0
// is no limit.
func ClockTimeout(ctx context.Context, p *program.Proc, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if d <= 0 {
		return ctx, cancel
	}
	go func() {
		if p.Sys.Sleep(ctx, d) {
			cancel()
		}
	}()
	return ctx, cancel
}

// seconds reads a whole number of seconds as getopt32's "+" does.
func seconds(v string) (time.Duration, bool) {
	n, err := strconv.ParseUint(v, 10, 31)
	return time.Duration(n) * time.Second, err == nil
}

// ConnText is strerror's wording of a dial error, as busybox's and
// netcat's messages print it.
func ConnText(err error) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "refused"):
		return "Connection refused"
	case strings.Contains(s, "timed out") || strings.Contains(s, "deadline") || strings.Contains(s, "canceled"):
		return "Connection timed out"
	case strings.Contains(s, "unreachable"):
		return "Network is unreachable"
	case strings.Contains(s, "reset"):
		return "Connection reset by peer"
	}
	return s
}

func isRefused(err error) bool { return strings.Contains(err.Error(), "refused") }

// service is the name /etc/services gives port/proto, "" when none.
func service(p *program.Proc, port, proto string) string {
	f, err := p.Sys.FS.OpenFile("/etc/services", os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	want := port + "/" + proto
	for _, l := range strings.Split(string(data), "\n") {
		if fs := strings.Fields(l); len(fs) >= 2 && fs[1] == want && !strings.HasPrefix(fs[0], "#") {
			return fs[0]
		}
	}
	return ""
}

// usage prints a busybox applet's --help text, its options from the table.
func busyboxUsage(p *program.Proc, trivial, full string, t Options) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nUsage: %s %s\n\n%s\n", busyboxBanner, program.Name(p.Args[0]), trivial, full)
	for _, o := range t.List {
		if o.Short == 0 || o.Help == "" {
			continue
		}
		fmt.Fprintf(&b, "\n\t-%c", o.Short)
		if o.Arg != "" {
			fmt.Fprintf(&b, " %s", o.Arg)
		}
		fmt.Fprintf(&b, "\t%s", o.Help)
	}
	b.WriteString("\n")
	fmt.Fprint(p.Stderr, b.String())
}

// BusyboxOptionError words a command line busybox's getopt refuses, as
// the applet p runs under prints it (the usage, if any, is the caller's).
func BusyboxOptionError(p *program.Proc, err error) { bbOptionError(p, err) }

// BusyboxBanner is the first line of a busybox applet's usage.
const BusyboxBanner = busyboxBanner

// busyboxBanner is the first line of a busybox applet's usage.
const busyboxBanner = "BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary."
