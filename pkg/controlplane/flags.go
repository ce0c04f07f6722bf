package controlplane

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// checkFlagsMode is the RunComponent name under which a child checks flag
// overrides against an upstream command instead of running it.
const checkFlagsMode = "check-flags"

// flagPath names an override the way the Cluster config spells it.
func flagPath(component, flag string) string {
	return fmt.Sprintf("controlPlane[%s][%s]", component, flag)
}

// componentArgs are the arguments a component starts with: winkube's own,
// then the sized flags with the overrides of Options.Flags applied, sorted
// so a restart passes the same command line.
func componentArgs(l *layout, comp component) []string {
	tuned := sizedFlags(comp.name, l.opts.Nodes)
	if tuned == nil {
		tuned = map[string]string{}
	}
	for name, value := range l.opts.Flags[comp.name] {
		tuned[name] = value
	}
	args := comp.args(l)
	names := make([]string, 0, len(tuned))
	for name := range tuned {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		args = append(args, "--"+name+"="+tuned[name])
	}
	return args
}

// reservedFlags are the flags winkube sets itself on a component: ports,
// certificates, kubeconfigs, CIDRs. Taken from the very arguments it
// passes, so the list cannot drift from them.
func reservedFlags(l *layout, comp component) map[string]bool {
	reserved := map[string]bool{}
	for _, arg := range comp.args(l) {
		name, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		reserved[name] = true
	}
	return reserved
}

// validateFlags reports overrides of unknown components and of flags
// winkube sets itself; whether upstream knows a flag is checkFlags' part.
func validateFlags(o Options) []error {
	l := &layout{opts: o, ports: map[string]int{}}
	var errs []error
	for _, name := range sortedKeys(o.Flags) {
		i := slices.IndexFunc(components, func(c component) bool { return c.name == name })
		if i < 0 {
			errs = append(errs, fmt.Errorf("controlPlane[%s]: unknown component (want one of %s)",
				name, strings.Join(componentNames(), ", ")))
			continue
		}
		reserved := reservedFlags(l, components[i])
		for _, flag := range sortedKeys(o.Flags[name]) {
			if reserved[flag] {
				errs = append(errs, fmt.Errorf("%s: --%s is set by winkube and cannot be overridden", flagPath(name, flag), flag))
			}
		}
	}
	return errs
}

// checkFlags asks each upstream command with overrides, in a child process
// of exe, whether it has the flags and takes the values. A child, because
// building a command more than once per process is not possible (see
// component.command); the check costs one short process per overridden
// component, and none without overrides.
func checkFlags(exe string, flags map[string]map[string]string) error {
	var errs []error
	for _, name := range sortedKeys(flags) {
		args := []string{"component", checkFlagsMode, name}
		for _, flag := range sortedKeys(flags[name]) {
			args = append(args, flag+"="+flags[name][flag])
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(exe, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("check flags of %s with %s: %w: %s", name, exe, err, strings.TrimSpace(stderr.String()))
		}
		for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			if flag, problem, ok := strings.Cut(line, "\t"); ok {
				errs = append(errs, fmt.Errorf("%s: %s", flagPath(name, flag), problem))
			}
		}
	}
	return errors.Join(errs...)
}

// reportFlagProblems is the child's side of checkFlags: for each
// "name=value" it prints "name<TAB>problem" when cmd has no such flag or
// rejects the value, and nothing when all is well.
func reportFlagProblems(cmd *cobra.Command, component string, overrides []string) {
	for _, kv := range overrides {
		name, value, _ := strings.Cut(kv, "=")
		f := lookupFlag(cmd, name)
		if f == nil {
			fmt.Printf("%s\t%s has no flag --%s\n", name, component, name)
			continue
		}
		if err := f.Value.Set(value); err != nil {
			fmt.Printf("%s\tinvalid value %q for --%s: %s\n", name, value, name, oneLine(err))
		}
	}
}

func lookupFlag(cmd *cobra.Command, name string) *pflag.Flag {
	if f := cmd.Flags().Lookup(name); f != nil {
		return f
	}
	return cmd.PersistentFlags().Lookup(name)
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
