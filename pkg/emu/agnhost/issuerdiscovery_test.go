package agnhost

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/agnhost/netcmds"
	jose "gopkg.in/go-jose/go-jose.v2"
	"gopkg.in/go-jose/go-jose.v2/jwt"
	certutil "k8s.io/client-go/util/cert"
)

const testIssuer = "https://kubernetes.default.svc.cluster.local"

// fakeIssuer serves the API server's OIDC discovery document and keys
// on port 443 of pn, over TLS for the issuer's name, to callers with
// the bearer token "sa-default". It returns the CA to trust and a
// signed token for audience.
func fakeIssuer(t *testing.T, pn *pipeNet, audience string) (ca []byte, token string, auths func() []string) {
	t.Helper()
	cert, key, err := certutil.GenerateSelfSignedCertKey("kubernetes.default.svc.cluster.local", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: priv, KeyID: "k1"}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]any{
		"iss": testIssuer, "sub": "system:serviceaccount:ns:default", "aud": []string{audience},
		"iat": epoch.Unix(), "nbf": epoch.Unix(), "exp": epoch.Add(10 * time.Minute).Unix(),
		"kubernetes.io": map[string]any{"namespace": "ns", "serviceaccount": map[string]string{"name": "default", "uid": "u1"}},
	}
	token, err = jwt.Signed(signer).Claims(claims).CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer sa-default" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]any{
				"issuer": testIssuer, "jwks_uri": testIssuer + "/openid/v1/jwks",
				"response_types_supported": []string{"id_token"}, "subject_types_supported": []string{"public"},
				"id_token_signing_alg_values_supported": []string{"RS256"},
			})
		case "/openid/v1/jwks":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &priv.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
		default:
			http.NotFound(w, r)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	pl, _ := pn.Listen(ctx, "tcp", 443)
	l := tls.NewListener(&kit.Listener{L: pl, Port: 443}, &tls.Config{Certificates: []tls.Certificate{pair}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		kit.ServeHTTP(ctx, l, mux, io.Discard, nil)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return cert, token, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func discoveryEnv(t *testing.T, audience string) (*env, *pipeNet, func() []string) {
	pn := &pipeNet{}
	ca, token, auths := fakeIssuer(t, pn, "oidc-discovery-test")
	fsys := newMemFS().
		add("/var/run/secrets/tokens/sa-token", token, 0o600).
		add(netcmds.ServiceAccountDir+"token", "sa-default\n", 0o600).
		add(netcmds.ServiceAccountDir+"ca.crt", string(ca), 0o644)
	e := newEnv(fsys, "/agnhost", "test-service-account-issuer-discovery", "--token-path", "/var/run/secrets/tokens/sa-token", "--audience", audience)
	e.p.Env = []string{"KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443"}
	e.p.Sys.Net = pn
	return e, pn, auths
}

func TestIssuerDiscoveryValidatesInCluster(t *testing.T) {
	e, _, auths := discoveryEnv(t, "oidc-discovery-test")
	if code := e.run(t, context.Background()); code != 0 {
		t.Fatalf("status %d; stderr %s", code, e.stderr)
	}
	out := e.stderr.String()
	for _, want := range []string{
		"log.go:245] OK: Got token\n",
		"] OK: got issuer " + testIssuer + "\n",
		"] Full, not-validated claims: \n",
		"openidmetadata.claims{Claims:jwt.Claims{Issuer:\"" + testIssuer + "\", Subject:\"system:serviceaccount:ns:default\"",
		"] OK: Constructed OIDC provider for issuer " + testIssuer + "\n",
		"] OK: Validated signature on JWT\n",
		"] OK: Got valid claims from token!\n",
		"&openidmetadata.claims{",
		"Kubernetes:openidmetadata.kubeClaims{Namespace:\"ns\", ServiceAccount:openidmetadata.kubeName{Name:\"default\", UID:\"u1\"}}}",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	got := strings.Join(auths(), ",")
	if got != "/.well-known/openid-configuration Bearer sa-default,/openid/v1/jwks Bearer sa-default" {
		t.Errorf("requests %s", got)
	}
}

// A token for another audience fails in-cluster; the external attempt
// (system roots, no token) cannot trust the cluster CA and ends it.
func TestIssuerDiscoveryWrongAudienceFails(t *testing.T) {
	e, _, _ := discoveryEnv(t, "someone-else")
	if code := e.run(t, context.Background()); code != 1 {
		t.Fatalf("status %d; stderr %s", code, e.stderr)
	}
	out := e.stderr.String()
	for _, want := range []string{
		`] failed to validate with in-cluster discovery: oidc: expected audience "someone-else" got ["oidc-discovery-test"]` + "\n",
		"] falling back to validating with external discovery\n",
		"tls: failed to verify certificate: x509: certificate signed by unknown authority\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
}

func TestIssuerDiscoveryErrors(t *testing.T) {
	e := newEnv(nil, "/agnhost", "test-service-account-issuer-discovery", "--token-path=/nope")
	if code := e.run(t, context.Background()); code != 1 || !strings.HasSuffix(e.stderr.String(), "log.go:245] open /nope: no such file or directory\n") {
		t.Errorf("status %d stderr %q", code, e.stderr)
	}
	e = newEnv(newMemFS().add("/t", "not a jwt", 0o644), "/agnhost", "test-service-account-issuer-discovery", "--token-path=/t")
	if code := e.run(t, context.Background()); code != 1 || !strings.HasSuffix(e.stderr.String(), "log.go:245] unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined\n") {
		t.Errorf("status %d stderr %q", code, e.stderr)
	}
	e = newEnv(newMemFS().add("/t", "not a jwt", 0o644).add(netcmds.ServiceAccountDir+"token", "x", 0o600), "/agnhost", "test-service-account-issuer-discovery", "--token-path=/t")
	e.p.Env = []string{"KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443"}
	if code := e.run(t, context.Background()); code != 1 || !strings.HasSuffix(e.stderr.String(), "log.go:245] go-jose/go-jose: compact JWS format must have three parts\n") {
		t.Errorf("status %d stderr %q", code, e.stderr)
	}
}
