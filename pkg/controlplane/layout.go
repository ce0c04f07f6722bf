package controlplane

import (
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
type layout struct {
	opts  Options
	ports map[string]int // component name (or etcdClient/etcdPeer) -> loopback port
}

// Keys of layout.ports besides the component names.
const (
	etcdClient = "etcd-client"
	etcdPeer   = "etcd-peer"
)

func (l *layout) path(elem ...string) string {
	return filepath.Join(append([]string{l.opts.DataDir}, elem...)...)
}

func (l *layout) pki(file string) string        { return l.path("pki", file) }
func (l *layout) logFile(name string) string    { return l.path("logs", name+".log") }
func (l *layout) kubeconfig(name string) string { return l.path("kubeconfigs", name+".conf") }
func (l *layout) adminKubeconfig() string       { return l.path("kubeconfig") }
func (l *layout) lockFile() string              { return l.path("winkube.lock") }
func (l *layout) hostPort(name string) string   { return "127.0.0.1:" + strconv.Itoa(l.ports[name]) }
func (l *layout) httpsURL(name string) string   { return "https://" + l.hostPort(name) }
