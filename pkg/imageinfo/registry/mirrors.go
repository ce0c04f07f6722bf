package registry

import (
	"fmt"
	"strings"
)

// MirrorFlag is the flag ParseMirrors reads, named in its errors.
const MirrorFlag = "--registry-mirror"

// ParseMirrors reads --registry-mirror values, each FROM=TO: look-ups of
// images on registry FROM go to TO instead, e.g. docker.io=127.0.0.1:5000
// or docker.io=harbor.example.com/dockerhub-proxy (a path prefix is kept).
// FROM is a registry host; Docker Hub's other names (index.docker.io,
// registry-1.docker.io) mean docker.io. A FROM given twice is an error.
func ParseMirrors(values []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range values {
		from, to, ok := strings.Cut(v, "=")
		from, to = normaliseHost(from), strings.Trim(strings.ToLower(strings.TrimSpace(to)), "/")
		if i := strings.Index(to, "://"); i >= 0 {
			to = to[i+3:]
		}
		switch {
		case !ok || from == "" || to == "":
			return nil, fmt.Errorf("%s %q: want FROM=TO, e.g. docker.io=127.0.0.1:5000", MirrorFlag, v)
		case strings.Contains(from, "/"):
			return nil, fmt.Errorf("%s %q: FROM must be a registry host such as docker.io, not a repository", MirrorFlag, v)
		case out[from] != "":
			return nil, fmt.Errorf("%s %q: %s already mirrors to %s", MirrorFlag, v, from, out[from])
		}
		out[from] = to
	}
	return out, nil
}

// normaliseHost folds a registry host the way image references are
// normalised (imageinfo.Lookup): lower case, Docker Hub as docker.io.
func normaliseHost(h string) string {
	h = strings.Trim(strings.ToLower(strings.TrimSpace(h)), "/")
	if i := strings.Index(h, "://"); i >= 0 {
		h = h[i+3:]
	}
	if dockerHubKeys[h] {
		return "docker.io"
	}
	return h
}

// mirrored rewrites a normalised repository (host/path) to its mirror, if
// any, and returns the repository to contact.
func mirrored(mirrors map[string]string, repository string) string {
	host, rest, _ := strings.Cut(repository, "/")
	to, ok := mirrors[normaliseHost(host)]
	if !ok {
		return repository
	}
	return to + "/" + rest
}

// repoHost is the registry host of a repository.
func repoHost(repository string) string {
	host, _, _ := strings.Cut(repository, "/")
	return host
}
