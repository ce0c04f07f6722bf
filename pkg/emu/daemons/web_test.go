package daemons

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

// A site serves its files and a directory's index file; a directory with
// no index file is refused as the server refuses it (nginx: 403, it lists
// no directories), anything else is its 404 page.
func TestSiteAnswers(t *testing.T) {
	clock := clocktesting.NewFakeClock(epoch)
	fs := vfstest.New(clock)
	fs.Put("/usr/share/nginx/html/index.html", "<h1>home</h1>\n", 0o644)
	fs.Put("/usr/share/nginx/html/assets/app.css", "body{}\n", 0o644)
	p := &program.Proc{Sys: &program.Sys{Clock: clock, FS: fs.Privileged()}}
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"/", http.StatusOK, "<h1>home</h1>\n"},
		{"/assets/app.css", http.StatusOK, "body{}\n"},
		{"/assets/", http.StatusForbidden, "<title>403 Forbidden</title>"},
		{"/nope.html", http.StatusNotFound, "<title>404 Not Found</title>"},
	} {
		resp := nginxSite.respond(p, httptest.NewRequest(http.MethodGet, tc.path, nil))
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.body) || resp.Header.Get("Server") != "nginx/1.27.3" {
			t.Errorf("GET %s: %d %q (Server %q), want %d with %q", tc.path, resp.StatusCode, body, resp.Header.Get("Server"), tc.status, tc.body)
		}
	}
}
