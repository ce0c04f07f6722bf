package up

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/supervise"
)

// runDetached is `up --detach`: it checks every input here, so that a
// usage error still exits 2 from the terminal's process, then runs the same
// `up` in the background, shows its output until it is ready, and returns.
func runDetached(ctx context.Context, streams cmd.IOStreams, fs *pflag.FlagSet, f *flags) error {
	opts, err := f.options(nil)
	if err != nil {
		return err
	}
	if err := cluster.Check(opts); err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	if info, err := cluster.Inspect(opts.DataDir, f.name); err == nil && info.Status == cluster.Running {
		return fmt.Errorf("cluster %s already runs in %s (PID %d); winkube status %s", info.Name, info.DataDir, info.PID, info.Name)
	}
	_, statErr := os.Stat(opts.DataDir)
	created := errors.Is(statErr, os.ErrNotExist)
	if err := os.MkdirAll(opts.DataDir, 0o755); err != nil {
		return fmt.Errorf("data dir %s is not writable (--data-dir): %w", opts.DataDir, err)
	}
	log := filepath.Join(opts.DataDir, datadir.LogFile)
	pid, err := supervise.Start(ctx, supervise.Options{Args: childArgs(fs), Log: log, Out: streams.Out})
	if err != nil {
		if created {
			_ = os.Remove(opts.DataDir) // only when the failed first start left it empty
		}
		var failed *supervise.FailedError
		if errors.As(err, &failed) && failed.Code == 2 {
			return &cmd.ExitError{Code: 2, Err: err}
		}
		return err
	}
	ref := f.name
	if !f.named {
		ref = "--data-dir " + opts.DataDir
	}
	fmt.Fprintf(streams.Out, "The cluster runs in the background (PID %d; its output goes to %s).\n", pid, log)
	fmt.Fprintf(streams.Out, "  winkube status %s · winkube stop %s (state is kept) · winkube down %s (deletes it)\n", ref, ref, ref)
	return nil
}

// childArgs are the arguments of the background `up`: every flag the user
// set, as given, except --detach, plus the ready pipe.
func childArgs(fs *pflag.FlagSet) []string {
	args := []string{"up"}
	fs.Visit(func(fl *pflag.Flag) {
		if fl.Name == "detach" || fl.Name == "ready-fd" {
			return
		}
		if list, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range list.GetSlice() {
				args = append(args, "--"+fl.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	return append(args, fmt.Sprintf("--ready-fd=%d", supervise.ReadyFD))
}
