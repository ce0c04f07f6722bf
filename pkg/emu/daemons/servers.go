package daemons

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/eventlog"
	"github.com/winkube/winkube/pkg/emu/program"
)

// servers are the long-running programs by program.Name. Those without
// a start print nothing at start-up (memcached, traefik, flanneld,
// kube-proxy log nothing by default, or only version-specific lines;
// IIS's ServiceMonitor.exe prints nothing).
var servers = map[string]server{
	"pause":       {},
	"nginx":       {start: nginxStart, sites: []*site{&nginxSite}},
	"nginx-debug": {start: nginxStart, sites: []*site{&nginxSite}},
	"httpd-foreground": {start: func(p *program.Proc) (int, bool) {
		return httpdStart(p, []string{"httpd", "-DFOREGROUND"})
	}, sites: []*site{&httpdSite}},
	"httpd":           {start: func(p *program.Proc) (int, bool) { return httpdStart(p, p.Args) }, sites: []*site{&httpdSite}},
	"memcached":       {},
	"mongod":          {start: mongodStart},
	"rabbitmq-server": {},
	"traefik":         {},
	"coredns":         {start: corednsStart, sites: []*site{&corednsHealth, &corednsReady}, dns: true},
	"flanneld":        {},
	"kube-proxy":      {},
	"servicemonitor":  {start: serviceMonitorStart, sites: []*site{&iisSite}},
}

// serviceMonitorStart starts the service it watches (w3svc), which the
// Service Control Manager records in the container's System log, where
// LogMonitor's System channel sees it; it prints nothing.
func serviceMonitorStart(p *program.Proc) (int, bool) {
	if p.Sys.Windows && len(p.Args) > 1 && strings.EqualFold(p.Args[1], "w3svc") {
		registerIISProviders(p)
		p.Sys.EventLog().Write(eventlog.Entry{Source: "Service Control Manager", EventID: 7036, Type: eventlog.Information,
			Message: "The World Wide Web Publishing Service service entered the running state."})
	}
	return 0, false
}

// nginxStart prints the master's notices (error_log is stderr in the
// official image) as of "nginx -g 'daemon off;'".
func nginxStart(p *program.Proc) (int, bool) {
	t := p.Sys.Clock.Now().UTC().Format("2006/01/02 15:04:05")
	fmt.Fprintf(p.Stderr, "%s [notice] 1#1: using the \"epoll\" event method\n", t)
	fmt.Fprintf(p.Stderr, "%s [notice] 1#1: start worker processes\n", t)
	return 0, false
}

// httpdStart prints the ServerName warning httpd gives twice (config
// test, then start) with the pod's address from /etc/hosts. Without
// -DFOREGROUND httpd detaches and the container's process exits 0.
func httpdStart(p *program.Proc, argv []string) (int, bool) {
	addr := hostAddress(p)
	msg := "AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using " + addr + ". Set the 'ServerName' directive globally to suppress this message\n"
	io.WriteString(p.Stderr, msg)
	if !foreground(argv[1:]) {
		return 0, true
	}
	io.WriteString(p.Stderr, msg)
	return 0, false
}

func foreground(args []string) bool {
	for i, a := range args {
		if a == "-DFOREGROUND" || (a == "-D" && i+1 < len(args) && args[i+1] == "FOREGROUND") {
			return true
		}
	}
	return false
}

// hostAddress is the address the kubelet's /etc/hosts gives the pod's
// hostname, or the hostname when it has none.
func hostAddress(p *program.Proc) string {
	f, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs("/", "/etc/hosts"), os.O_RDONLY, 0)
	if err != nil {
		return p.Sys.Hostname
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		for _, name := range fields[min(1, len(fields)):] {
			if name == p.Sys.Hostname {
				return fields[0]
			}
		}
	}
	return p.Sys.Hostname
}

// mongodStart prints the structured log line mongod ends its start with.
func mongodStart(p *program.Proc) (int, bool) {
	t := p.Sys.Clock.Now().UTC().Format("2006-01-02T15:04:05.000+00:00")
	fmt.Fprintf(p.Stdout, `{"t":{"$date":"%s"},"s":"I",  "c":"NETWORK",  "id":23016,   "ctx":"listener","msg":"Waiting for connections","attr":{"port":27017,"ssl":"off"}}`+"\n", t)
	return 0, false
}

// corednsStart prints the server block CoreDNS serves (the cluster
// Corefile's root zone).
func corednsStart(p *program.Proc) (int, bool) {
	io.WriteString(p.Stdout, ".:53\n")
	return 0, false
}
