package wardle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/server/egressselector"
	"k8s.io/sample-apiserver/pkg/cmd/server"

	"github.com/winkube/winkube/internal/connset"
	"github.com/winkube/winkube/pkg/emu/hostdir"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Flags by what their value names in a real process.
var (
	// inputFiles are read: copied from the container's filesystem.
	inputFiles = []string{
		"tls-cert-file", "tls-private-key-file", "client-ca-file", "requestheader-client-ca-file",
		"etcd-cafile", "etcd-certfile", "etcd-keyfile", "audit-policy-file",
		"admission-control-config-file", "encryption-provider-config",
	}
	// clusterFiles name kubeconfigs: the emulated program reaches the
	// cluster only as its pod does.
	clusterFiles = []string{"kubeconfig", "authentication-kubeconfig", "authorization-kubeconfig"}
	// unsupported reach outside the pod in ways the emulation does not
	// follow (real sockets, collectors, other hosts).
	unsupported = []string{"egress-selector-config-file", "tracing-config-file", "audit-webhook-config-file", "tls-sni-cert-key", "debug-socket-path"}
)

// pod is what a run borrows from the host: a private directory and the
// proxy that carries its cluster clients into the pod network.
type pod struct {
	dir   string
	proxy *proxy
	port  context.CancelFunc
}

func (e *pod) close() {
	if e.port != nil {
		e.port()
	}
	if e.proxy != nil {
		e.proxy.close()
	}
	os.RemoveAll(e.dir)
}

// enterPod points the parsed options at the container's filesystem, the
// pod's network and its service account. The options' flags are bound
// to o.RecommendedOptions, which the upstream command then runs with.
func enterPod(ctx context.Context, p *program.Proc, fs flagSet, o *server.WardleServerOptions) (_ *pod, err error) {
	if p.Sys.Net == nil {
		return nil, errors.New("the pod has no network")
	}
	for _, name := range unsupported {
		if fs.Lookup(name).Changed {
			return nil, fmt.Errorf("--%s: the emulated sample-apiserver does not support this flag", name)
		}
	}
	for _, name := range clusterFiles {
		if f := fs.Lookup(name); f.Changed {
			return nil, fmt.Errorf("--%s %s: the emulated sample-apiserver reaches the cluster only through its pod's service account; remove --%s", name, f.Value, name)
		}
	}
	if path := fs.Lookup("audit-log-path").Value.String(); path == "-" && fs.Lookup("audit-policy-file").Changed {
		return nil, errors.New("--audit-log-path -: the emulated sample-apiserver cannot write audit events to the container's stdout; give a file")
	}
	dir, err := hostdir.Make("wardle")
	if err != nil {
		return nil, err
	}
	e := &pod{dir: dir}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	if err := e.files(p, fs); err != nil {
		return nil, err
	}
	kubeconfig, err := e.inCluster(p)
	if err != nil {
		return nil, err
	}
	for _, name := range clusterFiles {
		if err := fs.Set(name, kubeconfig); err != nil {
			return nil, err
		}
	}
	o.RecommendedOptions.Etcd.StorageConfig.Transport.EgressLookup = func(egressselector.NetworkContext) (utilnet.DialFunc, error) {
		return program.NetDialer(p), nil
	}
	return e, e.listen(ctx, p, o)
}

// files copies the files the flags read into the private directory, and
// sends what the program writes there.
func (e *pod) files(p *program.Proc, fs flagSet) error {
	for _, name := range inputFiles {
		f := fs.Lookup(name)
		if !f.Changed || f.Value.String() == "" {
			continue
		}
		local, err := e.copyIn(p, f.Value.String())
		if err != nil {
			return fmt.Errorf("--%s: %w", name, err)
		}
		if err := fs.Set(name, local); err != nil {
			return err
		}
	}
	// The default --cert-dir is relative to the working directory: the
	// container's, never winkube's.
	if err := fs.Set("cert-dir", e.local(p, fs.Lookup("cert-dir").Value.String())); err != nil {
		return err
	}
	if v := fs.Lookup("audit-log-path").Value.String(); v != "" && v != "-" {
		local := e.local(p, v)
		if err := os.MkdirAll(filepath.Dir(local), 0o700); err != nil {
			return err
		}
		return fs.Set("audit-log-path", local)
	}
	return nil
}

// local is where a container path lives in the private directory.
func (e *pod) local(p *program.Proc, name string) string {
	return filepath.Join(e.dir, "root", filepath.FromSlash(path.Clean("/"+p.Sys.FS.Abs(p.Dir, name))))
}

// copyIn copies a file of the container into the private directory.
func (e *pod) copyIn(p *program.Proc, name string) (string, error) {
	data, err := readFile(p, name)
	if err != nil {
		return "", err
	}
	local := e.local(p, name)
	if err := os.MkdirAll(filepath.Dir(local), 0o700); err != nil {
		return "", err
	}
	return local, os.WriteFile(local, data, 0o600)
}

// readFile reads a file of the container, relative to its working
// directory.
func readFile(p *program.Proc, name string) ([]byte, error) {
	f, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, name), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// listen binds --secure-port on the pod network. The server itself
// listens on the host's loopback, where its own loopback clients (its
// informers, its admission plugins) reach it as they would in a pod, and
// the pod's port is forwarded there. The port stays bound until the run
// ends: the server closes its listener itself as it shuts down.
func (e *pod) listen(ctx context.Context, p *program.Proc, o *server.WardleServerOptions) error {
	s := o.RecommendedOptions.SecureServing
	srv, ok := p.Sys.Net.(program.Server)
	if s.BindPort <= 0 || !ok {
		return nil
	}
	local, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("failed to create listener: %w", err)
	}
	portCtx, unbind := context.WithCancel(context.WithoutCancel(ctx))
	to := local.Addr().String()
	if err := srv.Serve(portCtx, "tcp", s.BindPort, func(c io.ReadWriteCloser) { connset.Forward(c, "tcp", to) }); err != nil {
		unbind()
		local.Close()
		return fmt.Errorf("failed to create listener: %w", err)
	}
	e.port = unbind
	s.Listener = local
	return nil
}
