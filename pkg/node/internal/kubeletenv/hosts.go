package kubeletenv

import (
	"bytes"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Headers of the kubelet-managed hosts file (kubelet_pods.go).
const (
	hostsHeader            = "# Kubernetes-managed hosts file.\n"
	hostsHeaderHostNetwork = "# Kubernetes-managed hosts file (host network).\n"
)

// HostsFile is managedHostsFileContent (kubelet_pods.go), byte for byte:
// the header, the localhost lines, one line per pod IP naming the host
// (with its FQDN first when the pod has a domain), then the pod's
// hostAliases.
func HostsFile(pod *corev1.Pod, podIPs []string, hostName, domainName string) []byte {
	var b bytes.Buffer
	b.WriteString(hostsHeader)
	b.WriteString("127.0.0.1\tlocalhost\n")
	b.WriteString("::1\tlocalhost ip6-localhost ip6-loopback\n")
	b.WriteString("fe00::0\tip6-localnet\n")
	b.WriteString("fe00::0\tip6-mcastprefix\n")
	b.WriteString("fe00::1\tip6-allnodes\n")
	b.WriteString("fe00::2\tip6-allrouters\n")
	for _, ip := range podIPs {
		if domainName != "" {
			fmt.Fprintf(&b, "%s\t%s.%s\t%s\n", ip, hostName, domainName, hostName)
		} else {
			fmt.Fprintf(&b, "%s\t%s\n", ip, hostName)
		}
	}
	b.Write(hostAliasLines(pod.Spec.HostAliases))
	return b.Bytes()
}

// HostNetworkHostsFile is what a hostNetwork pod gets (nodeHostsFileContent):
// the node's own hosts file under the host-network header, then the
// hostAliases.
func HostNetworkHostsFile(pod *corev1.Pod, nodeHosts []byte) []byte {
	var b bytes.Buffer
	b.WriteString(hostsHeaderHostNetwork)
	b.Write(nodeHosts)
	b.Write(hostAliasLines(pod.Spec.HostAliases))
	return b.Bytes()
}

// DefaultNodeHosts stands in for an emulated node's /etc/hosts, which has
// no host file behind it: the usual localhost lines and the node's name on
// the loopback, as a freshly installed Debian/Ubuntu node has.
func DefaultNodeHosts(nodeName string) []byte {
	return []byte("127.0.0.1\tlocalhost\n127.0.1.1\t" + nodeName + "\n\n" +
		"# The following lines are desirable for IPv6 capable hosts\n" +
		"::1     ip6-localhost ip6-loopback\nfe00::0 ip6-localnet\nff00::0 ip6-mcastprefix\n" +
		"ff02::1 ip6-allnodes\nff02::2 ip6-allrouters\n")
}

// hostAliasLines is hostsEntriesFromHostAliases: a blank line, a comment
// and one tab-separated line per alias IP.
func hostAliasLines(aliases []corev1.HostAlias) []byte {
	if len(aliases) == 0 {
		return nil
	}
	var b bytes.Buffer
	b.WriteString("\n# Entries added by HostAliases.\n")
	for _, a := range aliases {
		fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
	}
	return b.Bytes()
}
