// Package daemons is the main processes of common images that run until
// the container stops (pause, nginx, httpd, redis-server, ...) and the
// entrypoint wrappers in front of them (docker-entrypoint.sh, tini,
// dumb-init). A server prints the first lines its real counterpart
// prints and waits; the web servers (nginx, httpd, IIS) serve their
// document root on port 80 of the pod network, with no goroutine while
// idle, and redis-server (package redis) serves RESP on its port. A wrapper runs the rest of its argv through
// Sys.Exec and exits with its status.
//
// Exit status when stopped: every server here handles SIGTERM and exits
// 0 (pause, nginx, httpd, redis-server, memcached, mongod, traefik,
// coredns, flanneld, kube-proxy; rabbitmq-server's runner too), so a
// server whose ctx is done returns 0. The caller, which knows whether
// it sent TERM or KILL, reports 137 for a kill.
package daemons

import (
	"context"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/redis"
)

// Table is the programs of this package by program.Name.
func Table() map[string]program.Main {
	t := map[string]program.Main{
		"docker-entrypoint.sh": dockerEntrypoint,
		"entrypoint.sh":        dockerEntrypoint,
		"tini":                 tini,
		"dumb-init":            dumbInit,
	}
	for name, s := range servers {
		t[name] = s.main
	}
	// redis-server is a real server of its own package (miniredis).
	t["redis-server"] = redis.Server
	return t
}

// server is a long-running program: start prints its startup lines (and
// may end it at once, returning done); it then runs until stopped.
type server struct {
	start func(p *program.Proc) (code int, done bool)
	// sites are what the server answers over HTTP: a web server's
	// document root, a health endpoint.
	sites []*site
	// dns: the server answers the cluster zone on port 53 (CoreDNS).
	dns bool
}

// main returns program.Forever once the server has started: the node then
// holds nothing for it until it is stopped, so 10,000 idle servers cost no
// goroutines. What a server prints on SIGTERM is therefore not emulated.
func (s server) main(ctx context.Context, p *program.Proc) int {
	if s.start != nil {
		if code, done := s.start(p); done {
			return code
		}
	}
	if s.dns {
		serveClusterDNS(ctx, p)
	}
	for _, site := range s.sites {
		serveSite(ctx, p, *site)
	}
	return program.Forever
}
