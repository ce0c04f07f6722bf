package netcmds

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
)

// ServiceAccountDir is where the kubelet mounts a pod's service account
// token and CA, and where client-go's in-cluster config reads them.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount/"

// InClusterClientSetup declares the flags of its subcommand and returns its body.
func InClusterClientSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var seconds int
	fs.IntVar(&seconds, "poll-interval", 30, "poll interval of call to /healthz in seconds")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		return inClusterClient(ctx, a, time.Duration(seconds)*time.Second)
	}
}

// inClusterClient polls the API server's /healthz with the pod's
// in-cluster config (the Service address from the environment, the
// mounted token and CA), logging each call and the hash of the token it
// sent, until stopped. It re-reads the token at each call, as client-go
// does, so a rotated token shows as a new hash.
func inClusterClient(ctx context.Context, a *kit.App, every time.Duration) int {
	a.Log.Line('I', "main.go:61", "started")
	host, port := a.P.Getenv("KUBERNETES_SERVICE_HOST"), a.P.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		a.Log.Printf("err: unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined")
		return 1
	}
	if _, err := kit.ReadFile(a.P, ServiceAccountDir+"token"); err != nil {
		a.Log.Printf("err: %v", err)
		return 1
	}
	client := inClusterHTTP(a)
	url := "https://" + net.JoinHostPort(host, port) + "/healthz"
	for a.P.Sys.Sleep(ctx, every) {
		a.Log.Line('I', "main.go:79", "calling /healthz")
		body, err := healthz(a, ctx, client, url)
		if err != nil {
			a.Log.Line('E', "main.go:82", "status=failed")
			a.Log.Line('E', "main.go:83", fmt.Sprintf("error checking /healthz: %v\n%s\n", err, body))
		}
	}
	return 0
}

// inClusterHTTP is the client of the in-cluster config: TLS with the
// mounted CA, through the pod's network.
func inClusterHTTP(a *kit.App) *http.Client {
	roots := x509.NewCertPool()
	if pem, err := kit.ReadFile(a.P, ServiceAccountDir+"ca.crt"); err == nil {
		roots.AppendCertsFromPEM(pem)
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: podTransport(a, roots)}
}

// podTransport dials through the pod's network, trusting roots (nil:
// the system's, as http.DefaultTransport does).
func podTransport(a *kit.App, roots *x509.CertPool) *http.Transport {
	return &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if a.P.Sys.Net == nil {
				return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connect: network is unreachable")}
			}
			return kit.DialConn(ctx, a.P, network, addr)
		},
	}
}

// healthz makes one call, logging the hashed Authorization header as
// agnhost's debugging round tripper does.
func healthz(a *kit.App, ctx context.Context, client *http.Client, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	if token, err := kit.ReadFile(a.P, ServiceAccountDir+"token"); err == nil && len(token) > 0 {
		auth := "Bearer " + strings.TrimSpace(string(token))
		req.Header.Set("Authorization", auth)
		sum := sha256.Sum256([]byte("salt|" + auth))
		a.Log.Line('I', "main.go:96", "authz_header="+base64.RawURLEncoding.EncodeToString(sum[:]))
	} else {
		a.Log.Line('E', "main.go:98", "authz_header=<empty>")
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return string(body), fmt.Errorf("the server responded with the status code %d but did not return more information", resp.StatusCode)
	}
	return string(body), nil
}
