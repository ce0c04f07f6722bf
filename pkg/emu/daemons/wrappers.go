package daemons

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// execRest runs argv as the wrapper's child (its exec or fork), with the
// wrapper's environment and streams. A child that settles into waiting to
// be stopped (a server) settles the wrapper too: the entrypoint script
// exec'd it, and tini and dumb-init only wait for it, so neither holds a
// goroutine for it.
func execRest(ctx context.Context, p *program.Proc, argv []string) (int, error) {
	return p.Sys.Start(ctx, &program.Proc{
		Args: argv, Env: p.Env, Dir: p.Dir,
		Stdin: p.Stdin, Stdout: p.Stdout, Stderr: p.Stderr, TTY: p.TTY, Term: p.Term, Sys: p.Sys,
	})
}

// flagPrefixed are the images whose docker-entrypoint.sh puts their
// server in front of arguments that start with '-' ("docker run redis
// --port 7000"); the image is told by the program it has.
var flagPrefixed = []string{"redis-server", "memcached", "mongod", "rabbitmq-server", "traefik", "node"}

// dockerEntrypoint is the official images' docker-entrypoint.sh (and
// traefik's entrypoint.sh): a shell script ending in exec "$@". It
// prints nothing of its own except nginx's configuration lines, and with
// nothing to run it ends 0, as the script does.
func dockerEntrypoint(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	if _, redisImage := p.Sys.Programs["redis-cli"]; redisImage && len(args) > 0 && strings.HasSuffix(args[0], ".conf") {
		// redis's entrypoint also runs a first argument naming a config
		// file with redis-server ("docker run redis /etc/redis.conf").
		args = append([]string{"redis-server"}, args...)
	} else if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		for _, name := range flagPrefixed {
			if _, ok := p.Sys.Programs[name]; ok {
				args = append([]string{name}, args...)
				break
			}
		}
	}
	if len(args) == 0 {
		return 0
	}
	if (args[0] == "nginx" || args[0] == "nginx-debug") && p.Getenv("NGINX_ENTRYPOINT_QUIET_LOGS") == "" {
		nginxConfigure(p)
	}
	code, err := execRest(ctx, p, args)
	if errors.Is(err, program.ErrNotFound) {
		fmt.Fprintf(p.Stderr, "%s: exec: %s: not found\n", p.Args[0], args[0])
		return 127
	}
	return code
}

// nginxConfigure prints what nginx's entrypoint says before it starts
// nginx, depending on whether /docker-entrypoint.d/ holds files. The
// lines of the scripts it runs there are left out.
func nginxConfigure(p *program.Proc) {
	me := p.Args[0]
	entries, _ := p.Sys.FS.ReadDir(p.Sys.FS.Abs("/", "/docker-entrypoint.d"))
	if len(entries) == 0 {
		fmt.Fprintf(p.Stdout, "%s: No files found in /docker-entrypoint.d/, skipping configuration\n", me)
		return
	}
	fmt.Fprintf(p.Stdout, "%s: /docker-entrypoint.d/ is not empty, will attempt to perform configuration\n", me)
	fmt.Fprintf(p.Stdout, "%s: Looking for shell scripts in /docker-entrypoint.d/\n", me)
	fmt.Fprintf(p.Stdout, "%s: Configuration complete; ready for start up\n", me)
}

const tiniUsage = `tini (tini version 0.19.0)
Usage: tini [OPTIONS] PROGRAM -- [ARGS] | --version

Execute a program under the supervision of a valid init process (tini)
`

// tini runs its program and exits with its status (-e codes remapped to
// 0). Options end at the first non-option or "--".
func tini(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	remap := map[int]bool{}
options:
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		opt := args[0]
		args = args[1:]
		switch opt {
		case "--":
			break options
		case "--version":
			io.WriteString(p.Stdout, "tini version 0.19.0\n")
			return 0
		case "-h":
			io.WriteString(p.Stdout, tiniUsage)
			return 0
		case "-e", "-p":
			if len(args) == 0 {
				fmt.Fprintf(p.Stderr, "%s: option requires an argument -- '%s'\n", p.Args[0], opt[1:])
				io.WriteString(p.Stderr, tiniUsage)
				return 1
			}
			if opt == "-e" {
				n, err := strconv.Atoi(args[0])
				if err != nil || n < 0 || n > 255 {
					fmt.Fprintf(p.Stderr, "[FATAL tini (1)] Not a valid option for -e: %s\n", args[0])
					return 1
				}
				remap[n] = true
			}
			args = args[1:]
		}
	}
	if len(args) == 0 {
		io.WriteString(p.Stderr, tiniUsage)
		return 1
	}
	code, err := execRest(ctx, p, args)
	if errors.Is(err, program.ErrNotFound) {
		// The forked child reports it, with its own pid.
		fmt.Fprintf(p.Stderr, "[FATAL tini (7)] exec %s failed: No such file or directory\n", args[0])
		return 127
	}
	if remap[code] {
		return 0
	}
	return code
}

const dumbInitVersion = "dumb-init v1.2.5\n"

// dumbInit runs its command and exits with its status.
func dumbInit(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
options:
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		opt := args[0]
		args = args[1:]
		switch {
		case opt == "--":
			break options
		case opt == "-V" || opt == "--version":
			io.WriteString(p.Stderr, dumbInitVersion)
			return 0
		case opt == "-h" || opt == "--help":
			dumbInitHelp(p.Stderr, p.Args[0])
			return 0
		case opt == "-r" || opt == "--rewrite":
			if len(args) > 0 {
				args = args[1:]
			}
		}
	}
	if len(args) == 0 {
		dumbInitHelp(p.Stderr, p.Args[0])
		return 1
	}
	code, err := execRest(ctx, p, args)
	if errors.Is(err, program.ErrNotFound) {
		fmt.Fprintf(p.Stderr, "[dumb-init] %s: No such file or directory\n", args[0])
		return 2
	}
	return code
}

func dumbInitHelp(w io.Writer, name string) {
	fmt.Fprintf(w, "%sUsage: %s [option] command [[arg] ...]\n\n", dumbInitVersion, name)
	io.WriteString(w, "dumb-init is a simple process supervisor that forwards signals to children.\n")
	io.WriteString(w, "It is designed to run as PID1 in minimal container environments.\n")
}
