package controlplane

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"time"
)

// DefaultAPIServerPort is the port the CLI offers by default. Options cannot
// default to it, because APIServerPort 0 already means "pick a free port".
const DefaultAPIServerPort = 6443

// Options configures a control plane. The zero value plus DataDir is valid
// after Default.
type Options struct {
	DataDir          string // required; holds certificates, etcd data, kubeconfigs and logs
	ServiceCIDR      string // default 10.96.0.0/12
	ClusterCIDR      string // default 10.244.0.0/16; node pod CIDRs are carved from it
	NodeCIDRMaskSize int    // default 24 (64 for an IPv6 ClusterCIDR)
	// APIServerPort is the kube-apiserver port on 127.0.0.1; 0 picks a free
	// port. The CLI defaults it to DefaultAPIServerPort.
	APIServerPort int
	// Progress, if set, is called after each start-up step ("certificates",
	// "etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager")
	// with the time it took to become healthy. The last two are reported from
	// a background goroutine after Start has returned, before Ready closes.
	Progress func(step string, took time.Duration)
	// Notice, if set, receives one line for the terminal when a component
	// that was running exits and is restarted, and when it is back.
	Notice func(line string)
	// NodeDialer, if set, answers kube-apiserver's connections to nodes and
	// pods (logs, exec, port-forward, proxy) through an egress proxy in this
	// process; see NodeDialer.
	NodeDialer NodeDialer
	// Nodes is the number of nodes the cluster is sized for: above 100, the
	// components' client limits, concurrent syncs and in-flight limits grow
	// with it (see sizing.go). 0 keeps the upstream defaults.
	Nodes int
	// Flags overrides upstream flags per component name, keyed by the flag
	// name without dashes, over winkube's sized values; it is the Cluster
	// config's controlPlane section, and errors name it so. Flags winkube
	// sets itself (ports, certificates, kubeconfigs, CIDRs) are refused, and
	// Start asks the upstream commands whether they know the rest.
	Flags map[string]map[string]string
	// Executable is the binary re-executed as "<Executable> component <name>
	// <flags...>" for each upstream component; default os.Executable().
	Executable string
}

// Default fills in every unset field.
func (o *Options) Default() {
	if o.ServiceCIDR == "" {
		o.ServiceCIDR = "10.96.0.0/12"
	}
	if o.ClusterCIDR == "" {
		o.ClusterCIDR = "10.244.0.0/16"
	}
	if o.NodeCIDRMaskSize == 0 {
		o.NodeCIDRMaskSize = 24
		if p, err := netip.ParsePrefix(o.ClusterCIDR); err == nil && p.Addr().Is6() {
			o.NodeCIDRMaskSize = 64
		}
	}
	if o.DataDir != "" {
		// Children get absolute paths, whatever their working directory.
		if abs, err := filepath.Abs(o.DataDir); err == nil {
			o.DataDir = abs
		}
	}
	if o.Executable == "" {
		// On error Validate reports the empty field.
		o.Executable, _ = os.Executable()
	}
}

// Validate reports every problem at once, each naming the field to change.
func (o *Options) Validate() error {
	var errs []error
	if o.DataDir == "" {
		errs = append(errs, errors.New("DataDir is required"))
	}
	if o.Executable == "" {
		errs = append(errs, errors.New("Executable is required (os.Executable failed)"))
	}
	if o.Nodes < 0 {
		errs = append(errs, fmt.Errorf("Nodes %d must not be negative", o.Nodes))
	}
	errs = append(errs, validateFlags(*o)...)
	if o.APIServerPort < 0 || o.APIServerPort > 65535 {
		errs = append(errs, fmt.Errorf("APIServerPort %d is not a port number (0 picks a free port)", o.APIServerPort))
	}
	service, err := parseCIDR("ServiceCIDR", o.ServiceCIDR)
	errs = append(errs, err)
	cluster, err := parseCIDR("ClusterCIDR", o.ClusterCIDR)
	errs = append(errs, err)
	if cluster.IsValid() {
		errs = append(errs, validateMaskSize(cluster, o.NodeCIDRMaskSize))
	}
	if service.IsValid() && cluster.IsValid() && service.Overlaps(cluster) {
		errs = append(errs, fmt.Errorf("ServiceCIDR %s overlaps ClusterCIDR %s", service, cluster))
	}
	return errors.Join(errs...)
}

func parseCIDR(field, value string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(value)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%s %q is not a CIDR: %w", field, value, err)
	}
	if p != p.Masked() {
		return netip.Prefix{}, fmt.Errorf("%s %q has host bits set (did you mean %s?)", field, value, p.Masked())
	}
	return p, nil
}

func validateMaskSize(cluster netip.Prefix, size int) error {
	if size <= cluster.Bits() || size > cluster.Addr().BitLen() {
		return fmt.Errorf("NodeCIDRMaskSize %d must be longer than ClusterCIDR's /%d and at most %d",
			size, cluster.Bits(), cluster.Addr().BitLen())
	}
	return nil
}

// firstServiceIP is the ClusterIP the apiserver gives the "kubernetes"
// service, so it must be in the serving certificate.
func firstServiceIP(serviceCIDR string) netip.Addr {
	return netip.MustParsePrefix(serviceCIDR).Masked().Addr().Next()
}
