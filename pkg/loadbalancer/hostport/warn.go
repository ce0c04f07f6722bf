package hostport

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"syscall"
)

// warn reports once that a Service's address cannot be served, until the
// address leaves the Service or the forwarder. Called with f.mu held.
func (f *Forwarder) warn(key, addr string, err error) {
	if f.warned[key][addr] {
		return
	}
	if f.warned[key] == nil {
		f.warned[key] = map[string]bool{}
	}
	f.warned[key][addr] = true
	if f.opts.Warn != nil {
		f.opts.Warn(fmt.Sprintf("LoadBalancer Service %s: cannot serve %s on this machine: %s", key, addr, f.reason(addr, err)))
	}
}

// forgetWarnings drops the warnings about addresses of key no longer in
// keep, so that they are said again if they come back. Called with f.mu
// held.
func (f *Forwarder) forgetWarnings(key string, keep map[string]bool) {
	for addr := range f.warned[key] {
		if !keep[addr] {
			delete(f.warned[key], addr)
		}
	}
	if len(f.warned[key]) == 0 {
		delete(f.warned, key)
	}
}

// reason words why addr could not be bound and what to do about it.
func (f *Forwarder) reason(addr string, err error) string {
	ap, _ := netip.ParseAddrPort(addr)
	switch {
	case errors.Is(err, syscall.EACCES) && ap.Port() < 1024:
		return fmt.Sprintf("ports below 1024 need root or CAP_NET_BIND_SERVICE%s; allow them with `sudo sysctl -w net.ipv4.ip_unprivileged_port_start=%d`, or use `kubectl port-forward`",
			unprivilegedStart(), ap.Port())
	case errors.Is(err, syscall.EADDRINUSE):
		for key, ls := range f.byKey {
			if _, ok := ls[addr]; ok {
				return "already served for Service " + key
			}
		}
		return "another program of this machine listens there"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		// Linux answers all of 127/8; macOS answers only 127.0.0.1.
		return fmt.Sprintf("the loopback interface does not answer %s (on macOS: sudo ifconfig lo0 alias %s)", ap.Addr(), ap.Addr())
	}
	return err.Error()
}

// unprivilegedStart names the Linux setting that decides the lowest port
// an unprivileged program may bind, when it can be read.
func unprivilegedStart() string {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_unprivileged_port_start")
	if err != nil {
		return ""
	}
	return " (net.ipv4.ip_unprivileged_port_start is " + strings.TrimSpace(string(b)) + ")"
}
