package agnhost

import (
	"context"

	"github.com/spf13/pflag"
)

// The servers here print nothing at start and do not answer yet: they
// run until stopped. traffic: each would listen on its port (flags
// below) once the pod network carries their protocol (TLS, gRPC) and
// their handlers are written.

// webhookSetup is the admission webhook (port 443, TLS). It loads its
// key pair first and dies if it cannot.
func webhookSetup(fs *pflag.FlagSet) func(context.Context, *app, []string) int {
	var cert, key, sidecar string
	var port int
	fs.StringVar(&cert, "tls-cert-file", "", "File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert).")
	fs.StringVar(&key, "tls-private-key-file", "", "File containing the default x509 private key matching --tls-cert-file.")
	fs.IntVar(&port, "port", 443, "Secure port that the webhook listens on")
	fs.StringVar(&sidecar, "sidecar-image", "", "Image to be used as the injected sidecar")
	return func(ctx context.Context, a *app, _ []string) int {
		if !a.keyPair(cert, key, "config.go:34") {
			return 255
		}
		return wait(ctx)
	}
}

// tlsServerSetup is crd-conversion-webhook: like webhook, on port.
func tlsServerSetup(port int) func(*pflag.FlagSet) func(context.Context, *app, []string) int {
	return func(fs *pflag.FlagSet) func(context.Context, *app, []string) int {
		var cert, key string
		fs.StringVar(&cert, "tls-cert-file", "", "File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert).")
		fs.StringVar(&key, "tls-private-key-file", "", "File containing the default x509 private key matching --tls-cert-file.")
		fs.IntVar(&port, "port", port, "Secure port that the webhook listens on")
		return func(ctx context.Context, a *app, _ []string) int {
			if !a.keyPair(cert, key, "config.go:31") {
				return 255
			}
			return wait(ctx)
		}
	}
}

// keyPair reads the TLS files as tls.LoadX509KeyPair does first; a
// failure is klog.Fatal's line and exit 255.
func (a *app) keyPair(cert, key, site string) bool {
	for _, name := range []string{cert, key} {
		if name == "" {
			a.log.line('F', site, "open : no such file or directory")
			return false
		}
		if _, err := readFile(a.p, name); err != nil {
			a.log.line('F', site, goError(a.p, err))
			return false
		}
	}
	return true
}

func guestbookSetup(fs *pflag.FlagSet) func(context.Context, *app, []string) int {
	fs.String("http-port", "80", "HTTP Listen Port")
	fs.String("backend-port", "6379", "Backend's HTTP Listen Port")
	fs.String("replicaof", "", "The host's name to register to")
	return func(ctx context.Context, _ *app, _ []string) int { return wait(ctx) }
}

// portServerSetup is no-snat-test and no-snat-test-proxy.
func portServerSetup(port string) func(*pflag.FlagSet) func(context.Context, *app, []string) int {
	return func(fs *pflag.FlagSet) func(context.Context, *app, []string) int {
		usage := "The port to serve /checknosnat endpoint on."
		if port == "8080" {
			usage = "The port to serve /checknosnat and /whoami endpoints on."
		}
		fs.String("port", port, usage)
		return func(ctx context.Context, _ *app, _ []string) int { return wait(ctx) }
	}
}

func consumerControllerSetup(fs *pflag.FlagSet) func(context.Context, *app, []string) int {
	fs.Int("port", 8080, "Port number.")
	fs.Int("consumer-port", 8080, "Port number of consumers.")
	fs.String("consumer-service-name", "resource-consumer", "Name of service containing resource consumers.")
	fs.String("consumer-service-namespace", "default", "Namespace of service containing resource consumers.")
	return func(ctx context.Context, _ *app, _ []string) int { return wait(ctx) }
}
