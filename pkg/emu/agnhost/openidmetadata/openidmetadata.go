// Package openidmetadata is the check of agnhost's
// test-service-account-issuer-discovery (test/images/agnhost/
// openidmetadata of Kubernetes v1.36.3), whose main cannot be called
// (it reads the host's files and flags, and exits). Validate is its
// validate, with the same libraries (go-oidc, go-jose), log lines and
// claim types: the package name keeps %#v's output as upstream prints
// it. The caller gives the container's HTTP client, clock and log.
package openidmetadata

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/coreos/go-oidc"
	"gopkg.in/go-jose/go-jose.v2/jwt"
)

// Env is what validate takes from its process.
type Env struct {
	Client   *http.Client // the oauth2.HTTPClient of the context
	Now      func() time.Time
	Audience string
	Printf   func(format string, args ...any) // log.Printf
	// EnsureDNS is Windows' wait for the issuer's name (nil elsewhere).
	EnsureDNS func(issuer string) error
}

// ErrFatal wraps the errors upstream ends on with log.Fatal inside
// validate, not returned to main's fallback.
type ErrFatal struct{ Err error }

func (e ErrFatal) Error() string { return e.Err.Error() }

// Validate checks raw against the issuer's discovery document and keys.
func Validate(ctx context.Context, env Env, raw string) error {
	tok, err := jwt.ParseSigned(raw)
	if err != nil {
		return ErrFatal{err}
	}
	var unsafeClaims claims
	if err := tok.UnsafeClaimsWithoutVerification(&unsafeClaims); err != nil {
		return ErrFatal{err}
	}
	env.Printf("OK: got issuer %s", unsafeClaims.Issuer)
	env.Printf("Full, not-validated claims: \n%#v", unsafeClaims)

	if env.EnsureDNS != nil {
		if err := env.EnsureDNS(unsafeClaims.Issuer); err != nil {
			return ErrFatal{err}
		}
	}

	ctx = oidc.ClientContext(ctx, env.Client)
	iss, err := oidc.NewProvider(ctx, unsafeClaims.Issuer)
	if err != nil {
		return err
	}
	env.Printf("OK: Constructed OIDC provider for issuer %v", unsafeClaims.Issuer)

	validTok, err := iss.Verifier(&oidc.Config{
		ClientID:             env.Audience,
		SupportedSigningAlgs: []string{oidc.RS256, oidc.ES256},
		Now:                  env.Now,
	}).Verify(ctx, raw)
	if err != nil {
		return err
	}
	env.Printf("OK: Validated signature on JWT")

	var safeClaims claims
	if err := validTok.Claims(&safeClaims); err != nil {
		return err
	}
	env.Printf("OK: Got valid claims from token!")
	env.Printf("Full, validated claims: \n%#v", &safeClaims)
	return nil
}

type kubeName struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
}

type kubeClaims struct {
	Namespace      string   `json:"namespace"`
	ServiceAccount kubeName `json:"serviceaccount"`
}

type claims struct {
	jwt.Claims

	Kubernetes kubeClaims `json:"kubernetes.io"`
}

func (k *claims) String() string {
	return fmt.Sprintf("%s/%s for %s", k.Kubernetes.Namespace, k.Kubernetes.ServiceAccount.Name, k.Audience)
}
