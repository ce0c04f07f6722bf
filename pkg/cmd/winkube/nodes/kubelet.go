package nodes

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/node"
)

// kubeletFlags say where the nodes' kubelet API listens for the cluster's
// apiserver and with which certificate.
type kubeletFlags struct {
	address      string
	port         int
	certFile     string
	keyFile      string
	approveCSR   bool
	clientCAFile string
	// clientCA is --kubelet-client-ca's PEM, read by validate.
	clientCA []byte
}

func (k *kubeletFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&k.address, "kubelet-address", "", "IP address to serve the nodes' kubelet API on, one the cluster's API server can reach "+
		"(default: this machine's address on the route to the API server; 127.0.0.1 for a local one). 0.0.0.0 binds every interface")
	fs.IntVar(&k.port, "kubelet-port", 10250, "kubelet port of the first node; the others get the next ports in node name order (0: the system picks each)")
	fs.StringVar(&k.certFile, "kubelet-tls-cert", "", "PEM serving certificate for every node's kubelet API (with --kubelet-tls-key; default: a certificate signing request per node)")
	fs.StringVar(&k.keyFile, "kubelet-tls-key", "", "PEM private key of --kubelet-tls-cert")
	fs.BoolVar(&k.approveCSR, "approve-csr", false, "approve the nodes' kubelet-serving certificate signing requests (the kubeconfig's identity must be allowed to)")
	fs.StringVar(&k.clientCAFile, "kubelet-client-ca", "", "PEM CA bundle the nodes' kubelet API verifies client certificates with, as a kubelet's clientCAFile: "+
		"it must have signed the API server's --kubelet-client-certificate (default: the kubeconfig's certificate authority, "+
		"which does for kubeadm, kind and winkube up; k3s: /var/lib/rancher/k3s/server/tls/client-ca.crt). "+
		"Other callers need a bearer token; the kubeconfig's identity must create tokenreviews and subjectaccessreviews (ClusterRole system:auth-delegator)")
}

// validate checks what needs no cluster; its errors are usage errors.
func (k *kubeletFlags) validate() error {
	if k.address != "" {
		if _, err := netip.ParseAddr(k.address); err != nil {
			return fmt.Errorf("--kubelet-address %q: not an IP address", k.address)
		}
	}
	if k.port < 0 || k.port > 65535 {
		return fmt.Errorf("--kubelet-port %d: not a port (0 to 65535)", k.port)
	}
	if (k.certFile == "") != (k.keyFile == "") {
		return errors.New("--kubelet-tls-cert and --kubelet-tls-key go together")
	}
	if k.certFile != "" && k.approveCSR {
		return errors.New("--approve-csr has nothing to approve with --kubelet-tls-cert")
	}
	if k.clientCAFile != "" {
		ca, err := cluster.ReadCA(k.clientCAFile)
		if err != nil {
			return fmt.Errorf("--kubelet-client-ca %s: %w", k.clientCAFile, err)
		}
		k.clientCA = ca
	}
	return nil
}

// serving builds the agent's listener options for the cluster of cfg,
// which source (a flag or variable) named.
func (k *kubeletFlags) serving(cfg *rest.Config, source string, nodes int) (*node.KubeletServing, error) {
	host := cfg.Host
	if k.port > 0 && k.port+nodes-1 > 65535 {
		return nil, &cmd.ExitError{Code: 2, Err: fmt.Errorf("--kubelet-port %d: %d nodes need ports up to %d", k.port, nodes, k.port+nodes-1)}
	}
	s := &node.KubeletServing{Port: k.port}
	if k.address != "" {
		s.Listen = netip.MustParseAddr(k.address)
	}
	if !s.Listen.IsValid() || s.Listen.IsUnspecified() {
		route, err := cluster.RouteTo(host)
		if err != nil {
			return nil, fmt.Errorf("no address of this machine routes to the API server %s (set --kubelet-address): %w", host, err)
		}
		s.Advertise = route
		if !s.Listen.IsValid() {
			s.Listen = route
		}
	} else {
		s.Advertise = s.Listen
	}
	if k.certFile != "" {
		cert, err := tls.LoadX509KeyPair(k.certFile, k.keyFile)
		if err != nil {
			return nil, fmt.Errorf("--kubelet-tls-cert %s / --kubelet-tls-key %s: %w", k.certFile, k.keyFile, err)
		}
		s.Cert = &cert
	}
	ca, err := k.clientCAPEM(cfg, source)
	if err != nil {
		return nil, err
	}
	s.ClientCA = ca
	return s, nil
}

// clientCAPEM is the CA bundle the kubelet API verifies client
// certificates with: --kubelet-client-ca, else the kubeconfig's.
func (k *kubeletFlags) clientCAPEM(cfg *rest.Config, source string) ([]byte, error) {
	if k.clientCA != nil {
		return k.clientCA, nil
	}
	ca, source, err := kubeconfigCA(cfg, source)
	if err != nil {
		return nil, fmt.Errorf("--kubelet-client-ca defaults to the certificate authority of %s: %w", source, err)
	}
	if len(ca) == 0 {
		return nil, fmt.Errorf("--kubelet-client-ca is needed: %s names no certificate authority to default to (insecure-skip-tls-verify?); "+
			"give the CA that signed the API server's --kubelet-client-certificate", source)
	}
	if err := cluster.CheckCA(ca); err != nil {
		return nil, fmt.Errorf("--kubelet-client-ca defaults to the certificate authority of %s, which is unusable: %w", source, err)
	}
	return ca, nil
}

// kubeconfigCA is cluster.ServerCA, and where it came from: source, with
// the CA file the kubeconfig names.
func kubeconfigCA(cfg *rest.Config, source string) ([]byte, string, error) {
	if len(cfg.CAData) == 0 && cfg.CAFile != "" {
		source += " (" + cfg.CAFile + ")"
	}
	ca, err := cluster.ServerCA(cfg)
	return ca, source, err
}

// listenError names the flag to change when a listener cannot be bound.
func (k *kubeletFlags) listenError(err error) error {
	var le *node.ListenError
	if !errors.As(err, &le) {
		return err
	}
	if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EACCES) {
		return fmt.Errorf("--kubelet-port %d: %w (pick another port, or 0 to let the system pick)", k.port, err)
	}
	return fmt.Errorf("--kubelet-address %s: %w (use an address of this machine)", le.Addr, err)
}

// joinError names the flag that fixes a failed join.
func (k *kubeletFlags) joinError(err error) error {
	var je *cluster.JoinError
	if !errors.As(err, &je) {
		return err
	}
	switch je.Step {
	case cluster.JoinStart:
		return fmt.Errorf("starting the emulated nodes: %w", k.listenError(je.Err))
	case cluster.JoinReach:
		return fmt.Errorf("--kubelet-address: %w\n  pass an address of this machine that the API server can reach; "+
			"for kind, the gateway of its docker network (docker network inspect kind)", je.Err)
	}
	return je.Err
}
