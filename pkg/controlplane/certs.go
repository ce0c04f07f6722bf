package controlplane

import (
	"fmt"
	"net"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/winkube/winkube/pkg/controlplane/internal/pki"
)

// clusterName names the cluster, context and kube-controller-manager's
// --cluster-name.
const clusterName = "winkube"

// credentials is what the parent process itself needs once the files exist.
type credentials struct {
	caPEM []byte
	admin *pki.Issued
}

// signedBy says which CA issues a leaf. The front-proxy CA is separate because
// the apiserver trusts any certificate it signs to assert a user identity in
// request headers.
type signedBy int

const (
	clusterCA signedBy = iota
	frontProxyCA
)

type leafSpec struct {
	ca   signedBy
	leaf pki.Leaf
	// kubeconfig, if set, is written for this client identity.
	kubeconfig string
}

// leafSpecs lists every certificate a start issues, as data.
func leafSpecs(l *layout) []leafSpec {
	loopback := pki.Leaf{DNSNames: []string{"localhost"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}}
	serving := func(name string) pki.Leaf {
		lf := loopback
		lf.Name, lf.CommonName, lf.Server = name+"-serving", name, true
		return lf
	}
	client := func(name, cn string, orgs ...string) pki.Leaf {
		return pki.Leaf{Name: name, CommonName: cn, Organization: orgs, Client: true}
	}
	apiserver := serving("kube-apiserver")
	apiserver.DNSNames = append(apiserver.DNSNames, "kubernetes", "kubernetes.default",
		"kubernetes.default.svc", "kubernetes.default.svc.cluster.local")
	// As kubeadm's, the serving certificate covers the address the
	// apiserver advertises: the "kubernetes" endpoints name it, and a
	// client that follows them (OIDC discovery's jwks_uri) verifies it.
	apiserver.IPs = append(apiserver.IPs, net.IP(firstServiceIP(l.opts.ServiceCIDR).AsSlice()), net.ParseIP(advertiseAddress()))
	etcd := serving("etcd")
	etcd.Client = true // etcd's peer listener uses it both ways

	return []leafSpec{
		{leaf: apiserver},
		{leaf: etcd},
		{leaf: client("kube-apiserver-etcd-client", "kube-apiserver-etcd-client")},
		// Lets the apiserver reach emulated kubelets for logs/exec as cluster-admin.
		{leaf: client("kube-apiserver-kubelet-client", "kube-apiserver-kubelet-client", "system:masters")},
		{ca: frontProxyCA, leaf: client("front-proxy-client", "front-proxy-client")},
		{leaf: serving("kube-scheduler")},
		{leaf: serving("kube-controller-manager")},
		// The upstream RBAC bootstrap policy grants these exact user names.
		{leaf: client("kube-scheduler-client", "system:kube-scheduler"), kubeconfig: l.kubeconfig("kube-scheduler")},
		{leaf: client("kube-controller-manager-client", "system:kube-controller-manager"),
			kubeconfig: l.kubeconfig("kube-controller-manager")},
		{leaf: client("admin", "winkube-admin", "system:masters"), kubeconfig: l.adminKubeconfig()},
	}
}

// writeCertificates loads or creates the CAs and service-account key, issues
// every leaf certificate and writes the kubeconfigs.
func writeCertificates(l *layout) (*credentials, error) {
	dir := l.path("pki")
	cas := map[signedBy]*pki.CA{}
	var err error
	if cas[clusterCA], err = pki.LoadOrCreateCA(dir, "ca", "winkube-ca"); err != nil {
		return nil, fmt.Errorf("cluster CA: %w", err)
	}
	if cas[frontProxyCA], err = pki.LoadOrCreateCA(dir, "front-proxy-ca", "winkube-front-proxy-ca"); err != nil {
		return nil, fmt.Errorf("front-proxy CA: %w", err)
	}
	if _, _, err := pki.LoadOrCreateKeyPair(dir, "sa"); err != nil {
		return nil, fmt.Errorf("service-account key: %w", err)
	}
	creds := &credentials{caPEM: cas[clusterCA].CertPEM}
	for _, spec := range leafSpecs(l) {
		issued, err := cas[spec.ca].Issue(dir, spec.leaf)
		if err != nil {
			return nil, fmt.Errorf("issue %s certificate: %w", spec.leaf.Name, err)
		}
		if spec.kubeconfig == "" {
			continue
		}
		if err := writeKubeconfig(spec.kubeconfig, l.httpsURL(apiserverName), spec.leaf.CommonName, creds.caPEM, issued); err != nil {
			return nil, err
		}
		if spec.kubeconfig == l.adminKubeconfig() {
			creds.admin = issued
		}
	}
	return creds, nil
}

// writeKubeconfig writes a single-context kubeconfig with the credentials
// embedded, so it keeps working when copied elsewhere.
func writeKubeconfig(path, server, user string, caPEM []byte, c *pki.Issued) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[clusterName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: c.CertPEM, ClientKeyData: c.KeyPEM}
	cfg.Contexts[clusterName] = &clientcmdapi.Context{Cluster: clusterName, AuthInfo: user}
	cfg.CurrentContext = clusterName
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}
