package nodes

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// The control plane a test starts runs its components as children of this
// test binary.
func TestMain(m *testing.M) {
	controlplane.MaybeRunComponent()
	// Run in a pod (a CI runner on Kubernetes), the command would take the
	// in-cluster config where the tests expect the kubeconfig they give.
	os.Unsetenv("KUBERNETES_SERVICE_HOST")
	os.Exit(m.Run())
}

// Shard flags that cannot work are usage errors naming the flag, before
// the cluster is contacted.
func TestShardFlagUsageErrors(t *testing.T) {
	kubeconfig, _ := unreachableKubeconfig(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shards", "0"}, "--shards 0: must be at least 1"},
		{[]string{"--shards", "2", "--renew-deadline", "15s"}, "--renew-deadline 15s: must be positive and shorter than --lease-duration 15s"},
		{[]string{"--shards", "2", "--lease-duration", "4s", "--renew-deadline", "3s", "--retry-period", "3s"}, "--retry-period 3s"},
		{[]string{"--shards", "2", "--identity", "Not_A_Name"}, `--identity "Not_A_Name"`},
		{[]string{"--shards", "2", "--shard-namespace", "a/b"}, `--shard-namespace "a/b"`},
		{[]string{"--identity", "a"}, "--identity needs --shards"},
	} {
		_, err := runNodes(append([]string{"--kubeconfig", kubeconfig}, tc.args...)...)
		var exit *cmd.ExitError
		if !errors.As(err, &exit) || exit.Code != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want exit 2 with %q", tc.args, err, tc.want)
		}
	}
}

const fourNodes = `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
- {name: linux, os: linux, count: 2}
- {name: win2022, os: windows, release: "2022", count: 2}
`

// nodesReplica runs `winkube nodes` until stop.
type nodesReplica struct {
	out    syncbuf.Buffer
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	err    error
}

func startNodes(args ...string) *nodesReplica {
	ctx, cancel := context.WithCancel(context.Background())
	r := &nodesReplica{cancel: cancel, done: make(chan error, 1)}
	c := NewCommand(cmd.IOStreams{Out: &r.out, ErrOut: &r.out})
	c.SetArgs(args)
	go func() { r.done <- c.ExecuteContext(ctx) }()
	return r
}

func (r *nodesReplica) stop() error {
	r.once.Do(func() {
		r.cancel()
		r.err = <-r.done
	})
	return r.err
}

// Two replicas of `winkube nodes --shards 4` split four nodes 2/2 on the
// kubelet ports the nodes have in one replica; when one stops, the other
// runs all four, and every node stays Ready.
func TestShardsTwoReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	cp, cleanup, err := cptest.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	dir := t.TempDir()
	config := filepath.Join(dir, "pools.yaml")
	kubeconfig := cp.KubeconfigPath()
	base := freePorts(t, 4)
	if err := os.WriteFile(config, []byte(fourNodes), 0o600); err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	args := func(id string) []string {
		return []string{"--kubeconfig", kubeconfig, "--config", config, "--kubelet-address", "127.0.0.1", "--kubelet-port", strconv.Itoa(base),
			"--shards", "4", "--identity", id, "--shard-namespace", "default",
			"--lease-duration", "2s", "--renew-deadline", "1s", "--retry-period", "200ms"}
	}
	a := startNodes(args("a")...)
	defer func() { _ = a.stop() }()
	waitOutput(t, &a.out, 4, 60*time.Second)
	b := startNodes(args("b")...)
	waitOutput(t, &b.out, 2, 20*time.Second)
	if err := b.stop(); err != nil {
		t.Errorf("replica b: %v\n%s", err, b.out.String())
	}
	waitOutput(t, &a.out, 6, 20*time.Second) // a takes b's two shards back
	waitNodesReady(t, client, 4, 20*time.Second)
	checkPorts(t, client, base)
	if err := a.stop(); err != nil {
		t.Errorf("replica a: %v", err)
	}
	t.Logf("replica a:\n%s\nreplica b:\n%s", a.out.String(), b.out.String())
}

// waitOutput waits for n "nodes Ready" lines from a replica's shards.
func waitOutput(t *testing.T, out *syncbuf.Buffer, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for strings.Count(out.String(), "nodes Ready in") < n {
		if time.Now().After(deadline) {
			t.Fatalf("not %d shards Ready within %s:\n%s", n, within, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func waitNodesReady(t *testing.T, client kubernetes.Interface, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		nodes, err := client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		ready := 0
		if err == nil {
			for _, node := range nodes.Items {
				for _, c := range node.Status.Conditions {
					if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
						ready++
					}
				}
			}
		}
		if ready == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d nodes Ready after %s (%v)", ready, n, within, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// freePorts finds n consecutive free ports on 127.0.0.1 and returns the first.
func freePorts(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 20; try++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if base+n > 65535 {
			continue
		}
		free := true
		for p := base; p < base+n && free; p++ {
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err != nil {
				free = false
			} else {
				l.Close()
			}
		}
		if free {
			return base
		}
	}
	t.Fatal("no run of free ports")
	return 0
}

// checkPorts asserts that each node's kubelet port is the base plus its
// position in name order, whichever replica ran it.
func checkPorts(t *testing.T, client kubernetes.Interface, base int) {
	t.Helper()
	nodes, err := client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(nodes.Items, func(i, j int) bool { return nodes.Items[i].Name < nodes.Items[j].Name })
	for i, n := range nodes.Items {
		if got := int(n.Status.DaemonEndpoints.KubeletEndpoint.Port); got != base+i {
			t.Errorf("node %s: kubelet port %d, want %d", n.Name, got, base+i)
		}
	}
}
