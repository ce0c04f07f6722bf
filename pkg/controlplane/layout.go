package controlplane

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// layout is everything derived from Options before anything runs: where the
// state lives in the data dir and which loopback ports each part uses.
//
//	<data-dir>/winkube.lock          flock held while a control plane runs
//	<data-dir>/kubeconfig            admin kubeconfig (cluster/context "winkube")
//	<data-dir>/kubeconfigs/<c>.conf  kube-scheduler and kube-controller-manager identities
//	<data-dir>/pki/                  CAs, service-account key pair, leaf certificates
//	<data-dir>/etcd/                 etcd data
//	<data-dir>/logs/<c>.log          output of etcd and each component
//	<data-dir>/egress.sock           CONNECT proxy for the apiserver's node traffic (with a NodeDialer)
//	<data-dir>/egress-selector.yaml  the apiserver's EgressSelectorConfiguration pointing at it
type layout struct {
	opts  Options
	ports map[string]int // component name (or etcdClient/etcdPeer) -> loopback port
	// direct dials the egress proxy's loopback addresses; nil is a
	// net.Dialer (tests count its calls).
	direct func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Keys of layout.ports besides the component names.
const (
	etcdClient = "etcd-client"
	etcdPeer   = "etcd-peer"
	etcdHTTP   = "etcd-http" // etcd's /health, /metrics and /version
)

func (l *layout) path(elem ...string) string {
	return filepath.Join(append([]string{l.opts.DataDir}, elem...)...)
}

func (l *layout) pki(file string) string        { return l.path("pki", file) }
func (l *layout) logFile(name string) string    { return l.path("logs", name+".log") }
func (l *layout) kubeconfig(name string) string { return l.path("kubeconfigs", name+".conf") }
func (l *layout) adminKubeconfig() string       { return l.path("kubeconfig") }
func (l *layout) lockFile() string              { return l.path("winkube.lock") }
func (l *layout) egressConfigFile() string      { return l.path("egress-selector.yaml") }

// egressSocket is <data-dir>/egress.sock, or, when that path is too long
// for a Unix socket, a name in the temporary directory unique to this
// process (the data dir lock makes one process per data dir).
func (l *layout) egressSocket() string {
	if p := l.path("egress.sock"); len(p) <= maxSocketPath {
		return p
	}
	return filepath.Join(os.TempDir(), "winkube-egress-"+strconv.Itoa(os.Getpid())+".sock")
}

func (l *layout) hostPort(name string) string { return "127.0.0.1:" + strconv.Itoa(l.ports[name]) }
func (l *layout) httpsURL(name string) string { return "https://" + l.hostPort(name) }
