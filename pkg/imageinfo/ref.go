package imageinfo

import "strings"

// Docker Hub's canonical names (IMG-3 lookups use the same normalisation as
// containerd: "nginx" is "docker.io/library/nginx:latest").
const (
	dockerHub     = "docker.io"
	dockerLibrary = "library"
	defaultTag    = "latest"
)

// registryAliases maps old or alternative registry hosts to the one the
// catalog uses. k8s.gcr.io was frozen in 2023 and redirects to registry.k8s.io.
var registryAliases = map[string]string{
	"index.docker.io":      dockerHub,
	"registry-1.docker.io": dockerHub,
	"k8s.gcr.io":           "registry.k8s.io",
}

// reference is a parsed image reference.
type reference struct {
	repository string // registry host + path, lower case
	tag        string // "" when only a digest was given
	digest     string // "sha256:…" or ""
}

// parseReference normalises an image reference. It never fails: whatever is
// left after splitting off the digest and tag is taken as the repository.
func parseReference(ref string) reference {
	s := strings.TrimSpace(ref)
	var r reference
	if i := strings.Index(s, "@"); i >= 0 {
		s, r.digest = s[:i], s[i+1:]
	}
	// A tag follows the last ':' after the last '/'; an earlier ':' is a
	// registry port (localhost:5000/app).
	if i := strings.LastIndex(s, ":"); i > strings.LastIndex(s, "/") {
		s, r.tag = s[:i], s[i+1:]
	}
	if r.tag == "" && r.digest == "" {
		r.tag = defaultTag
	}
	r.repository = normaliseRepository(s)
	return r
}

// normaliseRepository adds Docker Hub's host and library/ prefix where a
// reference leaves them out, and folds registry aliases.
func normaliseRepository(s string) string {
	s = strings.ToLower(strings.Trim(s, "/"))
	host, rest, found := strings.Cut(s, "/")
	if !found || !looksLikeHost(host) {
		host, rest = dockerHub, s
	}
	if alias, ok := registryAliases[host]; ok {
		host = alias
	}
	if host == dockerHub && !strings.Contains(rest, "/") {
		rest = dockerLibrary + "/" + rest
	}
	return host + "/" + rest
}

// looksLikeHost follows the Docker rule: a first path component is a
// registry host when it has a dot or a port, or is "localhost".
func looksLikeHost(s string) bool {
	return strings.ContainsAny(s, ".:") || s == "localhost"
}

// String renders the normalised reference.
func (r reference) String() string {
	s := r.repository
	if r.tag != "" {
		s += ":" + r.tag
	}
	if r.digest != "" {
		s += "@" + r.digest
	}
	return s
}

// Repository is the normalised repository of an image reference
// (registry host and path, lower case), without tag or digest.
func Repository(ref string) string { return parseReference(ref).repository }

// Tag is the tag of an image reference ("latest" when it names neither
// tag nor digest, "" when it names a digest alone).
func Tag(ref string) string { return parseReference(ref).tag }
