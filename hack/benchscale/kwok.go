package main

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// kwokAnnotation marks the nodes kwok manages (its documented selector).
const kwokAnnotation = "kwok.x-k8s.io/node"

// kwokStageFiles are the stages kwokctl gives kwok when it runs it as a
// binary with node leases on (its default): fast node initialization, a
// lease heartbeat, and pods that become ready, complete and are deleted at
// once. Paths are relative to kwok's kustomize/stage directory.
var kwokStageFiles = []string{
	"node/fast/node-initialize.yaml",
	"node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
	"pod/fast/pod-ready.yaml",
	"pod/fast/pod-complete.yaml",
	"pod/fast/pod-delete.yaml",
}

// kwokConfig concatenates the stage files of kwok's module into one config
// file for kwok's --config.
func kwokConfig(stageDir string) ([]byte, error) {
	var out bytes.Buffer
	for _, f := range kwokStageFiles {
		data, err := os.ReadFile(filepath.Join(stageDir, f))
		if err != nil {
			return nil, fmt.Errorf("kwok stage file (-kwok-stages must be the kustomize/stage dir of the kwok module that hack/bench-scale.sh downloads): %w", err)
		}
		out.WriteString("---\n")
		out.Write(bytes.TrimSpace(data))
		out.WriteString("\n")
	}
	return out.Bytes(), nil
}

// kwokProcess is a running kwok.
type kwokProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// startKwok runs kwok against the cluster of kubeconfig, managing only the
// nodes annotated kwok.x-k8s.io/node=fake, with leases of 40 s and logging
// at INFO as kwokctl runs it. It serves nothing (no --server-address), so it
// opens no port.
func startKwok(o *options, dir, kubeconfig string) (*kwokProcess, error) {
	cfg, err := kwokConfig(o.kwokStages)
	if err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, "kwok.yaml")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "kwok.log"))
	if err != nil {
		return nil, err
	}
	args := []string{
		"--kubeconfig", kubeconfig,
		"--config", cfgPath,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector", kwokAnnotation + "=fake",
		"--node-lease-duration-seconds", "40",
	}
	cmd := exec.Command(o.kwok, append(args, o.kwokArgs...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := startOwned(cmd); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", o.kwok, err)
	}
	writePID(o.work, cmd.Process.Pid)
	k := &kwokProcess{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(k.exited)
	}()
	return k, nil
}

func (k *kwokProcess) stop() { stopProcess(k.cmd, k.exited, 20*time.Second) }

// kwokNodes are Node objects for kwok like the emulated nodes of the pools:
// the same OS, build and arch labels, the Windows taint, and the capacity
// of winkube's default pool (4 CPUs, 8 GiB, 110 pods).
func kwokNodes(ps []pool) []*corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	ip := netip.MustParseAddr("10.128.0.10") // in managementCIDR, at .10 where winkube starts its node addresses
	var out []*corev1.Node
	for _, p := range ps {
		for i := 1; i <= p.count; i++ {
			name := fmt.Sprintf("kwok-%s-%d", p.name, i)
			n := &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{
					Name: name,
					Labels: map[string]string{
						"kubernetes.io/os":       p.os,
						"kubernetes.io/arch":     "amd64",
						"kubernetes.io/hostname": name,
						"type":                   "kwok",
					},
					Annotations: map[string]string{kwokAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"},
				},
				Status: corev1.NodeStatus{
					Capacity:    capacity.DeepCopy(),
					Allocatable: capacity.DeepCopy(),
					Addresses:   []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip.String()}},
				},
			}
			ip = ip.Next()
			if p.os == "windows" {
				n.Labels["node.kubernetes.io/windows-build"] = p.build
				n.Spec.Taints = []corev1.Taint{{Key: windowsToleration.Key, Value: windowsToleration.Value, Effect: corev1.TaintEffectNoSchedule}}
			}
			out = append(out, n)
		}
	}
	return out
}

// createNodes creates the nodes with a few workers (the client's rate
// limit, the same as winkube's node agent, bounds the rate).
func createNodes(ctx context.Context, client kubernetes.Interface, nodes []*corev1.Node) error {
	work := make(chan *corev1.Node)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for n := range work {
				if _, err := client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
					select {
					case errs <- fmt.Errorf("creating node %s: %w", n.Name, err):
					default:
					}
				}
			}
		})
	}
	for _, n := range nodes {
		select {
		case work <- n:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return context.Cause(ctx)
	}
}
