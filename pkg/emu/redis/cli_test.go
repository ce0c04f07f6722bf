package redis

import (
	"context"
	"strings"
	"testing"
)

// cli runs redis-cli in the app pod; tty puts its stdout on a terminal.
func (c *cluster) cli(tty bool, stdin string, env []string, args ...string) (code int, stdout, stderr string) {
	p, out, errb := c.proc(&c.app, nil, append([]string{"redis-cli"}, args...)...)
	p.TTY, p.Env, p.Stdin = tty, env, strings.NewReader(stdin)
	code = CLI(context.Background(), p)
	return code, out.String(), errb.String()
}

func TestCLIOutputFormats(t *testing.T) {
	c := newCluster()
	c.startServer(t, nil)
	c.cli(false, "", nil, "-h", "redis", "rpush", "list", "a", "b c")
	tests := []struct {
		args     string
		tty, raw string
	}{
		{"ping", "PONG\n", "PONG\n"},
		{"set k v", "OK\n", "OK\n"},
		{"get k", "\"v\"\n", "v\n"},
		{"get missing", "(nil)\n", "\n"},
		{"incrby n 5", "(integer) 5\n", "10\n"},
		{"lrange list 0 -1", "1) \"a\"\n2) \"b c\"\n", "a\nb c\n"},
		{"lrange none 0 -1", "(empty array)\n", "\n"},
		{"get", "(error) ERR wrong number of arguments for 'get' command\n", "ERR wrong number of arguments for 'get' command\n\n"},
		{"frob x", "(error) ERR unknown command 'frob', with args beginning with: 'x' \n", "ERR unknown command 'frob', with args beginning with: 'x' \n\n"},
	}
	for _, tt := range tests {
		args := append([]string{"-h", "redis"}, strings.Fields(tt.args)...)
		if code, out, errs := c.cli(true, "", nil, args...); code != 0 || out != tt.tty || errs != "" {
			t.Errorf("%s on a terminal: %d %q %q, want %q", tt.args, code, out, errs, tt.tty)
		}
		if code, out, errs := c.cli(false, "", nil, args...); code != 0 || out != tt.raw || errs != "" {
			t.Errorf("%s raw: %d %q %q, want %q", tt.args, code, out, errs, tt.raw)
		}
	}
	// --no-raw and FAKETTY format for a terminal; --raw does not.
	if _, out, _ := c.cli(false, "", nil, "-h", "redis", "--no-raw", "get", "k"); out != "\"v\"\n" {
		t.Errorf("--no-raw: %q", out)
	}
	if _, out, _ := c.cli(false, "", []string{"FAKETTY=1"}, "-h", "redis", "get", "k"); out != "\"v\"\n" {
		t.Errorf("FAKETTY: %q", out)
	}
	if _, out, _ := c.cli(true, "", nil, "-h", "redis", "--raw", "get", "k"); out != "v\n" {
		t.Errorf("--raw: %q", out)
	}
	// A string with bytes that are not printable is quoted as redis does.
	c.cli(false, "", nil, "-h", "redis", "set", "odd", "a\"b\n\x01")
	if _, out, _ := c.cli(true, "", nil, "-h", "redis", "get", "odd"); out != `"a\"b\n\x01"`+"\n" {
		t.Errorf("quoted: %q", out)
	}
}

func TestCLIConnectionErrors(t *testing.T) {
	c := newCluster()
	for _, tt := range []struct {
		args, stderr string
	}{
		{"ping", "Could not connect to Redis at 127.0.0.1:6379: Connection refused\n"},
		{"-h redis -p 7000 ping", "Could not connect to Redis at redis:7000: Connection refused\n"},
		{"-h nosuch ping", "Could not connect to Redis at nosuch:6379: Name or service not known\n"},
		{"-p 70000 ping", "Invalid server port.\n"},
		{"--frob ping", "Unrecognized option or bad number of args for: '--frob'\n"},
	} {
		if code, out, errs := c.cli(false, "", nil, strings.Fields(tt.args)...); code != 1 || out != "" || errs != tt.stderr {
			t.Errorf("%s: %d %q %q, want stderr %q", tt.args, code, out, errs, tt.stderr)
		}
	}
	if code, out, _ := c.cli(false, "", nil, "--version"); code != 0 || out != "redis-cli 7.2.6\n" {
		t.Errorf("--version: %d %q", code, out)
	}
}

func TestCLIAuth(t *testing.T) {
	c := newCluster()
	c.startServer(t, nil, "--requirepass", "s3cret")
	const warning = "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\n"
	for _, tt := range []struct {
		args                string
		env                 []string
		code                int
		stdout, stderr, raw string
	}{
		{args: "-h redis ping", stdout: "(error) NOAUTH Authentication required.\n"},
		{args: "-h redis -a s3cret ping", stdout: "PONG\n", stderr: warning},
		{args: "-h redis --no-auth-warning -a s3cret ping", stdout: "PONG\n"},
		{args: "-h redis ping", env: []string{"REDISCLI_AUTH=s3cret"}, stdout: "PONG\n"},
		{args: "-u redis://:s3cret@redis:6379/0 ping", stdout: "PONG\n", stderr: warning},
		// redis-cli goes on with a connection whose AUTH failed.
		{args: "-h redis -a nope ping", stdout: "(error) NOAUTH Authentication required.\n",
			stderr: warning + "AUTH failed: WRONGPASS invalid username-password pair or user is disabled.\n"},
		{args: "-h redis -e ping", code: 1, stderr: "NOAUTH Authentication required.\n"},
	} {
		code, out, errs := c.cli(true, "", tt.env, strings.Fields(tt.args)...)
		if code != tt.code || out != tt.stdout || errs != tt.stderr {
			t.Errorf("%s: %d %q %q\nwant %d %q %q", tt.args, code, out, errs, tt.code, tt.stdout, tt.stderr)
		}
	}
}

func TestCLIOptions(t *testing.T) {
	c := newCluster()
	c.startServer(t, nil)
	// -x: the last argument is stdin, as is.
	if _, out, _ := c.cli(false, "hello\n", nil, "-h", "redis", "-x", "set", "k"); out != "OK\n" {
		t.Fatalf("-x: %q", out)
	}
	if _, out, _ := c.cli(true, "", nil, "-h", "redis", "get", "k"); out != "\"hello\\n\"\n" {
		t.Errorf("after -x: %q", out)
	}
	// -n selects a database; -r repeats.
	if _, out, _ := c.cli(false, "", nil, "-h", "redis", "-n", "2", "-r", "3", "incr", "c"); out != "1\n2\n3\n" {
		t.Errorf("-n 2 -r 3: %q", out)
	}
	if _, out, _ := c.cli(false, "", nil, "-h", "redis", "get", "c"); out != "\n" {
		t.Errorf("db 0 has db 2's key: %q", out)
	}
}

func TestCLIPrompt(t *testing.T) {
	c := newCluster()
	c.startServer(t, nil)
	code, out, _ := c.cli(true, "set a 1\n\nselect 1\nget a\nquit\nping\n", nil, "-h", "redis")
	want := "redis:6379> OK\nredis:6379> redis:6379> OK\nredis:6379[1]> (nil)\nredis:6379[1]> "
	if code != 0 || out != want {
		t.Errorf("session: %d %q, want %q", code, out, want)
	}
	// Piped, without a terminal: no prompt, raw replies.
	if _, out, _ := c.cli(false, "get a\n", nil, "-h", "redis"); out != "1\n" {
		t.Errorf("piped: %q", out)
	}
	// Not connected: says so, and tries again at each command.
	_, out, errs := c.cli(true, "ping\n", nil, "-p", "7000")
	if out != "not connected> not connected> " || strings.Count(errs, "Could not connect to Redis at 127.0.0.1:7000: Connection refused\n") != 2 {
		t.Errorf("not connected: %q %q", out, errs)
	}
}
