package agnhost

import (
	"context"

	"github.com/spf13/pflag"
)

// The servers here print nothing at start and do not answer yet: they
// run until stopped. traffic: each would listen on its port (flags
// below) once its handlers are written.

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
