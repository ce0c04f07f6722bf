// Package cni models the files flannel and the Windows CNI plugins work
// from on a node: net-conf.json (the kube-flannel-cfg ConfigMap),
// /run/flannel/subnet.env (NET-8), the node's CNI network config
// (flannel delegating to win-overlay or win-bridge, NET-4, NET-5, NET-7),
// the node annotations flanneld writes and the pod-subnet addresses the
// node's IPAM must keep for itself.
package cni

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// Flannel backend types the Windows flanneld implements (NET-1).
const (
	BackendVXLAN  = "vxlan"
	BackendHostGW = "host-gw"
)

// VXLAN defaults (NET-2). Linux flanneld defaults to VNI 1 and leaves the
// port to the kernel (8472); Windows flanneld defaults to VNI 4096, needs
// at least 4096 and only accepts port 4789.
const (
	LinuxDefaultVNI   = 1
	LinuxDefaultPort  = 8472
	WindowsMinVNI     = 4096
	WindowsVXLANPort  = 4789
	DefaultMACPrefix  = "0E-2A"
	defaultBackend    = "udp" // what flanneld assumes when Backend is missing
	vxlanNetworkName  = "flannel.%d"
	hostGWNetworkName = "cbr0"
)

// NetConf is net-conf.json as flanneld reads it.
type NetConf struct {
	Network   netip.Prefix
	SubnetLen int
	Backend   Backend
}

// Backend is net-conf.json's Backend object. Zero numbers mean "not set".
type Backend struct {
	Type          string
	Name          string
	VNI           int
	Port          int
	MacPrefix     string
	DirectRouting bool
	GBP           bool
}

// ParseNetConf reads net-conf.json. JSON keys match case-insensitively,
// as flanneld's decoder does.
func ParseNetConf(data string) (NetConf, error) {
	var raw struct {
		Network   string
		SubnetLen int
		Backend   json.RawMessage
	}
	if err := json.Unmarshal([]byte(data), &raw); err != nil {
		return NetConf{}, fmt.Errorf("net-conf.json: %w", err)
	}
	var c NetConf
	if raw.Network == "" {
		return c, errors.New("net-conf.json: Network is missing: set it to the cluster CIDR, e.g. 10.244.0.0/16")
	}
	p, err := netip.ParsePrefix(raw.Network)
	if err != nil || !p.Addr().Is4() || p.Masked() != p {
		return c, fmt.Errorf("net-conf.json: Network %q: want an IPv4 network address with a prefix, e.g. 10.244.0.0/16", raw.Network)
	}
	c.Network, c.SubnetLen = p, raw.SubnetLen
	c.Backend.Type = defaultBackend
	if len(raw.Backend) > 0 && string(raw.Backend) != "null" {
		if err := json.Unmarshal(raw.Backend, &c.Backend); err != nil {
			return c, fmt.Errorf("net-conf.json: Backend: %w", err)
		}
	}
	c.Backend.Type = strings.ToLower(c.Backend.Type)
	return c, nil
}

// EffectiveVNI is the VXLAN network ID flanneld on os uses.
func (b Backend) EffectiveVNI(os string) int {
	switch {
	case b.VNI != 0:
		return b.VNI
	case os == "windows":
		return WindowsMinVNI
	}
	return LinuxDefaultVNI
}

// EffectivePort is the VXLAN UDP port flanneld on os uses.
func (b Backend) EffectivePort(os string) int {
	switch {
	case b.Port != 0:
		return b.Port
	case os == "windows":
		return WindowsVXLANPort
	}
	return LinuxDefaultPort
}

// EffectiveMACPrefix is the endpoint MAC prefix on Windows (NET-5).
func (b Backend) EffectiveMACPrefix() string {
	if b.MacPrefix == "" {
		return DefaultMACPrefix
	}
	return b.MacPrefix
}

// NetworkName is the HNS network the Windows flanneld creates: Backend
// Name, else flannel.<VNI> for vxlan and cbr0 for host-gw.
func (b Backend) NetworkName() string {
	switch {
	case b.Name != "":
		return b.Name
	case b.Type == BackendHostGW:
		return hostGWNetworkName
	}
	return fmt.Sprintf(vxlanNetworkName, b.EffectiveVNI("windows"))
}

// WindowsErrors lists why flanneld on a Windows node refuses the
// configuration and exits (NET-2): only vxlan and host-gw exist there,
// VXLAN needs VNI 4096 or more and port 4789, and has no DirectRouting or
// GBP. Each error names the net-conf.json field to change.
func (c NetConf) WindowsErrors() []error {
	b := c.Backend
	switch b.Type {
	case BackendHostGW:
		return nil
	case BackendVXLAN:
	default:
		return []error{fmt.Errorf("net-conf.json Backend.Type %q: flanneld on Windows supports only vxlan and host-gw", b.Type)}
	}
	var errs []error
	if v := b.EffectiveVNI("windows"); v < WindowsMinVNI {
		errs = append(errs, fmt.Errorf("net-conf.json Backend.VNI %d: flanneld on Windows needs a VNI of %d or more (use 4096)", v, WindowsMinVNI))
	}
	if p := b.EffectivePort("windows"); p != WindowsVXLANPort {
		errs = append(errs, fmt.Errorf("net-conf.json Backend.Port %d: flanneld on Windows supports only port %d", p, WindowsVXLANPort))
	}
	if b.DirectRouting {
		errs = append(errs, errors.New("net-conf.json Backend.DirectRouting: not supported by flanneld on Windows; remove it"))
	}
	if b.GBP {
		errs = append(errs, errors.New("net-conf.json Backend.GBP: not supported by flanneld on Windows; remove it"))
	}
	if m := b.EffectiveMACPrefix(); len(m) != 5 || m[2] != '-' {
		errs = append(errs, fmt.Errorf("net-conf.json Backend.MacPrefix %q: want the form xx-xx, e.g. 0E-2A", m))
	}
	return errs
}
