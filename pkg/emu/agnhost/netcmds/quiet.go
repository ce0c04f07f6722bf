package netcmds

import (
	"context"

	"github.com/spf13/pflag"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
)

// ConsumerControllerSetup is resource-consumer-controller: it prints
// nothing at start and does not answer yet, running until stopped.
// traffic: it would listen on --port once its handlers are written.
func ConsumerControllerSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	fs.Int("port", 8080, "Port number.")
	fs.Int("consumer-port", 8080, "Port number of consumers.")
	fs.String("consumer-service-name", "resource-consumer", "Name of service containing resource consumers.")
	fs.String("consumer-service-namespace", "default", "Namespace of service containing resource consumers.")
	return func(ctx context.Context, _ *kit.App, _ []string) int { return wait(ctx) }
}
