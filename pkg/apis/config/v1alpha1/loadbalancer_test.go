package v1alpha1

import (
	"strings"
	"testing"
)

// The default pool must be valid next to the seeds' default networks.
// rule: PLAN-1
func TestDefaultLoadBalancerCIDR(t *testing.T) {
	c := DefaultCluster()
	if c.Network.LoadBalancerCIDR != "127.127.131.0/24" {
		t.Errorf("loadBalancerCIDR = %q, want 127.127.131.0/24", c.Network.LoadBalancerCIDR)
	}
	pool, err := c.Network.LoadBalancerPool()
	// up serves the default pool on the host's loopback.
	if err != nil || pool.String() != "127.127.131.0/24" || !pool.Addr().IsLoopback() {
		t.Errorf("LoadBalancerPool() = %v, %v", pool, err)
	}
	// A value the user wrote is kept.
	c = &Cluster{Network: Network{LoadBalancerCIDR: "172.30.0.0/24"}}
	SetDefaults(c)
	if c.Network.LoadBalancerCIDR != "172.30.0.0/24" {
		t.Errorf("defaulting replaced loadBalancerCIDR: %q", c.Network.LoadBalancerCIDR)
	}
}

// The pool is validated like the other networks and must not overlap them.
// rule: PLAN-1
func TestValidateLoadBalancerCIDR(t *testing.T) {
	cases := []struct {
		value string
		want  string // "" = valid
	}{
		{"172.30.0.0/24", ""},
		{"172.30.0.0/30", ""},
		{"10.244.200.0/24", `network.loadBalancerCIDR: Invalid value: "10.244.200.0/24": overlaps network.clusterCIDR 10.244.0.0/16`},
		{"10.96.0.0/24", `network.loadBalancerCIDR: Invalid value: "10.96.0.0/24": overlaps network.serviceCIDR 10.96.0.0/12`},
		{"10.127.130.128/25", `network.loadBalancerCIDR: Invalid value: "10.127.130.128/25": overlaps network.managementCIDR 10.127.130.0/24`},
		{"10.127.0.0/16", `network.loadBalancerCIDR: Invalid value: "10.127.0.0/16": overlaps network.managementCIDR 10.127.130.0/24`},
		{"10.127.131.7/24", `network.loadBalancerCIDR: Invalid value: "10.127.131.7/24": host bits must be zero; did you mean 10.127.131.0/24?`},
		{"10.127.131.0", `network.loadBalancerCIDR: Invalid value: "10.127.131.0": must be a CIDR`},
		{"fd00:1::/64", `network.loadBalancerCIDR: Invalid value: "fd00:1::/64": only IPv4 is supported`},
		{"172.30.0.4/31", `network.loadBalancerCIDR: Invalid value: "172.30.0.4/31": too small`},
		// The old default, a non-loopback pool: valid, assigned but not served.
		{"10.127.131.0/24", ""},
		{"127.127.131.0/24", ""},
		{"127.0.0.0/24", `network.loadBalancerCIDR: Invalid value: "127.0.0.0/24": must not contain 127.0.0.1`},
		{"127.0.0.0/8", `network.loadBalancerCIDR: Invalid value: "127.0.0.0/8": must not contain 127.0.0.1`},
	}
	for _, tc := range cases {
		t.Run(tc.value, func(t *testing.T) {
			c := &Cluster{Network: Network{LoadBalancerCIDR: tc.value}}
			SetDefaults(c)
			errs := Validate(c)
			if tc.want == "" {
				if len(errs) > 0 {
					t.Fatalf("valid pool rejected: %v", errs)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Fatalf("errors = %v, want one containing %q", errs, tc.want)
			}
		})
	}
}

// rule: PLAN-1
// A file whose management network sits where the default pool would be
// keeps validating: the default pool moves to the next free /24.
func TestDefaultLoadBalancerPoolAvoidsTheFilesNetworks(t *testing.T) {
	c := &Cluster{Network: Network{ManagementCIDR: "127.127.131.0/24"}}
	SetDefaults(c)
	if c.Network.LoadBalancerCIDR != "127.127.132.0/24" {
		t.Errorf("loadBalancerCIDR = %s, want 127.127.132.0/24", c.Network.LoadBalancerCIDR)
	}
	if err := Validate(c); err != nil {
		t.Errorf("validate: %v", err)
	}
}
