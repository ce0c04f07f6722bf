package agnhost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/emu/agnhost/openidmetadata"
)

func issuerDiscoverySetup(fs *pflag.FlagSet) func(context.Context, *app, []string) int {
	var tokenPath, audience string
	fs.StringVar(&tokenPath, "token-path", "", "Path to read service account token from.")
	fs.StringVar(&audience, "audience", "", "Audience to check on received token.")
	return func(ctx context.Context, a *app, _ []string) int {
		return issuerDiscovery(ctx, a, tokenPath, audience)
	}
}

// issuerDiscovery is test-service-account-issuer-discovery's main: it
// validates the token at tokenPath against the discovery document and
// keys of its issuer, first through the API server with the pod's
// in-cluster config, then as an external issuer without credentials.
// log.Fatal is a log line and status 1.
func issuerDiscovery(ctx context.Context, a *app, tokenPath, audience string) int {
	raw, err := readNamed(a.p, tokenPath)
	if err != nil {
		a.log.printf("%s", goError(a.p, err))
		return 1
	}
	a.log.printf("OK: Got token")

	a.log.printf("validating with in-cluster discovery")
	if err := a.inClusterConfig(); err != nil {
		a.log.printf("%v", err)
		return 1
	}
	env := openidmetadata.Env{Now: a.p.Sys.Clock.Now, Audience: audience, Printf: a.log.printf}
	if a.p.Sys.Windows {
		env.EnsureDNS = func(issuer string) error { return a.ensureDNS(ctx, issuer) }
	}
	// The in-cluster client trusts only the cluster CA and sends the
	// pod's service account token, as rest.TransportFor does.
	inCluster := a.inClusterHTTP()
	defer inCluster.CloseIdleConnections()
	inCluster.Transport = bearer{a: a, rt: inCluster.Transport}
	env.Client = inCluster
	err = openidmetadata.Validate(ctx, env, string(raw))
	if err == nil {
		return 0
	}
	if fatal := (openidmetadata.ErrFatal{}); errors.As(err, &fatal) {
		a.log.printf("%v", err)
		return 1
	}
	a.log.printf("%s", fmt.Sprint("failed to validate with in-cluster discovery: ", err))

	a.log.printf("falling back to validating with external discovery")
	// http.DefaultTransport: the system roots, no token.
	external := a.podTransport(nil)
	defer external.CloseIdleConnections()
	env.Client = &http.Client{Transport: external}
	if err := openidmetadata.Validate(ctx, env, string(raw)); err != nil {
		a.log.printf("%v", err)
		return 1
	}
	return 0
}

// bearer adds the mounted service account token to each request,
// re-read as client-go's cached token file source does.
type bearer struct {
	a  *app
	rt http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	token, err := readFile(b.a.p, serviceAccountDir+"token")
	if err == nil && len(strings.TrimSpace(string(token))) > 0 {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	}
	return b.rt.RoundTrip(r)
}

// ensureDNS is upstream's ensureWindowsDNSAvailability: the issuer's
// host must resolve within 20 seconds, tried every 5.
func (a *app) ensureDNS(ctx context.Context, issuer string) error {
	a.log.printf("Ensuring Windows DNS availability")
	u, err := url.Parse(issuer)
	if err != nil {
		return err
	}
	if a.p.Sys.Net == nil {
		return errors.New("timed out waiting for the condition")
	}
	deadline := a.p.Sys.Clock.Now().Add(20 * time.Second)
	for {
		ips, err := a.p.Sys.Net.LookupHost(ctx, u.Host)
		if err == nil {
			a.log.printf("OK: Resolved host %s: %v", u.Host, ips)
			return nil
		}
		a.log.printf("%v", err)
		if !a.p.Sys.Clock.Now().Add(5*time.Second).Before(deadline) || !a.p.Sys.Sleep(ctx, 5*time.Second) {
			return errors.New("timed out waiting for the condition")
		}
	}
}
