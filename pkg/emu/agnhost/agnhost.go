// Package agnhost is the e2e test image registry.k8s.io/e2e-test-images/
// agnhost (v2.63.0) as a program: one binary whose cobra subcommands the
// e2e tests name in a container's args (pause, netexec, mounttest,
// entrypoint-tester, ...). Flags, output, exit codes and error wording
// follow test/images/agnhost of Kubernetes v1.36.3, where the command
// line goes through component-base's cli.Run: errors print as
// "Error: ..." on stderr with status 1, and Go's log lines come out in
// klog's format.
package agnhost

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/dnsutils"
	"github.com/winkube/winkube/pkg/emu/netapplets"
	"github.com/winkube/winkube/pkg/emu/program"
)

// version is what "agnhost --version" prints after "app version".
const version = "2.63.0"

// Main runs agnhost; Args[0] is the path it was invoked by (/agnhost or
// /agnhost-2).
var Main program.Main = run

// Table is the image's programs: /agnhost and the /agnhost-2 copy the
// entrypoint tests override the command with, and the nc the image adds
// to its base.
func Table() map[string]program.Main {
	t := map[string]program.Main{"agnhost": Main, "agnhost-2": Main, "nc": nc}
	// The image adds BIND's tools to its base; its userland has getent.
	for name, m := range dnsutils.Table() {
		t[name] = m
	}
	return t
}

// nc is the image's nc: its Linux variant installs netcat-openbsd on
// Alpine, its Windows variant inherits netcat 1.12 NT (nc64.exe as
// C:\bin\nc.exe) from the e2e busybox image; the e2e tests run
// nc -v -t -w 2 HOST PORT in both.
func nc(ctx context.Context, p *program.Proc) int {
	if p.Sys.Windows {
		return netapplets.NcWin32(ctx, p)
	}
	return netapplets.NcOpenBSD(ctx, p)
}

func run(ctx context.Context, p *program.Proc) int {
	a := &kit.App{P: p, Log: kit.NewKlogger(p)}
	root, runs := newRoot(p)
	args := p.Args[1:]
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd(args...)
	cmd, flags, err := root.Find(args)
	if err != nil {
		fmt.Fprintf(p.Stderr, "Error: %v\n", err)
		return 1
	}
	if r, ok := runs[cmd]; ok && r.raw {
		return r.fn(ctx, a, flags)
	}
	return execute(ctx, a, root, cmd, flags, runs)
}

// execute is cobra's Command.execute with cli.Run's error printing,
// calling agnhost's own function instead of cobra's Run.
func execute(ctx context.Context, a *kit.App, root, cmd *cobra.Command, flags []string, runs map[*cobra.Command]runner) int {
	p := a.P
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	if err := cmd.ParseFlags(flags); err != nil {
		if cmd == root {
			// cli.Run re-enables usage for flag errors; only the
			// root's own setting decides, so only the root shows it.
			fmt.Fprintln(p.Stderr, cmd.UsageString())
		}
		fmt.Fprintf(p.Stderr, "Error: %v\n", err)
		return 1
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		_ = cmd.Help()
		return 0
	}
	if v, _ := cmd.Flags().GetBool("version"); v && cmd == root {
		fmt.Fprintf(p.Stdout, "app version %s\n", version)
		return 0
	}
	if !cmd.Runnable() {
		_ = cmd.Help()
		return 0
	}
	args := cmd.Flags().Args()
	if err := cmd.ValidateArgs(args); err != nil {
		fmt.Fprintf(p.Stderr, "Error: %v\n", err)
		return 1
	}
	r, ok := runs[cmd]
	if !ok {
		// cobra's own commands: help and completion.
		if cmd.RunE != nil {
			if err := cmd.RunE(cmd, args); err != nil {
				fmt.Fprintf(p.Stderr, "Error: %v\n", err)
				return 1
			}
		} else if cmd.Run != nil {
			cmd.Run(cmd, args)
		}
		return 0
	}
	return r.fn(ctx, a, args)
}

// runner is a subcommand's body; raw ones get argv untouched (the
// commands this emulation refuses).
type runner struct {
	fn  func(ctx context.Context, a *kit.App, args []string) int
	raw bool
}

// newRoot builds agnhost's command tree for one run: cobra keeps parsed
// flags in its commands, so runs share nothing.
func newRoot(p *program.Proc) (*cobra.Command, map[*cobra.Command]runner) {
	root := &cobra.Command{Use: "app", Version: version}
	root.SetOut(p.Stdout)
	root.SetErr(p.Stderr)
	root.SetGlobalNormalizationFunc(wordSep)
	addLogFlags(root.PersistentFlags())
	runs := map[*cobra.Command]runner{}
	for _, c := range commands() {
		cmd := &cobra.Command{Use: c.use, Short: c.short, Long: c.long, Args: c.args, Run: func(*cobra.Command, []string) {}}
		if c.setup == nil {
			cmd.DisableFlagParsing = true
			runs[cmd] = runner{fn: notEmulated(c.name()), raw: true}
		} else {
			runs[cmd] = runner{fn: c.setup(cmd.Flags())}
		}
		root.AddCommand(cmd)
	}
	return root, runs
}

// wordSep is component-base's WordSepNormalizeFunc: --fs_type and
// --fs-type are one flag.
func wordSep(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
}

// addLogFlags adds the logging flags cli.Run gives every agnhost command.
func addLogFlags(fs *pflag.FlagSet) {
	level := intValue{typ: "Level"}
	fs.VarP(&level, "v", "v", "number for the log level verbosity")
	vmodule := stringValue{typ: "moduleSpec"}
	fs.Var(&vmodule, "vmodule", "comma-separated list of pattern=N settings for file-filtered logging (only works for the default text log format)")
	fs.Duration("log-flush-frequency", 5e9, "Maximum number of seconds between log flushes")
}

// intValue and stringValue are flag values with klog's type names, so
// usage text names them as the real flags do.
type intValue struct {
	typ string
	v   string
}

func (v *intValue) String() string { return v.v }
func (v *intValue) Type() string   { return v.typ }
func (v *intValue) Set(s string) error {
	if _, err := strconv.ParseInt(s, 10, 32); err != nil {
		return err
	}
	v.v = s
	return nil
}

type stringValue struct {
	typ string
	v   string
}

func (v *stringValue) String() string     { return v.v }
func (v *stringValue) Type() string       { return v.typ }
func (v *stringValue) Set(s string) error { v.v = s; return nil }

// notEmulated is the body of the subcommands winkube does not model.
func notEmulated(name string) func(context.Context, *kit.App, []string) int {
	return func(_ context.Context, a *kit.App, _ []string) int {
		fmt.Fprintf(a.P.Stderr, "agnhost %s is not emulated by winkube\n", name)
		return 1
	}
}
