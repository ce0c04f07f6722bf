package selfimage

import (
	"fmt"
	"net"
	"net/http"
	"net/url"

	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/emu/program"
)

// serviceAccountDir is where the kubelet mounts the pod's service account
// token, CA and namespace.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// restConfig is rest.InClusterConfig read from the container: the
// KUBERNETES_SERVICE_* variables, the token and the CA in its filesystem,
// every connection made through the pod network.
func restConfig(p *program.Proc, f *serveFlags) (*rest.Config, error) {
	switch {
	case f.kubeconfig != "":
		return nil, fmt.Errorf("--kubeconfig %s: the emulated winkube image reaches the cluster only through its pod's service account; remove --kubeconfig", f.kubeconfig)
	case f.dataDir != "":
		return nil, fmt.Errorf("--data-dir %s: the emulated winkube image reaches the cluster only through its pod's service account; remove --data-dir", f.dataDir)
	}
	host, port := p.Getenv("KUBERNETES_SERVICE_HOST"), p.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		// Where the real command would fall back on $KUBECONFIG or a
		// data dir of the host, which a pod does not have.
		return nil, fmt.Errorf("in-cluster config (or set --kubeconfig): %w", rest.ErrNotInCluster)
	}
	token, err := readFile(p, serviceAccountDir+"/token")
	if err != nil {
		return nil, fmt.Errorf("in-cluster config (or set --kubeconfig): %w", err)
	}
	ca, err := readFile(p, serviceAccountDir+"/ca.crt")
	if err != nil {
		return nil, fmt.Errorf("in-cluster config (or set --kubeconfig): %w", err)
	}
	return &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		BearerToken:     string(token),
		TLSClientConfig: rest.TLSClientConfig{CAData: ca},
		Dial:            program.NetDialer(p),
		// No proxy: client-go would otherwise read HTTPS_PROXY from the
		// environment of the process that runs the nodes.
		Proxy: func(*http.Request) (*url.URL, error) { return nil, nil },
	}, nil
}
