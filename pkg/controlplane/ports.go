package controlplane

import (
	"errors"
	"fmt"
	"net"
	"strconv"
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
// exits and Err reports its bind error. Every probe stays open until all
// ports are chosen, so at least no two parts get the same port.
func assignPorts(l *layout) error {
	var held []net.Listener
	defer func() {
		for _, h := range held {
			h.Close()
		}
	}()
	listen := func(name string, port int) error {
		h, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
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
	for _, name := range []string{etcdClient, etcdPeer, schedulerName, controllerManagerName} {
		if err := listen(name, 0); err != nil {
			return err
		}
	}
	return nil
}
