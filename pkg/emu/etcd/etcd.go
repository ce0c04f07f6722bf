// Package etcd is the etcd image's server (registry.k8s.io/etcd's
// /usr/local/bin/etcd): the real etcd, go.etcd.io/etcd/server/v3/embed,
// run inside winkube's process. Its flags are etcd's own (embed.Config's
// AddFlags). What a container's etcd would bind in its pod is served on
// the pod network instead: each client URL's port on the pod's loopback
// (127.0.0.1) or on all its addresses (0.0.0.0, the pod IP), forwarded to
// a Unix socket etcd listens on in a private directory of the host
// (package hostdir). Its data lives in that directory too, removed when
// the container stops, as a container's writable layer goes with it. A single-member etcd talks to
// no peer, so no peer port is bound at all.
package etcd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"go.etcd.io/etcd/api/v3/version"
	"go.etcd.io/etcd/client/pkg/v3/logutil"
	"go.etcd.io/etcd/pkg/v3/flags"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/winkube/winkube/internal/connset"
	"github.com/winkube/winkube/pkg/emu/hostdir"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Table is the programs of this package by program.Name.
func Table() map[string]program.Main {
	return map[string]program.Main{"etcd": Main}
}

// Main is etcd: it serves until the container stops (exit 0), or fails
// as etcd does (exit 1, its reason on stderr; exit 2 for a flag it does
// not know).
func Main(ctx context.Context, p *program.Proc) int {
	cfg, code, err := parse(p)
	if err != nil {
		fmt.Fprintln(p.Stderr, err)
		return code
	}
	if cfg == nil { // --version
		return 0
	}
	if err := serve(ctx, p, cfg); err != nil {
		fmt.Fprintf(p.Stderr, "etcd: %v\n", err)
		return 1
	}
	return 0
}

// parse reads etcd's flags as etcdmain does from a command line and the
// container's ETCD_* variables (a config file is not read). cfg is nil
// after --version, which has printed what etcd prints.
func parse(p *program.Proc) (*embed.Config, int, error) {
	cfg := embed.NewConfig()
	fs := flag.NewFlagSet("etcd", flag.ContinueOnError)
	fs.SetOutput(p.Stderr)
	fs.Usage = func() {}
	cfg.AddFlags(fs)
	state := flags.NewSelectiveStringValue(embed.ClusterStateFlagNew, embed.ClusterStateFlagExisting)
	fs.Var(state, "initial-cluster-state", "Initial cluster state ('new' or 'existing').")
	configFile := fs.String("config-file", "", "Path to the server configuration file.")
	printVersion := fs.Bool("version", false, "Print the version and exit.")
	if err := fs.Parse(p.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0, nil
		}
		return nil, 2, err // the flag package has printed the reason
	}
	if fs.NArg() != 0 {
		return nil, 1, fmt.Errorf("%q is not a valid flag", fs.Arg(0))
	}
	if err := fromEnv(p, fs); err != nil {
		return nil, 1, err
	}
	if *printVersion {
		fmt.Fprintf(p.Stdout, "etcd Version: %s\nGit SHA: %s\nGo Version: %s\nGo OS/Arch: %s/%s\n", version.Version, version.GitSHA, runtime.Version(), goos(p), runtime.GOARCH)
		return nil, 0, nil
	}
	if *configFile != "" {
		return nil, 1, fmt.Errorf("--config-file %s: the emulated etcd reads its flags only", *configFile)
	}
	cfg.ListenPeerUrls = flags.UniqueURLsFromFlag(fs, "listen-peer-urls")
	cfg.AdvertisePeerUrls = flags.UniqueURLsFromFlag(fs, "initial-advertise-peer-urls")
	cfg.ListenClientUrls = flags.UniqueURLsFromFlag(fs, "listen-client-urls")
	cfg.ListenClientHttpUrls = flags.UniqueURLsFromFlag(fs, "listen-client-http-urls")
	cfg.AdvertiseClientUrls = flags.UniqueURLsFromFlag(fs, "advertise-client-urls")
	cfg.ListenMetricsUrls = flags.UniqueURLsFromFlag(fs, "listen-metrics-urls")
	cfg.ClusterState = state.String()
	if flags.IsSet(fs, "listen-client-urls") && !flags.IsSet(fs, "advertise-client-urls") {
		cfg.AdvertiseClientUrls = nil // etcd then refuses to start, as etcdmain does
	}
	fs.Visit(func(f *flag.Flag) { cfg.FlagsExplicitlySet[f.Name] = true })
	return cfg, 0, nil
}

// fromEnv sets each flag the command line left unset from its ETCD_*
// variable, as etcd's flags.SetFlagsFromEnv does from the process's
// environment (here the container's).
func fromEnv(p *program.Proc, fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		key := flags.FlagToEnv("ETCD", f.Name)
		val, ok := p.LookupEnv(key)
		if err != nil || set[f.Name] || !ok || val == "" {
			return
		}
		if serr := fs.Set(f.Name, val); serr != nil {
			err = fmt.Errorf("invalid value %q for %s: %v", val, key, serr)
		}
	})
	return err
}

func goos(p *program.Proc) string {
	if p.Sys.Windows {
		return "windows"
	}
	return "linux"
}

// serve starts etcd with its ports on the pod network and its data in a
// private directory, and runs it until ctx is done or etcd fails.
func serve(ctx context.Context, p *program.Proc, cfg *embed.Config) error {
	dir, err := hostdir.Make("etcd")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg.Dir, cfg.WalDir = filepath.Join(dir, "data"), ""
	// The logs are etcd's own JSON lines, on the container's stderr.
	lg := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(logutil.DefaultZapLoggerConfig.EncoderConfig), zapcore.AddSync(p.Stderr), zap.InfoLevel))
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(lg)
	cfg.ListenPeerUrls = nil
	var binds []bind
	for _, set := range []*[]url.URL{&cfg.ListenClientUrls, &cfg.ListenClientHttpUrls, &cfg.ListenMetricsUrls} {
		for i, u := range *set {
			b, err := podBind(p, u, filepath.Join(dir, "s"+strconv.Itoa(len(binds))))
			if err != nil {
				return err
			}
			(*set)[i] = url.URL{Scheme: "unix", Path: b.socket}
			binds = append(binds, b)
		}
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		return err
	case <-ctx.Done():
		return nil
	}
	for _, b := range binds {
		if err := b.serve(ctx, p); err != nil {
			return err
		}
	}
	select {
	case err := <-e.Err():
		return err
	case <-e.Server.StopNotify():
		return errors.New("etcd server stopped")
	case <-ctx.Done():
		return nil
	}
}

// bind is one of etcd's listen URLs: a port of the pod and the socket
// etcd serves it on.
type bind struct {
	port     int
	loopback bool // the pod's loopback only
	socket   string
}

// podBind places a listen URL on the pod network, refusing an address
// the pod does not have as the OS would.
func podBind(p *program.Proc, u url.URL, socket string) (bind, error) {
	if u.Scheme != "http" {
		return bind{}, fmt.Errorf("listen URL %s: the emulated etcd serves http only (no TLS or Unix sockets)", u.String())
	}
	host, portText, err := net.SplitHostPort(u.Host)
	if err != nil {
		return bind{}, fmt.Errorf("listen URL %s: %w", u.String(), err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port <= 0 || port > 65535 {
		return bind{}, fmt.Errorf("listen URL %s: invalid port %q", u.String(), portText)
	}
	b := bind{port: port, socket: socket}
	ip, err := netip.ParseAddr(host)
	podIP := ""
	if n, ok := p.Sys.Net.(interface{ PodIP() string }); ok {
		podIP = n.PodIP()
	}
	switch {
	case host == "localhost" || (err == nil && ip.IsLoopback()):
		b.loopback = true
	case err == nil && (ip.IsUnspecified() || ip.String() == podIP):
	default:
		return bind{}, fmt.Errorf("listen tcp %s: bind: cannot assign requested address", u.Host)
	}
	return b, nil
}

// loopbackServer is a network that serves a port on the pod's loopback
// alone.
type loopbackServer interface {
	ServeLoopback(ctx context.Context, network string, port int, handle func(io.ReadWriteCloser)) error
}

// serve binds the pod's port until ctx is done; each connection is
// carried to etcd's socket.
func (b bind) serve(ctx context.Context, p *program.Proc) error {
	handle := func(c io.ReadWriteCloser) { connset.Forward(c, "unix", b.socket) }
	srv, ok := p.Sys.Net.(program.Server)
	if !ok {
		return errors.New("the pod has no network")
	}
	if lsrv, ok := p.Sys.Net.(loopbackServer); ok && b.loopback {
		return lsrv.ServeLoopback(ctx, "tcp", b.port, handle)
	}
	return srv.Serve(ctx, "tcp", b.port, handle)
}
