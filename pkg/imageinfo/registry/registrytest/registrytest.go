// Package registrytest runs a real OCI distribution server (go-containerregistry's
// pkg/registry) on 127.0.0.1 for tests, and pushes real images and indexes
// whose platforms carry Windows builds. It is for tests of the registry
// resolver and of what uses it (the image command, the webhook).
package registrytest

import (
	"crypto/subtle"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Real Windows Server versions (IMG-1 builds with the January 2024 update
// revisions) that the fixtures' platforms carry.
const (
	Version2019 = "10.0.17763.5329"
	Version2022 = "10.0.20348.2227"
	Version2025 = "10.0.26100.2314"
)

// Server is an in-process registry on 127.0.0.1.
type Server struct {
	// Host is host:port, the registry part of image references.
	Host string

	srv      *httptest.Server
	user     string
	password string
	tls      bool
	mu       sync.Mutex
	requests int
}

// Option configures Start.
type Option func(*Server)

// WithBasicAuth makes the registry refuse requests without these
// credentials (HTTP 401 with a Basic challenge).
func WithBasicAuth(user, password string) Option {
	return func(s *Server) { s.user, s.password = user, password }
}

// WithTLS serves HTTPS with httptest's self-signed certificate, which a
// client trusts only when told to skip verification (--insecure-registry).
func WithTLS() Option {
	return func(s *Server) { s.tls = true }
}

// Start serves a new empty registry until the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{}
	for _, o := range opts {
		o(s)
	}
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	s.srv = httptest.NewUnstartedServer(s.handler(reg))
	// Refused TLS handshakes are what some tests are about; not news.
	s.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if s.tls {
		s.srv.StartTLS()
	} else {
		s.srv.Start()
	}
	s.Host = s.srv.Listener.Addr().String()
	t.Cleanup(s.Close)
	return s
}

// Close stops the server; later look-ups get connection refused. It may
// be called more than once.
func (s *Server) Close() { s.srv.Close() }

// Requests is the number of requests served so far.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func (s *Server) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		s.mu.Unlock()
		if s.user != "" && !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="registrytest"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) authorized(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	return ok && subtle.ConstantTimeCompare([]byte(u), []byte(s.user)) == 1 &&
		subtle.ConstantTimeCompare([]byte(p), []byte(s.password)) == 1
}

func (s *Server) remoteOptions() []remote.Option {
	var opts []remote.Option
	if s.tls {
		opts = append(opts, remote.WithTransport(s.srv.Client().Transport))
	}
	if s.user != "" {
		opts = append(opts, remote.WithAuth(&authn.Basic{Username: s.user, Password: s.password}))
	}
	return opts
}

// Ref is the full reference of repoTag ("windows/servercore:ltsc2022") on
// this server.
func (s *Server) Ref(repoTag string) string { return s.Host + "/" + repoTag }

// PushIndex pushes an image index with one small random image per
// platform; a nil platform is an entry without one (read from the
// config). It returns the index digest.
func (s *Server) PushIndex(t testing.TB, repoTag string, platforms ...*v1.Platform) string {
	t.Helper()
	var idx v1.ImageIndex = mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		cfgPlatform := p
		if cfgPlatform == nil {
			cfgPlatform = &v1.Platform{OS: "linux", Architecture: "amd64"}
		}
		img := imageFor(t, *cfgPlatform)
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: p}})
	}
	ref, err := name.NewTag(s.Ref(repoTag))
	if err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	if err := remote.WriteIndex(ref, idx, s.remoteOptions()...); err != nil {
		t.Fatalf("registrytest: push index %s: %v", ref, err)
	}
	d, err := idx.Digest()
	if err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	return d.String()
}

// PushImage pushes a single-platform image whose config carries p.
func (s *Server) PushImage(t testing.TB, repoTag string, p v1.Platform) string {
	t.Helper()
	img := imageFor(t, p)
	ref, err := name.NewTag(s.Ref(repoTag))
	if err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	if err := remote.Write(ref, img, s.remoteOptions()...); err != nil {
		t.Fatalf("registrytest: push image %s: %v", ref, err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	return d.String()
}

// imageFor is a one-layer random image whose config names p.
func imageFor(t testing.TB, p v1.Platform) v1.Image {
	t.Helper()
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatalf("registrytest: random image: %v", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.OSVersion, cfg.OSFeatures = p.OS, p.Architecture, p.OSVersion, p.OSFeatures
	out, err := mutate.ConfigFile(img, cfg)
	if err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	return out
}

// Windows is a windows/amd64 platform of the given version.
func Windows(version string, features ...string) *v1.Platform {
	return &v1.Platform{OS: "windows", Architecture: "amd64", OSVersion: version, OSFeatures: features}
}

// Linux is a linux platform of the given architecture.
func Linux(arch string) *v1.Platform {
	return &v1.Platform{OS: "linux", Architecture: arch}
}

// Fixture repositories PushFixtures writes.
const (
	Servercore2019 = "windows/servercore:ltsc2019" // index: Windows 2019
	Servercore2022 = "windows/servercore:ltsc2022" // index: Windows 2022 (win32k)
	Servercore2025 = "windows/servercore:ltsc2025" // index: Windows 2025
	MultiOS        = "apps/web:1.0"                // index: linux/amd64 + Windows 2019 + 2022
	MultiArch      = "apps/linux:1.0"              // index: linux/amd64 + linux/arm64
	NoOSVersion    = "apps/anybuild:1.0"           // index: windows/amd64 without os.version
	Single2022     = "apps/single:ltsc2022"        // single image, config os.version 2022
)

// PushFixtures pushes the standard set of images.
func (s *Server) PushFixtures(t testing.TB) {
	t.Helper()
	s.PushIndex(t, Servercore2019, Windows(Version2019))
	s.PushIndex(t, Servercore2022, Windows(Version2022, "win32k"))
	s.PushIndex(t, Servercore2025, Windows(Version2025))
	s.PushIndex(t, MultiOS, Linux("amd64"), Windows(Version2019), Windows(Version2022))
	s.PushIndex(t, MultiArch, Linux("amd64"), Linux("arm64"))
	s.PushIndex(t, NoOSVersion, &v1.Platform{OS: "windows", Architecture: "amd64"})
	s.PushImage(t, Single2022, *Windows(Version2022))
}

// Slow serves every request after delay (or when the client gives up), on
// 127.0.0.1, until the test ends.
func Slow(t testing.TB, delay time.Duration) string {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		case <-stop:
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return strings.TrimPrefix(srv.URL, "http://")
}

// Failing answers every request with status code, on 127.0.0.1, until the
// test ends.
func Failing(t testing.TB, code int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, http.StatusText(code), code)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// DockerConfigJSON is a kubernetes.io/dockerconfigjson payload with one
// entry for host.
func DockerConfigJSON(host, user, password string) []byte {
	return []byte(`{"auths":{"` + host + `":{"username":"` + user + `","password":"` + password + `"}}}`)
}

// DockerSave writes what `docker save` writes for ref, a single Windows
// image of osVersion (for `winkube image import`), and returns its path.
func DockerSave(t *testing.T, ref, osVersion string) string {
	t.Helper()
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := img.ConfigFile()
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.OSVersion = "windows", "amd64", osVersion
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		t.Fatal(err)
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "image.tar")
	if err := tarball.WriteToFile(file, tag, img); err != nil {
		t.Fatal(err)
	}
	return file
}
