package controlplane

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// PortInUseError says which port is taken and which option moves it, so the
// CLI can translate the option into its own flag name.
type PortInUseError struct {
	Component string // e.g. "kube-apiserver"
	Port      int
	Option    string // the Options field that sets the port
	Err       error
}

func (e *PortInUseError) Error() string {
	return fmt.Sprintf("%s port %d on 127.0.0.1 is already in use; choose another with %s (0 picks a free port)",
		e.Component, e.Port, e.Option)
}

func (e *PortInUseError) Unwrap() error { return e.Err }

// assignPorts fills l.ports: the apiserver's from Options (checked now, so a
// taken port fails clearly instead of in the apiserver's log), the rest free.
//
// A free port is free again once we close our probe listener, so another
// process could take it before the component binds it; the component then
// exits and Err reports its bind error. Free ports come from below the
// ephemeral range (listenBelowEphemeral), where outgoing connections never
// land, and every probe stays open until all ports are chosen, so no two
// parts get the same port.
func assignPorts(l *layout) error {
	var held []net.Listener
	defer func() {
		for _, h := range held {
			h.Close()
		}
	}()
	listen := func(name string, port int) error {
		var h net.Listener
		var err error
		if port == 0 {
			h, err = listenBelowEphemeral()
		} else {
			h, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		}
		if errors.Is(err, syscall.EADDRINUSE) {
			return &PortInUseError{Component: name, Port: port, Option: "APIServerPort", Err: err}
		}
		if err != nil {
			return fmt.Errorf("%s port: %w", name, err)
		}
		held = append(held, h)
		l.ports[name] = h.Addr().(*net.TCPAddr).Port
		return nil
	}
	if err := listen(apiserverName, l.opts.APIServerPort); err != nil {
		return err
	}
	for _, name := range []string{etcdClient, etcdHTTP, etcdPeer, schedulerName, controllerManagerName} {
		if err := listen(name, 0); err != nil {
			return err
		}
	}
	return nil
}

// listenBelowEphemeral listens on a free loopback port below the kernel's
// ephemeral range. A port the kernel picks for :0 comes from that range,
// which every outgoing connection draws its local port from too: between
// closing the probe and the component's bind, a client socket of a busy
// machine can take it, and the component fails with "address already in
// use" (seen from kube-controller-manager while tests ran in parallel).
// Below the range only listeners take ports.
func listenBelowEphemeral() (net.Listener, error) {
	const lowest = 10000
	top := ephemeralLow()
	for i := 0; top > lowest && i < 64; i++ {
		port := lowest + rand.IntN(top-lowest)
		if h, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
			return h, nil
		}
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

// ephemeralLow is the first port of the kernel's ephemeral range
// (net.ipv4.ip_local_port_range), 32768 when it cannot be read.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 32768
	}
	lo, err := strconv.Atoi(f[0])
	if err != nil {
		return 32768
	}
	return lo
}
