package node

import (
	"testing"

	"k8s.io/client-go/rest"
)

// Nodes with the same kubelet share its client, each OS's kubelet has its
// own, and all of them draw on one rate limiter: the agent's limits hold
// whatever the mix of nodes.
//
// rule: KLT-12
func TestKubeletClientsOnePerUserAgent(t *testing.T) {
	k := newKubeletClients(&rest.Config{Host: "https://127.0.0.1:6443", QPS: 50, Burst: 100})
	clients := map[string]any{}
	for _, name := range []string{"win2019-1", "win2019-2", "win2022-1", "linux-1"} {
		c, err := k.forNode(specOf(t, name))
		if err != nil {
			t.Fatal(err)
		}
		clients[name] = c
	}
	if clients["win2019-1"] != clients["win2019-2"] || clients["win2019-1"] != clients["win2022-1"] {
		t.Error("the Windows nodes' kubelets, one binary and version, have different clients")
	}
	if clients["win2019-1"] == clients["linux-1"] {
		t.Error("the Windows and Linux kubelets share a client")
	}
	if len(k.byAgent) != 2 {
		t.Errorf("%d clients, want 2: %v", len(k.byAgent), k.byAgent)
	}
	if k.cfg.RateLimiter == nil || k.agentConfig().RateLimiter != k.cfg.RateLimiter {
		t.Error("the agent's config does not carry the shared rate limiter")
	}
}
