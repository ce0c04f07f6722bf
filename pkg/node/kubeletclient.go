package node

import (
	"cmp"
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/winkube/winkube/pkg/windows/kubelet"
)

// kubeletClients are the agent's API clients as its nodes' kubelets, one
// per User-Agent (KLT-12). The API server names a write's field manager
// after the client's User-Agent, which client-go takes from the binary a
// process runs: with the agent's own client every node and pod status would
// be managed by "winkube", where a cluster shows kubelet and kubelet.exe.
// They share the agent's rate limiter, so its limits hold across all of
// them, and its connections (client-go caches a transport by its TLS
// settings, of which the User-Agent is not one).
type kubeletClients struct {
	cfg     *rest.Config
	byAgent map[string]kubernetes.Interface
}

// newKubeletClients shares cfg's rate limiter among the clients made from
// it, making one from its QPS and burst as client-go would when it has none
// (a negative QPS means no limit).
func newKubeletClients(cfg *rest.Config) *kubeletClients {
	cfg = rest.CopyConfig(cfg)
	if cfg.RateLimiter == nil && cfg.QPS >= 0 {
		qps, burst := cmp.Or(cfg.QPS, rest.DefaultQPS), cmp.Or(cfg.Burst, rest.DefaultBurst)
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(qps, burst)
	}
	return &kubeletClients{cfg: cfg, byAgent: map[string]kubernetes.Interface{}}
}

// agentConfig is the config of the agent's own client, on the shared limiter.
func (k *kubeletClients) agentConfig() *rest.Config { return rest.CopyConfig(k.cfg) }

// forNode is the client of the kubelet on a node of spec; the nodes are
// made one after another, so it needs no lock.
func (k *kubeletClients) forNode(spec *nodeSpec) (kubernetes.Interface, error) {
	info := spec.host.NodeInfo(spec.kubelet)
	// The module zip of the Kubernetes release carries no commit, so the
	// kubelets report none, as the control plane's components do.
	ua := kubelet.UserAgent(info.OperatingSystem, info.Architecture, spec.kubelet, "")
	if c, ok := k.byAgent[ua]; ok {
		return c, nil
	}
	cfg := rest.CopyConfig(k.cfg)
	cfg.UserAgent = ua
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create the API client of %s's kubelet: %w", spec.name, err)
	}
	k.byAgent[ua] = c
	return c, nil
}
