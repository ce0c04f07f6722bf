package registry

import (
	"encoding/base64"
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
)

// dockerHubKeys are the names a pull secret may use for Docker Hub. The
// kubelet's keyring treats them all as docker.io, and so does this package.
var dockerHubKeys = map[string]bool{
	"docker.io":            true,
	"index.docker.io":      true,
	"registry-1.docker.io": true,
}

// credential is one entry of a pull secret, with the key it was filed under.
type credential struct {
	host string // lower-case host[:port], may hold '*' globs
	path string // repository path prefix, may be empty
	cfg  authn.AuthConfig
}

// dockerConfigJSON is the payload of a kubernetes.io/dockerconfigjson
// Secret; the legacy kubernetes.io/dockercfg payload is its "auths" map
// alone.
type dockerConfigJSON struct {
	Auths map[string]dockerConfigEntry `json:"auths"`
}

type dockerConfigEntry struct {
	Auth          string `json:"auth"`
	Username      string `json:"username"`
	Password      string `json:"password"`
	IdentityToken string `json:"identitytoken"`
	RegistryToken string `json:"registrytoken"`
}

// parseSecret reads one pull secret payload in either format. A payload
// that is not JSON, or an entry whose auth field is not base64 of
// user:password, is skipped: the kubelet ignores such secrets too and pulls
// with what is left.
func parseSecret(payload []byte) []credential {
	var cfg dockerConfigJSON
	entries := map[string]dockerConfigEntry{}
	if err := json.Unmarshal(payload, &cfg); err == nil && cfg.Auths != nil {
		entries = cfg.Auths
	} else if err := json.Unmarshal(payload, &entries); err != nil {
		return nil
	}
	var out []credential
	for key, e := range entries {
		c, ok := newCredential(key, e)
		if ok {
			out = append(out, c)
		}
	}
	// More specific keys first, as the kubelet's keyring orders them; the
	// key itself breaks ties so the order does not depend on map iteration.
	sort.Slice(out, func(i, j int) bool {
		li, lj := len(out[i].host)+len(out[i].path), len(out[j].host)+len(out[j].path)
		if li != lj {
			return li > lj
		}
		return out[i].host+"/"+out[i].path < out[j].host+"/"+out[j].path
	})
	return out
}

func newCredential(key string, e dockerConfigEntry) (credential, bool) {
	host, repoPath := splitKey(key)
	if host == "" {
		return credential{}, false
	}
	cfg := authn.AuthConfig{Username: e.Username, Password: e.Password,
		IdentityToken: e.IdentityToken, RegistryToken: e.RegistryToken}
	if e.Auth != "" {
		user, pass, ok := decodeAuth(e.Auth)
		if !ok {
			return credential{}, false
		}
		cfg.Username, cfg.Password = user, pass
	}
	if cfg == (authn.AuthConfig{}) {
		return credential{}, false
	}
	return credential{host: host, path: repoPath, cfg: cfg}, true
}

// splitKey turns a secret key ("https://index.docker.io/v1/",
// "registry.example.com:5000/team", "*.example.com") into a host and a
// repository path prefix.
func splitKey(key string) (host, repoPath string) {
	k := strings.ToLower(strings.TrimSpace(key))
	if i := strings.Index(k, "://"); i >= 0 {
		k = k[i+3:]
	}
	host, repoPath, _ = strings.Cut(k, "/")
	repoPath = strings.Trim(repoPath, "/")
	// The API version path of old Docker Hub keys is not a repository.
	if repoPath == "v1" || repoPath == "v2" {
		repoPath = ""
	}
	if dockerHubKeys[host] {
		host = "docker.io"
	}
	return host, repoPath
}

func decodeAuth(s string) (user, pass string, ok bool) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return "", "", false
	}
	user, pass, ok = strings.Cut(string(raw), ":")
	return user, pass, ok && user != ""
}

// matches reports whether the credential applies to repository (host/path,
// host already folded to docker.io for Docker Hub). Hosts match part by
// part with '*' globs, as the kubelet's keyring does; the path is a prefix
// on whole components.
func (c credential) matches(repository string) bool {
	host, repoPath, _ := strings.Cut(repository, "/")
	if dockerHubKeys[host] {
		host = "docker.io"
	}
	if !hostMatches(c.host, host) {
		return false
	}
	return c.path == "" || repoPath == c.path || strings.HasPrefix(repoPath, c.path+"/")
}

func hostMatches(pattern, host string) bool {
	pHost, pPort, _ := strings.Cut(pattern, ":")
	hHost, hPort, _ := strings.Cut(host, ":")
	if pPort != hPort {
		return false
	}
	pParts, hParts := strings.Split(pHost, "."), strings.Split(hHost, ".")
	if len(pParts) != len(hParts) {
		return false
	}
	for i := range pParts {
		if ok, err := path.Match(pParts[i], hParts[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

// authenticators lists what to try for the repositories, in order: every
// matching credential of every secret (secrets in the order given), then
// anonymous. Several repositories are given when a mirror is in use: the
// host contacted first, then the one the pod named.
func authenticators(secrets [][]byte, repositories ...string) []authn.Authenticator {
	var out []authn.Authenticator
	seen := map[authn.AuthConfig]bool{}
	for _, repo := range repositories {
		for _, payload := range secrets {
			for _, c := range parseSecret(payload) {
				if c.matches(repo) && !seen[c.cfg] {
					seen[c.cfg] = true
					out = append(out, authn.FromConfig(c.cfg))
				}
			}
		}
	}
	return append(out, authn.Anonymous)
}
