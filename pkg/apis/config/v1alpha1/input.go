package v1alpha1

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/kubeversion"
)

// KubernetesMinor reads the minor of kubernetesVersion ("v1.27.16",
// "1.27" or "v1.27").
func (c *Cluster) KubernetesMinor() (int, error) {
	return ParseKubernetesMinor(c.KubernetesVersion)
}

// ParseKubernetesMinor reads the minor of a Kubernetes version such as
// v1.27.16, 1.27 or v1.27. It is kubeversion's parser, stricter: a config
// names a release, whose tag `winkube plan` writes into image names, so a
// bare minor ("27") or a vendor's build suffix ("+k3s1"), which servers
// report and kubeversion reads, is refused here.
func ParseKubernetesMinor(v string) (int, error) {
	if !strings.Contains(v, ".") || strings.ContainsAny(v, "+ \t") {
		return 0, fmt.Errorf("invalid Kubernetes version %q: want a release such as %s or 1.27", v, DefaultKubernetesVersion)
	}
	return kubeversion.ParseMinor(v)
}

// DefaultAPIServerPort is the port of a controlPlaneEndpoint without one.
const DefaultAPIServerPort = "6443"

// EndpointURL is the https URL of the control-plane endpoint, or "" when
// the config has none.
func (c *Cluster) EndpointURL() string {
	if c.ControlPlaneEndpoint == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(c.ControlPlaneEndpoint)
	if err != nil {
		host, port = c.ControlPlaneEndpoint, DefaultAPIServerPort
	}
	return "https://" + net.JoinHostPort(host, port)
}

// validateEndpoint accepts host or host:port, as kubeadm's
// controlPlaneEndpoint does.
func validateEndpoint(ep string, path *field.Path) field.ErrorList {
	if ep == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(ep)
	if err != nil {
		host, port = ep, DefaultAPIServerPort
	}
	msg := "must be host or host:port of the API server, such as 192.168.1.10:6443 (no scheme)"
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return field.ErrorList{field.Invalid(path, ep, msg)}
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	if len(validation.IsDNS1123Subdomain(host)) > 0 {
		return field.ErrorList{field.Invalid(path, ep, msg)}
	}
	return nil
}

func validateFlannelInput(f *Flannel, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch f.Backend {
	case BackendVXLAN:
		if f.VNI < 1 || f.VNI > 1<<24-1 {
			errs = append(errs, field.Invalid(path.Child("vni"), f.VNI, "must be a VXLAN network ID between 1 and 16777215 (use 4096)"))
		}
		if f.Port < 1 || f.Port > 65535 {
			errs = append(errs, field.Invalid(path.Child("port"), f.Port, "must be a UDP port (use 4789)"))
		}
	case BackendHostGW:
		if f.VNI != 0 || f.Port != 0 {
			errs = append(errs, field.Forbidden(path.Child("vni"), "vni and port are settings of the vxlan backend; remove them for host-gw"))
		}
	case "":
		// Only when network.mode is invalid, which is reported there.
	default:
		errs = append(errs, field.NotSupported(path.Child("backend"), f.Backend, []string{BackendVXLAN, BackendHostGW}))
	}
	return errs
}

// validateNodes checks each pool's nodes list and that node names and
// management IPs are unique over the whole cluster.
func validateNodes(c *Cluster, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	ips := map[netip.Addr]bool{}
	for i := range c.NodePools {
		p := &c.NodePools[i]
		pp := path.Index(i)
		if len(p.Nodes) > 0 && p.Replicas() != len(p.Nodes) {
			errs = append(errs, field.Invalid(pp.Child("count"), p.Replicas(),
				fmt.Sprintf("must equal the length of nodePools[%d].nodes (%d); leave it out to take the list's length", i, len(p.Nodes))))
		}
		for j, n := range p.Nodes {
			np := pp.Child("nodes").Index(j)
			errs = append(errs, validatePoolNode(n, np)...)
			if names[n.Name] {
				errs = append(errs, field.Duplicate(np.Child("name"), n.Name))
			}
			names[n.Name] = true
			if a, err := netip.ParseAddr(n.ManagementIP); err == nil {
				if ips[a] {
					errs = append(errs, field.Duplicate(np.Child("managementIP"), n.ManagementIP))
				}
				ips[a] = true
			}
		}
	}
	return errs
}

func validatePoolNode(n PoolNode, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(n.Name) {
		errs = append(errs, field.Invalid(path.Child("name"), n.Name, msg))
	}
	if n.ManagementIP != "" {
		if a, err := netip.ParseAddr(n.ManagementIP); err != nil || !a.Is4() {
			errs = append(errs, field.Invalid(path.Child("managementIP"), n.ManagementIP, "must be the node's IPv4 address, as ipconfig shows it"))
		}
	}
	if strings.ContainsAny(n.InterfaceName, "\"`$\r\n") {
		errs = append(errs, field.Invalid(path.Child("interfaceName"), n.InterfaceName, "must be an adapter name as ipconfig shows it, without quotes, backticks or $"))
	}
	return errs
}

func validateProxy(p *Proxy, path *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	for _, f := range []struct{ name, value string }{{"httpProxy", p.HTTPProxy}, {"httpsProxy", p.HTTPSProxy}} {
		if f.value == "" {
			continue
		}
		u, err := url.Parse(f.value)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(f.value, "\"`$") {
			errs = append(errs, field.Invalid(path.Child(f.name), f.value, "must be a URL such as http://proxy.example.com:80/"))
		}
	}
	if p.HTTPProxy == "" && p.HTTPSProxy == "" {
		errs = append(errs, field.Required(path.Child("httpProxy"), "set httpProxy or httpsProxy, or remove proxy"))
	}
	if strings.ContainsAny(p.NoProxy, "\"`$ ") {
		errs = append(errs, field.Invalid(path.Child("noProxy"), p.NoProxy, "must be a comma-separated list of hosts and CIDRs without spaces"))
	}
	return errs
}
