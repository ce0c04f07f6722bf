// Package cptest starts a real control plane for a test package, typically
// one per package from TestMain:
//
//	func TestMain(m *testing.M) {
//		controlplane.MaybeRunComponent() // the children are this test binary
//		cp, cleanup, err := cptest.Start("")
//		if err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//		shared = cp
//		code := m.Run()
//		cleanup()
//		os.Exit(code)
//	}
package cptest

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/winkube/winkube/pkg/controlplane"
)

// ReadyTimeout bounds Start's wait for Ready. A cold start takes seconds,
// but a test machine may be busy linking other test binaries.
const ReadyTimeout = 3 * time.Minute

// KeepEnv, when set in the environment, keeps a temporary data dir after
// cleanup so its logs (<dir>/logs) can be read.
const KeepEnv = "WINKUBE_CPTEST_KEEP"

// Start starts a control plane on dataDir (a new temporary directory if
// empty) with a free apiserver port and waits until it is Ready. cleanup
// stops it and removes a temporary directory Start created; on error nothing
// is left running, and a temporary directory is kept for its logs.
func Start(dataDir string) (*controlplane.ControlPlane, func(), error) {
	return StartOptions(controlplane.Options{DataDir: dataDir})
}

// StartOptions is Start with every option open; APIServerPort 0 still picks
// a free port.
func StartOptions(o controlplane.Options) (*controlplane.ControlPlane, func(), error) {
	temporary := o.DataDir == ""
	if temporary {
		dir, err := os.MkdirTemp("", "winkube-cptest-")
		if err != nil {
			return nil, nil, fmt.Errorf("create control plane data dir: %w", err)
		}
		o.DataDir = dir
	}
	// The deadline covers Start too (it waits for the apiserver), but must not
	// outlive Ready: the control plane lives as long as ctx.
	ctx, cancel := context.WithCancel(context.Background())
	deadline := time.AfterFunc(ReadyTimeout, cancel)
	cp, err := controlplane.Start(ctx, o)
	if err != nil {
		if !deadline.Stop() {
			err = fmt.Errorf("not ready within %s: %w", ReadyTimeout, err)
		}
		cancel()
		return nil, nil, fmt.Errorf("start control plane in %s: %w", o.DataDir, err)
	}
	select {
	case <-cp.Ready():
	case err = <-cp.Err():
	case <-ctx.Done():
	}
	if !deadline.Stop() && err == nil { // fired: ctx is cancelled, whatever won the select
		err = fmt.Errorf("not ready within %s", ReadyTimeout)
	}
	if err != nil {
		cancel()
		cp.Close()
		return nil, nil, fmt.Errorf("control plane in %s: %w", o.DataDir, err)
	}
	cleanup := func() {
		cp.Close()
		cancel()
		if temporary && os.Getenv(KeepEnv) == "" {
			os.RemoveAll(o.DataDir)
		} else if temporary {
			fmt.Fprintf(os.Stderr, "cptest: kept control plane data dir %s (%s is set)\n", o.DataDir, KeepEnv)
		}
	}
	return cp, cleanup, nil
}
