// Package selfimage is the program of winkube's own image
// (ghcr.io/winkube/winkube, whose entrypoint is the winkube binary): the
// image `winkube webhook install` runs. Its one command that makes sense
// in a pod, `winkube webhook serve`, runs here for real: the same flags,
// the same admission handler (pkg/webhook), its TLS files read from the
// container's filesystem, the cluster reached through the pod's service
// account and the pod network, and its port served on the pod network.
// kube-apiserver's admission calls then reach it as they reach a webhook
// pod on a real cluster: Service, endpoint, pod IP.
package selfimage

import (
	"context"
	"fmt"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/webhook"
)

// Repository is the image repository whose containers run this program.
const Repository = webhook.ImageRepository

// Table is the programs of the image by program.Name.
func Table() map[string]program.Main {
	return map[string]program.Main{"winkube": Main}
}

// Main is winkube as the image runs it. Only `webhook serve` is emulated;
// any other command says so and fails, rather than pretend.
func Main(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	if len(args) >= 2 && args[0] == "webhook" && args[1] == "serve" {
		return serve(ctx, p, args[2:])
	}
	fmt.Fprintf(p.Stderr, "winkube: the emulated winkube image runs only `winkube webhook serve`, not `winkube %s`\n", strings.Join(args, " "))
	return 1
}
