package daemons

import (
	"context"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/program"
)

var epoch = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// fakeFS holds a few files and directories; the rest does not exist.
type fakeFS struct {
	program.FS // unused methods panic
	files      map[string]string
	dirs       map[string][]string
}

func (f fakeFS) Abs(dir, name string) string { return name }

func (f fakeFS) OpenFile(name string, flag int, perm fs.FileMode) (program.File, error) {
	data, ok := f.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
	}
	return fakeFile{strings.NewReader(data)}, nil
}

func (f fakeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	for range f.dirs[name] {
		out = append(out, nil)
	}
	return out, nil
}

type fakeFile struct{ *strings.Reader }

func (fakeFile) Write([]byte) (int, error)  { return 0, os.ErrPermission }
func (fakeFile) Close() error               { return nil }
func (fakeFile) Stat() (fs.FileInfo, error) { return nil, os.ErrInvalid }

type env struct {
	p              *program.Proc
	stdout, stderr *syncbuf.Buffer
	calls          [][]string // argv of the programs run through Exec
}

func newEnv(args ...string) *env {
	e := &env{stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}}
	progs := Table()
	progs["app"] = func(_ context.Context, p *program.Proc) int {
		e.calls = append(e.calls, p.Args)
		io.WriteString(p.Stdout, "app ran\n")
		return 3
	}
	e.p = &program.Proc{
		Args: args, Dir: "/", Stdin: strings.NewReader(""), Stdout: e.stdout, Stderr: e.stderr,
		Sys: &program.Sys{
			Clock: clocktesting.NewFakeClock(epoch), Hostname: "web-0", Programs: progs,
			FS: fakeFS{files: map[string]string{"/etc/hosts": "127.0.0.1\tlocalhost\n10.244.1.7\tweb-0\n"},
				dirs: map[string][]string{"/docker-entrypoint.d": {"10-listen-on-ipv6-by-default.sh"}}},
		},
	}
	return e
}

// runStopped runs a server, stops it and returns its status.
func (e *env) runStopped(t *testing.T) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		code := Table()[program.Name(e.p.Args[0])](ctx, e.p)
		if code == program.Forever {
			<-ctx.Done()
			code = 0
		}
		done <- code
	}()
	time.Sleep(5 * time.Millisecond)
	select {
	case code := <-done:
		t.Fatalf("%v ended by itself with %d", e.p.Args, code)
	default:
	}
	cancel()
	select {
	case code := <-done:
		return code
	case <-time.After(5 * time.Second):
		t.Fatalf("%v did not stop", e.p.Args)
	}
	return -1
}

func settle(t *testing.T, want int) {
	t.Helper()
	for i := 0; i < 500 && runtime.NumGoroutine() > want; i++ {
		time.Sleep(2 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > want {
		t.Fatalf("%d goroutines left, want %d", n, want)
	}
}

func TestServersRunUntilStopped(t *testing.T) {
	ah := "AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using 10.244.1.7. Set the 'ServerName' directive globally to suppress this message\n"
	tests := []struct {
		args           []string
		stdout, stderr string
	}{
		{args: []string{"/pause"}},
		{args: []string{`C:\pause.exe`}},
		{args: []string{"nginx", "-g", "daemon off;"}, stderr: "2025/03/04 05:06:07 [notice] 1#1: using the \"epoll\" event method\n2025/03/04 05:06:07 [notice] 1#1: start worker processes\n"},
		{args: []string{"httpd-foreground"}, stderr: ah + ah},
		{args: []string{"httpd", "-D", "FOREGROUND"}, stderr: ah + ah},
		{args: []string{"redis-server", "--port", "7000"}, stdout: "1:C 04 Mar 2025 05:06:07.000 * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n" +
			"1:C 04 Mar 2025 05:06:07.000 * Redis version=7.2.6, bits=64, commit=00000000, modified=0, pid=1, just started\n" +
			"1:C 04 Mar 2025 05:06:07.000 * Configuration loaded\n" +
			"1:M 04 Mar 2025 05:06:07.000 * monotonic clock: POSIX clock_gettime\n" +
			"1:M 04 Mar 2025 05:06:07.000 * Running mode=standalone, port=7000.\n" +
			"1:M 04 Mar 2025 05:06:07.000 * Server initialized\n" +
			"1:M 04 Mar 2025 05:06:07.000 * Ready to accept connections tcp\n"},
		{args: []string{"memcached"}},
		{args: []string{"mongod"}, stdout: `{"t":{"$date":"2025-03-04T05:06:07.000+00:00"},"s":"I",  "c":"NETWORK",  "id":23016,   "ctx":"listener","msg":"Waiting for connections","attr":{"port":27017,"ssl":"off"}}` + "\n"},
		{args: []string{"rabbitmq-server"}},
		{args: []string{"traefik"}},
		{args: []string{"/coredns", "-conf", "/etc/coredns/Corefile"}, stdout: ".:53\n"},
		{args: []string{"/opt/bin/flanneld"}},
		{args: []string{`C:\ServiceMonitor.exe`, "w3svc"}},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			base := runtime.NumGoroutine()
			e := newEnv(tt.args...)
			e.p.Sys.Windows = strings.HasPrefix(tt.args[0], `C:\`)
			if e.p.Sys.Windows {
				tt.stderr = ""
			}
			if code := e.runStopped(t); code != 0 {
				t.Errorf("status %d", code)
			}
			if e.stdout.String() != tt.stdout || e.stderr.String() != tt.stderr {
				t.Errorf("stdout %q stderr %q, want %q %q", e.stdout, e.stderr, tt.stdout, tt.stderr)
			}
			settle(t, base)
		})
	}
}

func TestHttpdWithoutForegroundDetaches(t *testing.T) {
	e := newEnv("httpd")
	if code := Table()["httpd"](context.Background(), e.p); code != 0 || !strings.HasPrefix(e.stderr.String(), "AH00558") {
		t.Errorf("status %d stderr %q", code, e.stderr)
	}
}

func TestWrappers(t *testing.T) {
	tests := []struct {
		args           []string
		env            []string
		code           int
		calls          string
		stdout, stderr string
		noRedis        bool
	}{
		{args: []string{"docker-entrypoint.sh", "app", "x"}, code: 3, calls: "app x", stdout: "app ran\n"},
		{args: []string{"docker-entrypoint.sh"}, code: 0},
		{args: []string{"docker-entrypoint.sh", "nope"}, code: 127, stderr: "docker-entrypoint.sh: exec: nope: not found\n"},
		{args: []string{"/entrypoint.sh", "app"}, code: 3, calls: "app", stdout: "app ran\n"},
		{args: []string{"tini", "--", "app", "-v"}, code: 3, calls: "app -v", stdout: "app ran\n"},
		{args: []string{"tini", "-e", "3", "app"}, code: 0, calls: "app", stdout: "app ran\n"},
		{args: []string{"tini", "-s", "app"}, code: 3, calls: "app", stdout: "app ran\n"},
		{args: []string{"tini"}, code: 1, stderr: tiniUsage},
		{args: []string{"tini", "--", "nope"}, code: 127, stderr: "[FATAL tini (7)] exec nope failed: No such file or directory\n"},
		{args: []string{"dumb-init", "--", "app"}, code: 3, calls: "app", stdout: "app ran\n"},
		{args: []string{"dumb-init", "-c", "app", "-c"}, code: 3, calls: "app -c", stdout: "app ran\n"},
		{args: []string{"dumb-init", "nope"}, code: 2, stderr: "[dumb-init] nope: No such file or directory\n"},
		{args: []string{"/usr/bin/dumb-init"}, code: 1, stderr: "dumb-init v1.2.5\nUsage: /usr/bin/dumb-init [option] command [[arg] ...]\n\n" +
			"dumb-init is a simple process supervisor that forwards signals to children.\nIt is designed to run as PID1 in minimal container environments.\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := newEnv(tt.args...)
			e.p.Env = tt.env
			delete(e.p.Sys.Programs, "redis-server")
			code := e.p.Sys.Programs[program.Name(tt.args[0])](context.Background(), e.p)
			var calls []string
			for _, c := range e.calls {
				calls = append(calls, strings.Join(c, " "))
			}
			if code != tt.code || strings.Join(calls, ";") != tt.calls || e.stdout.String() != tt.stdout || e.stderr.String() != tt.stderr {
				t.Errorf("got %d calls %q stdout %q stderr %q\nwant %d calls %q stdout %q stderr %q",
					code, calls, e.stdout, e.stderr, tt.code, tt.calls, tt.stdout, tt.stderr)
			}
		})
	}
}

func TestNginxEntrypoint(t *testing.T) {
	e := newEnv("/docker-entrypoint.sh", "nginx", "-g", "daemon off;")
	code := e.runStopped(t)
	want := "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration\n" +
		"/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/\n" +
		"/docker-entrypoint.sh: Configuration complete; ready for start up\n"
	if code != 0 || e.stdout.String() != want || !strings.Contains(e.stderr.String(), "start worker processes") {
		t.Errorf("status %d stdout %q stderr %q", code, e.stdout, e.stderr)
	}
	e = newEnv("/docker-entrypoint.sh", "nginx")
	e.p.Env = []string{"NGINX_ENTRYPOINT_QUIET_LOGS=1"}
	if e.runStopped(t); e.stdout.String() != "" {
		t.Errorf("quiet logs: %q", e.stdout)
	}
}

func TestRedisEntrypointPrefixesFlags(t *testing.T) {
	e := newEnv("docker-entrypoint.sh", "--port", "7000")
	e.runStopped(t)
	if !strings.Contains(e.stdout.String(), "port=7000.") {
		t.Errorf("stdout %q", e.stdout)
	}
}

// TestWrappersSettleWithTheirServer: an entrypoint that execs a server,
// and tini and dumb-init in front of one, end as the server does, waiting
// to be stopped, so a node of 10,000 nginx pods holds no goroutine each.
func TestWrappersSettleWithTheirServer(t *testing.T) {
	for _, args := range [][]string{
		{"/docker-entrypoint.sh", "nginx", "-g", "daemon off;"},
		{"tini", "--", "nginx"},
		{"dumb-init", "nginx"},
	} {
		e := newEnv(args...)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() { done <- Table()[program.Name(args[0])](ctx, e.p) }()
		select {
		case code := <-done:
			if code != program.Forever {
				t.Errorf("%q ended with %d, want to wait until stopped (program.Forever)", args, code)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%q holds a goroutine waiting on its server", args)
		}
		cancel()
	}
}

// ServiceMonitor.exe w3svc starts IIS, which the container's System log
// records as the Service Control Manager does.
func TestServiceMonitorLogsW3SVCStart(t *testing.T) {
	base := runtime.NumGoroutine()
	e := newEnv(`C:\ServiceMonitor.exe`, "w3svc")
	e.p.Sys.Windows = true
	e.runStopped(t)
	settle(t, base)
	entries, _ := e.p.Sys.EventLog().Entries("System")
	if len(entries) != 1 || entries[0].Source != "Service Control Manager" || entries[0].EventID != 7036 ||
		entries[0].Message != "The World Wide Web Publishing Service service entered the running state." {
		t.Errorf("the System log holds %+v", entries)
	}
}

// redis's entrypoint runs a config file given first with redis-server; the
// image is told by its redis-cli.
func TestRedisEntrypointRunsAConfigFile(t *testing.T) {
	e := newEnv("docker-entrypoint.sh", "/etc/redis.conf")
	e.p.Sys.FS.(fakeFS).files["/etc/redis.conf"] = "port 7001\n"
	e.p.Sys.Programs["redis-cli"] = e.p.Sys.Programs["app"]
	e.runStopped(t)
	if !strings.Contains(e.stdout.String(), "port=7001.") {
		t.Errorf("stdout %q stderr %q", e.stdout, e.stderr)
	}
	e = newEnv("docker-entrypoint.sh", "/etc/app.conf")
	if code := Table()["docker-entrypoint.sh"](context.Background(), e.p); code != 127 {
		t.Errorf("another image ran %q: %d %q", e.p.Args, code, e.stdout)
	}
}
