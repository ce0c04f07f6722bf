package install

import (
	"net"
	"net/url"
	"path/filepath"
	"strings"
)

// ServeLine is the command line that serves a webhook registered at the
// URL rawURL (already checked) with the certificates written to certDir:
// command (`winkube webhook serve`), --listen where the URL points, the
// key pair, then args (the flags that name the cluster, the webhook's
// own). An IP address in the URL is where to listen; a name may resolve
// to an address this machine does not own (a load balancer), so the line
// listens on all addresses then.
func ServeLine(command, rawURL, certDir string, args ...string) string {
	u, _ := url.Parse(rawURL)
	port := u.Port()
	if port == "" {
		port = "443"
	}
	listen := ":" + port
	if net.ParseIP(u.Hostname()) != nil {
		listen = net.JoinHostPort(u.Hostname(), port)
	}
	parts := []string{command, "--listen " + listen,
		"--tls-cert-file " + filepath.Join(certDir, CertFile),
		"--tls-private-key-file " + filepath.Join(certDir, KeyFile)}
	return strings.Join(append(parts, args...), " ")
}
