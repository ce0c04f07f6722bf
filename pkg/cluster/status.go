package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/winkube/winkube/pkg/datadir"
)

// Status values of Info.
const (
	Running = "running"
	Stopped = "stopped"
)

// Info is what `winkube list` and `winkube status` say of a cluster.
type Info struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// PID is the `winkube up` that runs the cluster (0 when stopped).
	PID        int    `json:"pid,omitempty"`
	Nodes      int    `json:"nodes"`
	APIServer  string `json:"apiServer,omitempty"`
	DataDir    string `json:"dataDir"`
	Kubeconfig string `json:"kubeconfig"`
	// Log is the output of a cluster started with `up --detach`.
	Log string `json:"log,omitempty"`
}

// NotFoundError says that no cluster lives where a command looked.
type NotFoundError struct {
	Dir  string
	Name string // set when the cluster was asked for by name
}

func (e *NotFoundError) Error() string {
	if e.Name != "" {
		return fmt.Sprintf("no cluster named %s (winkube list shows the clusters)", e.Name)
	}
	return fmt.Sprintf("no cluster in %s (winkube list shows the clusters; winkube up starts one)", e.Dir)
}

// Find describes the cluster NAME, or the one in dataDir (as
// datadir.Target picks it). A bad name, or a name with a data dir, is an
// *InputError; no cluster there, a *NotFoundError.
func Find(name, dataDir string) (Info, error) {
	dir, err := datadir.Target(name, dataDir)
	if err != nil {
		return Info{}, &InputError{Err: err}
	}
	if name == "" {
		name = datadir.DefaultName
	}
	info, err := Inspect(dir, name)
	var nf *NotFoundError
	if errors.As(err, &nf) && dataDir == "" {
		nf.Name = name
	}
	return info, err
}

// Inspect describes the cluster in dir; name is what to call it when the
// data dir records no name.
func Inspect(dir, name string) (Info, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || !isDataDir(real) {
		return Info{}, &NotFoundError{Dir: dir}
	}
	info := Info{Name: name, Status: Stopped, DataDir: real, Kubeconfig: datadir.Kubeconfig(real)}
	if recorded := datadir.ReadName(real); recorded != "" {
		info.Name = recorded
	}
	if saved := readSaved(real); saved != nil {
		info.Nodes = saved.NodeCount()
	}
	if _, err := os.Stat(filepath.Join(real, datadir.LogFile)); err == nil {
		info.Log = filepath.Join(real, datadir.LogFile)
	}
	held, err := lockHeld(filepath.Join(real, lockFile))
	if err != nil {
		return Info{}, err
	}
	if held {
		info.Status = Running
		info.PID = lockPID(real)
		info.APIServer = apiServer(info.Kubeconfig)
	}
	return info, nil
}

// Stop stops the `winkube up` running the cluster in dir (SIGTERM, then
// waits for it to let go of the data dir) and keeps the state. A stopped
// cluster is left as it is.
func Stop(ctx context.Context, dir string, out io.Writer) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || !isDataDir(real) {
		return &NotFoundError{Dir: dir}
	}
	held, err := lockHeld(filepath.Join(real, lockFile))
	if err != nil {
		return err
	}
	if !held {
		fmt.Fprintf(out, "The cluster in %s is not running.\n", real)
		return nil
	}
	if err := stopOwner(ctx, real, out); err != nil {
		return err
	}
	fmt.Fprintf(out, "Stopped. State kept in %s (winkube up starts it again; winkube down deletes it).\n", real)
	return nil
}

func isDataDir(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, lockFile))
	return err == nil && info.Mode().IsRegular()
}

// lockPID is the PID the lock holder wrote, or 0.
func lockPID(dir string) int {
	data, err := os.ReadFile(filepath.Join(dir, lockFile))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	return pid
}

// apiServer is the server URL of the admin kubeconfig, or "".
func apiServer(path string) string {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return ""
	}
	if ctx, ok := cfg.Contexts[cfg.CurrentContext]; ok {
		if c := cfg.Clusters[ctx.Cluster]; c != nil {
			return c.Server
		}
	}
	return ""
}

// IsNotFound reports whether err is a *NotFoundError.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}
