package agnhost

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
)

func TestCommandLine(t *testing.T) {
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string // exact unless empty
		stdoutHas      string
	}{
		{args: []string{"/agnhost", "entrypoint-tester", "override", "arguments"}, stdout: "[/agnhost entrypoint-tester override arguments]\n"},
		{args: []string{"/agnhost-2", "entrypoint-tester"}, stdout: "[/agnhost-2 entrypoint-tester]\n"},
		{args: []string{"/agnhost-2", "entrypoint-tester", "override", "arguments"}, stdout: "[/agnhost-2 entrypoint-tester override arguments]\n"},
		{args: []string{"/agnhost", "nosuch"}, code: 1, stderr: "Error: unknown command \"nosuch\" for \"app\"\n"},
		{args: []string{"/agnhost", "paus"}, code: 1, stderr: "Error: unknown command \"paus\" for \"app\"\n\nDid you mean this?\n\tpause\n\n"},
		{args: []string{"/agnhost", "pause", "extra"}, code: 1, stderr: "Error: accepts at most 0 arg(s), received 1\n"},
		{args: []string{"/agnhost", "connect"}, code: 1, stderr: "Error: accepts 1 arg(s), received 0\n"},
		{args: []string{"/agnhost", "mounttest", "--bogus"}, code: 1, stderr: "Error: unknown flag: --bogus\n"},
		{args: []string{"/agnhost", "mounttest", "--retry_time=x"}, code: 1, stderr: "Error: invalid argument \"x\" for \"--retry-time\" flag: strconv.ParseInt: parsing \"x\": invalid syntax\n"},
		{args: []string{"/agnhost", "--version"}, stdout: "app version 2.63.0\n"},
		{args: []string{"/agnhost"}, stdoutHas: "Available Commands:\n"},
		{args: []string{"/agnhost", "pause", "--help"}, stdoutHas: "Usage:\n  app pause [flags]\n"},
		{args: []string{"/agnhost", "help", "mounttest"}, stdoutHas: "--file-content-in-loop string"},
		{args: []string{"/agnhost", "completion", "bash"}, stdoutHas: "# bash completion V2 for app"},
		{args: []string{"/agnhost", "completion"}, stdoutHas: "Generate the autocompletion script for app"},
		{args: []string{"/agnhost", "--v=2", "nonewprivs"}, stdout: "Effective uid: 0\n"},
		{args: []string{"/agnhost", "logs-generator"}, code: 255},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := newEnv(nil, tt.args...)
			code := e.run(t, context.Background())
			if code != tt.code {
				t.Errorf("status %d, want %d (stderr %q)", code, tt.code, e.stderr)
			}
			if tt.stdout != "" && e.stdout.String() != tt.stdout {
				t.Errorf("stdout %q, want %q", e.stdout, tt.stdout)
			}
			if tt.stderr != "" && e.stderr.String() != tt.stderr {
				t.Errorf("stderr %q, want %q", e.stderr, tt.stderr)
			}
			if !strings.Contains(e.stdout.String(), tt.stdoutHas) {
				t.Errorf("stdout %q lacks %q", e.stdout, tt.stdoutHas)
			}
		})
	}
}

func TestTable(t *testing.T) {
	tab := Table()
	if tab["agnhost"] == nil || tab["agnhost-2"] == nil || tab["nc"] == nil || tab["dig"] == nil || tab["getent"] == nil || len(tab) != 5 {
		t.Fatalf("table %v", tab)
	}
}

func TestPauseStopsWithContext(t *testing.T) {
	base := runtimeGoroutines()
	fsys := newMemFS().add("/dev/x", "", 0o644)
	e := newEnv(fsys, "/agnhost", "pause")
	stop := e.start()
	waitFor(t, func() bool { return strings.Contains(e.stdout.String(), "Signals registered") })
	if code := stop(); code != 2 {
		t.Errorf("status %d, want 2 (SIGTERM)", code)
	}
	want := "Paused\nSignals registered\nexiting because of signal \"terminated\"\n"
	if e.stdout.String() != want {
		t.Errorf("stdout %q, want %q", e.stdout, want)
	}
	data, err := kit.ReadFile(e.p, "/dev/termination-log")
	if err != nil || string(data) != "exiting because of signal \"terminated\"\n" {
		t.Errorf("termination log %q, %v", data, err)
	}
	settleGoroutines(t, base)
}

var klogLine = regexp.MustCompile(`^I0304 05:06:07\.000000       1 log\.go:245\] `)

func TestServersWithoutNetworkWait(t *testing.T) {
	tests := []struct {
		args  []string
		lines []string
	}{
		{[]string{"netexec", "--http-port=8080", "--udp-port=8081"}, []string{"Started HTTP server on port 8080", "Started UDP server on port  8081"}},
		{[]string{"serve-hostname"}, []string{"Serving on port 9376.", "Shutting down after receiving signal: terminated.", "Awaiting pod deletion."}},
		{[]string{"liveness"}, nil},
		{[]string{"porter"}, nil},
		{[]string{"test-webserver", "--port", "8000"}, nil},
		{[]string{"fake-gitserver"}, nil},
		{[]string{"tcp-reset"}, []string{"Serving on port 8080.", "Shutting down after receiving signal: terminated.", "Awaiting pod deletion."}},
		{[]string{"grpc-health-checking"}, []string{"Http server starting to listen on :8080", "gRPC server starting to listen on :5000"}},
		{[]string{"nettest", "--service=x"}, nil},
		{[]string{"guestbook"}, nil},
		{[]string{"no-snat-test-proxy", "--port=8080"}, nil},
		{[]string{"resource-consumer-controller"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			base := runtimeGoroutines()
			e := newEnv(nil, append([]string{"/agnhost"}, tt.args...)...)
			stop := e.start()
			if code := stop(); code != 0 {
				t.Errorf("status %d (stderr %q)", code, e.stderr)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSuffix(e.stderr.String(), "\n"), "\n") {
				if l == "" {
					continue
				}
				if !klogLine.MatchString(l) {
					t.Errorf("line %q is not klog's", l)
					continue
				}
				got = append(got, klogLine.ReplaceAllString(l, ""))
			}
			if strings.Join(got, "|") != strings.Join(tt.lines, "|") {
				t.Errorf("logged %q, want %q", got, tt.lines)
			}
			settleGoroutines(t, base)
		})
	}
}

func TestWebhookWithoutCertDies(t *testing.T) {
	e := newEnv(nil, "/agnhost", "webhook", "--port=8443")
	if code := e.run(t, context.Background()); code != 255 {
		t.Fatalf("status %d", code)
	}
	if !strings.HasSuffix(e.stderr.String(), " config.go:34] open : no such file or directory\n") {
		t.Errorf("stderr %q", e.stderr)
	}
}
