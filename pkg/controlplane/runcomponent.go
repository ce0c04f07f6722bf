package controlplane

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	_ "time/tzdata" // CronJob time zones, as the upstream mains embed it

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream mains
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream mains

	"github.com/winkube/winkube/pkg/controlplane/internal/upstreamversion"
)

// RunComponent runs one upstream component (kube-apiserver, kube-scheduler or
// kube-controller-manager) with its upstream flags in this process, as its own
// main would. It is the body of the hidden "component" subcommand a control
// plane re-executes its binary with, and never returns while the component
// runs normally. The components stop on SIGTERM through their own signal
// handling; if ctx ends first, RunComponent returns and the caller should
// exit, as the component cannot be stopped in-process.
func RunComponent(ctx context.Context, name string, args []string) error {
	if name == checkFlagsMode && len(args) > 0 {
		return checkFlagsChild(args[0], args[1:])
	}
	i := slices.IndexFunc(components, func(c component) bool { return c.name == name })
	if i < 0 {
		return fmt.Errorf("unknown component %q (want one of %s)", name, strings.Join(componentNames(), ", "))
	}
	upstreamversion.Set() // before the command reads the version
	cmd := components[i].command()
	cmd.SetArgs(args)
	done := make(chan error, 1)
	go func() { done <- cli.RunNoErrOutput(cmd) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkFlagsChild builds the named component's command and reports which
// of the "name=value" overrides it does not take (see checkFlags).
func checkFlagsChild(name string, overrides []string) error {
	i := slices.IndexFunc(components, func(c component) bool { return c.name == name })
	if i < 0 {
		return fmt.Errorf("unknown component %q (want one of %s)", name, strings.Join(componentNames(), ", "))
	}
	upstreamversion.Set()
	reportFlagProblems(components[i].command(), name, overrides)
	return nil
}

// MaybeRunComponent turns this process into a component child when it was
// started as "<binary> component <name> <flags...>", and exits with the
// component's result; otherwise it returns at once. Call it first thing in
// TestMain of every package that starts a control plane, because test
// binaries re-execute themselves as the children.
func MaybeRunComponent() {
	if len(os.Args) < 2 || os.Args[1] != "component" {
		return
	}
	if len(os.Args) < 3 {
		fmt.Fprintf(os.Stderr, "usage: %s component <%s> [flags...]\n", os.Args[0], strings.Join(componentNames(), "|"))
		os.Exit(2)
	}
	if err := RunComponent(context.Background(), os.Args[2], os.Args[3:]); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func componentNames() []string {
	names := make([]string, 0, len(components))
	for _, c := range components {
		names = append(names, c.name)
	}
	return names
}
