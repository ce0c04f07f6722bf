package netcmds

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/agnhost/openidmetadata"
)

// IssuerDiscoverySetup declares the flags of its subcommand and returns its body.
func IssuerDiscoverySetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var tokenPath, audience string
	fs.StringVar(&tokenPath, "token-path", "", "Path to read service account token from.")
	fs.StringVar(&audience, "audience", "", "Audience to check on received token.")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		return issuerDiscovery(ctx, a, tokenPath, audience)
	}
}

// issuerDiscovery is test-service-account-issuer-discovery's main: it
// validates the token at tokenPath against the discovery document and
// keys of its issuer, first through the API server with the pod's
// in-cluster config, then as an external issuer without credentials.
// log.Fatal is a log line and status 1.
func issuerDiscovery(ctx context.Context, a *kit.App, tokenPath, audience string) int {
	raw, err := kit.ReadNamed(a.P, tokenPath)
	if err != nil {
		a.Log.Printf("%s", kit.GoError(a.P, err))
		return 1
	}
	a.Log.Printf("OK: Got token")

	a.Log.Printf("validating with in-cluster discovery")
	if err := inClusterConfig(a); err != nil {
		a.Log.Printf("%v", err)
		return 1
	}
	env := openidmetadata.Env{Now: a.P.Sys.Clock.Now, Audience: audience, Printf: a.Log.Printf}
	if a.P.Sys.Windows {
		env.EnsureDNS = func(issuer string) error { return ensureDNS(a, ctx, issuer) }
	}
	// The in-cluster client trusts only the cluster CA and sends the
	// pod's service account token, as rest.TransportFor does.
	inCluster := inClusterHTTP(a)
	defer inCluster.CloseIdleConnections()
	inCluster.Transport = bearer{a: a, rt: inCluster.Transport}
	env.Client = inCluster
	err = openidmetadata.Validate(ctx, env, string(raw))
	if err == nil {
		return 0
	}
	if fatal := (openidmetadata.ErrFatal{}); errors.As(err, &fatal) {
		a.Log.Printf("%v", err)
		return 1
	}
	a.Log.Printf("%s", fmt.Sprint("failed to validate with in-cluster discovery: ", err))

	a.Log.Printf("falling back to validating with external discovery")
	// http.DefaultTransport: the system roots, no token.
	external := podTransport(a, nil)
	defer external.CloseIdleConnections()
	env.Client = &http.Client{Transport: external}
	if err := openidmetadata.Validate(ctx, env, string(raw)); err != nil {
		a.Log.Printf("%v", err)
		return 1
	}
	return 0
}

// bearer adds the mounted service account token to each request,
// re-read as client-go's cached token file source does.
type bearer struct {
	a  *kit.App
	rt http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	token, err := kit.ReadFile(b.a.P, ServiceAccountDir+"token")
	if err == nil && len(strings.TrimSpace(string(token))) > 0 {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	}
	return b.rt.RoundTrip(r)
}

// ensureDNS is upstream's ensureWindowsDNSAvailability: the issuer's
// host must resolve within 20 seconds, tried every 5.
func ensureDNS(a *kit.App, ctx context.Context, issuer string) error {
	a.Log.Printf("Ensuring Windows DNS availability")
	u, err := url.Parse(issuer)
	if err != nil {
		return err
	}
	if a.P.Sys.Net == nil {
		return errors.New("timed out waiting for the condition")
	}
	deadline := a.P.Sys.Clock.Now().Add(20 * time.Second)
	for {
		ips, err := a.P.Sys.Net.LookupHost(ctx, u.Host)
		if err == nil {
			a.Log.Printf("OK: Resolved host %s: %v", u.Host, ips)
			return nil
		}
		a.Log.Printf("%v", err)
		if !a.P.Sys.Clock.Now().Add(5*time.Second).Before(deadline) || !a.P.Sys.Sleep(ctx, 5*time.Second) {
			return errors.New("timed out waiting for the condition")
		}
	}
}
