package kubeletenv

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	kubeletutil "k8s.io/kubernetes/pkg/kubelet/util"
)

// PodHostname is GeneratePodHostNameAndDomain (kubelet_pods.go): the short
// host name (hostnameOverride, else spec.hostname, else the pod name, cut
// to 63 characters) and the domain <subdomain>.<ns>.svc.<clusterDomain>
// when spec.subdomain is set.
func PodHostname(pod *corev1.Pod, clusterDomain string) (hostname, domain string, err error) {
	if o := pod.Spec.HostnameOverride; o != nil {
		if msgs := utilvalidation.IsDNS1123Subdomain(*o); len(msgs) != 0 {
			return "", "", fmt.Errorf("pod HostnameOverride %q is not a valid DNS subdomain: %s", *o, strings.Join(msgs, ";"))
		}
		h, err := truncateHostname(pod.Name, *o)
		return h, "", err
	}
	hostname = pod.Name
	if pod.Spec.Hostname != "" {
		if msgs := utilvalidation.IsDNS1123Label(pod.Spec.Hostname); len(msgs) != 0 {
			return "", "", fmt.Errorf("pod Hostname %q is not a valid DNS label: %s", pod.Spec.Hostname, strings.Join(msgs, ";"))
		}
		hostname = pod.Spec.Hostname
	}
	if hostname, err = truncateHostname(pod.Name, hostname); err != nil {
		return "", "", err
	}
	if pod.Spec.Subdomain != "" {
		if msgs := utilvalidation.IsDNS1123Label(pod.Spec.Subdomain); len(msgs) != 0 {
			return "", "", fmt.Errorf("pod Subdomain %q is not a valid DNS label: %s", pod.Spec.Subdomain, strings.Join(msgs, ";"))
		}
		domain = fmt.Sprintf("%s.%s.svc.%s", pod.Spec.Subdomain, pod.Namespace, clusterDomain)
	}
	return hostname, domain, nil
}

// truncateHostname caps a host name at 63 characters without a trailing
// '-' or '.' (truncatePodHostnameIfNeeded).
func truncateHostname(podName, hostname string) (string, error) {
	const maxLen = 63
	if len(hostname) <= maxLen {
		return hostname, nil
	}
	cut := strings.TrimRight(hostname[:maxLen], "-.")
	if cut == "" {
		return "", fmt.Errorf("hostname for pod %q was invalid: %q", podName, hostname)
	}
	return cut, nil
}

// SandboxHostname is the host name the container sees (uname -n, HOSTNAME,
// /etc/hostname): the FQDN when setHostnameAsFQDN, the node's name for
// hostNetwork pods (the kubelet leaves the sandbox hostname empty and the
// runtime uses the node's), else the pod host name
// (pkg/kubelet/kuberuntime/kuberuntime_sandbox.go).
func SandboxHostname(pod *corev1.Pod, node Node) (string, error) {
	if pod.Spec.HostNetwork {
		return node.Name, nil
	}
	hostname, domain, err := PodHostname(pod, node.ClusterDomain)
	if err != nil {
		return "", err
	}
	return kubeletutil.GetNodenameForKernel(hostname, domain, pod.Spec.SetHostnameAsFQDN)
}

// ComputerName is the NetBIOS name Windows derives from the host name:
// upper case, at most 15 characters (COMPUTERNAME, `hostname` shows the
// full name).
func ComputerName(hostname string) string {
	name := strings.ToUpper(hostname)
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[:i]
	}
	if len(name) > 15 {
		name = name[:15]
	}
	return name
}
