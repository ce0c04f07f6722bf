package netapplets

import (
	"strings"
	"testing"
	"time"
)

func TestWget(t *testing.T) {
	e := newEnv(t)
	e.httpServer(t, 8080)
	for _, c := range []struct {
		argv       []string
		out, errs  string
		wantStatus int
	}{
		{[]string{"wget", "-T", "1", "-O", "-", "http://web.default:8080/?a=b"}, "hello a=b",
			"Connecting to web.default:8080 (10.244.2.7:8080)\nwriting to stdout\nwritten to stdout\n", 0},
		{[]string{"wget", "-q", "-O-", "--header", "X-Test: h", "--post-data=p=1", "http://web.default:8080/echo"}, "POST h p=1", "", 0},
		{[]string{"wget", "-q", "--spider", "http://web.default:8080/"}, "", "", 0},
		{[]string{"wget", "-q", "-O-", "http://web.default:8080/missing"}, "", "wget: server returned error: HTTP/1.1 404 Not Found\n", 1},
		{[]string{"wget", "-q", "-O-", "http://nosuch/"}, "", "wget: bad address 'nosuch'\n", 1},
		{[]string{"wget", "-q", "-O-", "http://10.244.2.7:81/"}, "", "wget: can't connect to remote host (10.244.2.7): Connection refused\n", 1},
		{[]string{"wget", "-r", "http://web.default:8080/"}, "", "wget: invalid option -- 'r'\n", 1},
		{[]string{"wget", "--mirror", "http://web.default:8080/"}, "", "wget: unrecognized option '--mirror'\n", 1},
	} {
		out, errs, code := e.run(t, "", c.argv...)
		if out != c.out || errs != c.errs || code != c.wantStatus {
			t.Errorf("%q: got (%q, %q, %d), want (%q, %q, %d)", c.argv, out, errs, code, c.out, c.errs, c.wantStatus)
		}
	}
	if _, errs, code := e.run(t, "", "wget", "-q", "-P", "/tmp", "http://web.default:8080/page"); code != 0 || e.fs.Read("/tmp/page") != "hello " {
		t.Errorf("wget -P: %q %d %q", errs, code, e.fs.Read("/tmp/page"))
	}
	if _, errs, code := e.run(t, "", "wget", "-S", "-o", "/log", "-O", "/dev/null", "http://web.default:8080/"); code != 0 || !strings.Contains(e.fs.Read("/log"), "  HTTP/1.1 200 OK\n") {
		t.Errorf("wget -S -o: %q %d %q", errs, code, e.fs.Read("/log"))
	}
}

// timeout ends PROG after SECS on the container's clock; the shell sees
// PROG killed by the signal.
func TestTimeout(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		argv       []string
		errs       string
		wantStatus int
	}{
		{[]string{"timeout", "2", "sleep"}, "", 143},
		{[]string{"timeout", "-s", "KILL", "1.5", "sleep"}, "", 137},
		{[]string{"timeout", "-s", "SIGINT", "1m", "sleep"}, "", 130},
		{[]string{"timeout", "2", "cat"}, "", 0},
		{[]string{"timeout", "-s", "NOPE", "2", "cat"}, "timeout: unknown signal 'NOPE'\n", 1},
		{[]string{"timeout", "x", "cat"}, "timeout: invalid number 'x'\n", 1},
		{[]string{"timeout", "2", "nosuch"}, "timeout: can't execute 'nosuch': No such file or directory\n", 127},
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, errs, code := e.run(t, "", c.argv...)
			if errs != c.errs || code != c.wantStatus {
				t.Errorf("%q: got (%q, %d), want (%q, %d)", c.argv, errs, code, c.errs, c.wantStatus)
			}
		}()
		for stepping := true; stepping; {
			select {
			case <-done:
				stepping = false
			case <-time.After(2 * time.Millisecond):
				e.clock.Step(30 * time.Second)
			}
		}
	}
}
