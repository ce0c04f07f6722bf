package selfimage

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/webhook"
)

// serve is `winkube webhook serve`: it runs until ctx is done, then stops
// as the real server does on SIGTERM (exit 0).
func serve(ctx context.Context, p *program.Proc, args []string) int {
	f, err := parse(args, p.Stdout)
	var usage *usageError
	switch {
	case errors.Is(err, errHelp):
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(p.Stderr, "winkube: %s\n", usage.msg)
		return usage.code
	}
	if err := run(ctx, p, f); err != nil {
		fmt.Fprintf(p.Stderr, "winkube: %v\n", err)
		return 1
	}
	return 0
}

// run follows the real command step by step (runServe), with the
// container's filesystem, service account and network in place of the
// host's.
func run(ctx context.Context, p *program.Proc, f *serveFlags) error {
	cert, err := loadKeyPair(p, f.certFile, f.keyFile)
	if err != nil {
		return fmt.Errorf("--tls-cert-file %s, --tls-private-key-file %s: %w", f.certFile, f.keyFile, err)
	}
	cfg, err := restConfig(p, f)
	if err != nil {
		return err
	}
	if f.policy.ResolveImages == webhook.ResolveRegistry {
		// A registry look-up would leave the machine; the emulated pod
		// network reaches no registry.
		fmt.Fprintln(p.Stderr, "winkube: --resolve-images registry: the emulated pod reaches no registry, so image platforms come from the built-in catalog")
		f.policy.ResolveImages = webhook.ResolveCatalog
	}
	h, err := webhook.NewServeHandler(cfg, f.policy, p.Stderr)
	if err != nil {
		return err
	}
	defer h.Close()
	// The port is unbound when run returns, not when ctx ends: the server
	// closes its listener as it shuts down, and a listener closed under
	// it before that would read as a failure.
	portCtx, unbind := context.WithCancel(context.WithoutCancel(ctx))
	defer unbind()
	ln, err := listen(portCtx, p, f.listen)
	if err != nil {
		return fmt.Errorf("serving on --listen %s: %w", f.listen, err)
	}
	fmt.Fprintln(p.Stdout, webhook.ServingLine(f.listen, cfg.Host, f.policy))
	if err := webhook.ServeListener(ctx, ln, cert, h); err != nil {
		return fmt.Errorf("serving on --listen %s: %w", f.listen, err)
	}
	fmt.Fprintln(p.Stdout, "Stopped.")
	return nil
}

// loadKeyPair is tls.LoadX509KeyPair on the container's filesystem.
func loadKeyPair(p *program.Proc, certFile, keyFile string) (tls.Certificate, error) {
	certPEM, err := readFile(p, certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := readFile(p, keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
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

// listen binds the port of --listen on the pod network. The host part is
// not checked: a pod has one address, and ":PORT" is what pods use.
func listen(ctx context.Context, p *program.Proc, addr string) (net.Listener, error) {
	_, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("webhook listen on %s: %w", addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("webhook listen on %s: listen tcp: address %s: invalid port", addr, portText)
	}
	if p.Sys.Net == nil {
		return nil, fmt.Errorf("webhook listen on %s: the pod has no network", addr)
	}
	l, err := p.Sys.Net.Listen(ctx, "tcp", port)
	if err != nil {
		return nil, fmt.Errorf("webhook listen on %s: %w", addr, err)
	}
	u, ok := l.(interface{ Unwrap() net.Listener })
	if !ok {
		l.Close()
		return nil, fmt.Errorf("webhook listen on %s: the pod network gives no net.Listener", addr)
	}
	return u.Unwrap(), nil
}
