package netapplets

import (
	"strings"
	"testing"
)

// curl as the e2e tests run it (-g -q -s, -o /dev/null -w %{http_code})
// and the options scripts lean on, against an HTTP server on the
// emulated network.
func TestCurl(t *testing.T) {
	e := newEnv(t)
	e.httpServer(t, 8080)
	e.fs.Put("/post.txt", "a=1\nb=2\n", 0o644)
	for _, c := range []struct {
		argv       []string
		out, errs  string
		wantStatus int
	}{
		{[]string{"curl", "-g", "-q", "-s", "http://10.244.2.7:8080/dial?request=hostname&protocol=http"}, "hello request=hostname&protocol=http", "", 0},
		{[]string{"curl", "-g", "-q", "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://web.default:8080/"}, "200", "", 0},
		{[]string{"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}\\n", "http://web.default:8080/missing"}, "404\n", "", 0},
		{[]string{"curl", "-sSf", "http://web.default:8080/missing"}, "", "curl: (22) The requested URL returned error: 404\n", 22},
		{[]string{"curl", "-s", "-L", "-w", " %{num_redirects} %{url_effective}", "http://web.default:8080/moved"}, "hello  1 http://web.default:8080/", "", 0},
		{[]string{"curl", "-s", "-w", "%{http_code} %{redirect_url}", "http://web.default:8080/moved"}, "<a href=\"/\">Found</a>.\n\n302 http://web.default:8080/", "", 0},
		{[]string{"curl", "-s", "-X", "PUT", "-H", "X-Test: yes", "-d", "x=1", "http://web.default:8080/echo"}, "PUT yes x=1", "", 0},
		{[]string{"curl", "-s", "-d", "@/post.txt", "--data-urlencode", "c=d e", "http://web.default:8080/echo"}, "POST  a=1b=2&c=d+e", "", 0},
		{[]string{"curl", "-s", "-G", "-d", "q=1", "http://web.default:8080/"}, "hello q=1", "", 0},
		{[]string{"curl", "-sI", "http://web.default:8080/"}, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nContent-Type: text/plain; charset=utf-8\r\n", "", 0},
		{[]string{"curl", "-s", "-m", "3", "--connect-timeout", "2", "http://10.244.2.7:81/"}, "", "", 7},
		{[]string{"curl", "-sS", "http://nosuch:8080/"}, "", "curl: (6) Could not resolve host: nosuch\n", 6},
		{[]string{"curl", "-s", "-w", "%{http_code}", "http://10.244.2.7:81/"}, "000", "", 7},
		{[]string{"curl", "--frobnicate", "http://web.default:8080/"}, "", "curl: option --frobnicate: is unknown\ncurl: try 'curl --help' for more information\n", 2},
		{[]string{"curl", "--max-time=3", "http://web.default:8080/"}, "", "curl: option --max-time=3: is unknown\n", 2},
		{[]string{"curl", "-s", "-o"}, "", "curl: option -o: requires parameter\n", 2},
		{[]string{"curl", "-s"}, "", "curl: no URL specified\n", 2},
		{[]string{"curl", "--no-silent", "-s", "--no-progress-meter", "http://web.default:8080/"}, "hello ", "", 0},
	} {
		out, errs, code := e.run(t, "", c.argv...)
		if !strings.HasPrefix(out, c.out) || !strings.Contains(errs, c.errs) || (c.errs == "" && errs != "") || code != c.wantStatus {
			t.Errorf("%q: got (%q, %q, %d), want (%q, %q, %d)", c.argv, out, errs, code, c.out, c.errs, c.wantStatus)
		}
	}
}

// -o, -O, -D and --create-dirs write into the container's filesystem.
func TestCurlWritesFiles(t *testing.T) {
	e := newEnv(t)
	e.httpServer(t, 8080)
	if _, errs, code := e.run(t, "", "curl", "-s", "--create-dirs", "-o", "/out/a/page", "-D", "/out/h", "http://web.default:8080/"); code != 0 {
		t.Fatalf("curl -o: %q %d", errs, code)
	}
	if got := e.fs.Read("/out/a/page"); got != "hello " {
		t.Errorf("-o wrote %q", got)
	}
	if got := e.fs.Read("/out/h"); !strings.HasPrefix(got, "HTTP/1.1 200 OK\r\n") {
		t.Errorf("-D wrote %q", got)
	}
	if _, errs, code := e.run(t, "", "curl", "-sO", "--output-dir", "/out", "http://web.default:8080/index.txt"); code != 0 || e.fs.Read("/out/index.txt") != "hello " {
		t.Errorf("curl -O: %q %d %q", errs, code, e.fs.Read("/out/index.txt"))
	}
}
