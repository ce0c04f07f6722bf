package cluster

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/addons"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/dnsserver"
	"github.com/winkube/winkube/pkg/loadbalancer"
	"github.com/winkube/winkube/pkg/loadbalancer/hostport"
	"github.com/winkube/winkube/pkg/metrics"
	"github.com/winkube/winkube/pkg/storage"
)

// dnsAddressFile holds the cluster DNS server's address, 127.0.0.1:PORT.
const dnsAddressFile = "dns-address"

// service is one in-process part of the cluster beside the control plane
// and the nodes: the DNS server, the load balancer pool, the provisioner.
type service struct {
	name  string
	close func()
}

// startServices starts what a real cluster's add-ons and cloud provide:
// cluster DNS on 127.0.0.1, LoadBalancer addresses from the config's pool
// (served on this machine's loopback when the pool is there), and a
// default StorageClass with its provisioner.
func (c *Cluster) startServices(ctx context.Context, client kubernetes.Interface) error {
	step := time.Now()
	if err := c.startDNS(ctx, client); err != nil {
		return err
	}
	pool, err := c.Config.Network.LoadBalancerPool()
	if err != nil {
		return err
	}
	lb, err := loadbalancer.Start(ctx, client, pool)
	if err != nil {
		return fmt.Errorf("starting the load balancer pool %s: %w", pool, err)
	}
	c.services = append(c.services, service{"load balancers", lb.Close})
	if err := c.serveLoadBalancers(ctx, client, pool); err != nil {
		return err
	}
	if err := storage.EnsureStorageClass(ctx, client); err != nil {
		return err
	}
	prov, err := storage.Start(ctx, client, storage.Options{})
	if err != nil {
		return fmt.Errorf("starting the volume provisioner: %w", err)
	}
	c.services = append(c.services, service{"volume provisioner", prov.Close})
	m, err := metrics.Start(ctx, c.cp.RESTConfig())
	if err != nil {
		return fmt.Errorf("starting the metrics API: %w", err)
	}
	c.metricsAPI.Store(m)
	c.services = append(c.services, service{"metrics API", func() { c.metricsAPI.Store(nil); m.Close() }})
	c.done("DNS, LB pool, storage, metrics API", time.Since(step))
	return nil
}

// serveLoadBalancers makes the LoadBalancer addresses of a loopback pool
// reachable from this machine, as cloud-provider-kind does for kind; the
// addresses of any other pool are only assigned (binding them would put
// the cluster on the host's network).
func (c *Cluster) serveLoadBalancers(ctx context.Context, client kubernetes.Interface, pool netip.Prefix) error {
	if !hostport.Servable(pool) {
		c.say("Note: LoadBalancer EXTERNAL-IPs from network.loadBalancerCIDR %s are not reachable from this machine; use a range inside 127.0.0.0/8, such as the default %s, to reach them", pool, v1alpha1.DefaultLoadBalancerCIDR)
		return nil
	}
	fwd, err := hostport.Start(ctx, client, hostport.Options{
		Pool: pool,
		Dial: c.dialFromOutside,
		Warn: func(line string) { c.say("  warning: %s", line) },
	})
	if err != nil {
		return fmt.Errorf("serving LoadBalancer addresses on this machine: %w", err)
	}
	c.services = append(c.services, service{"LoadBalancer addresses", fwd.Stop})
	return nil
}

// dialFromOutside takes a connection made to a LoadBalancer address on this
// machine into the cluster through the nodes' network model. Without
// nodes (not started yet, stopped, or none configured) nothing answers.
func (c *Cluster) dialFromOutside(ctx context.Context, addr string) (net.Conn, error) {
	agent := c.kubelets.Load()
	if agent == nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	}
	return agent.DialFromOutside(ctx, addr)
}

// startDNS serves the cluster's names on 127.0.0.1, on the port of the
// last run when it is free, so a resumed cluster keeps its DNS address.
func (c *Cluster) startDNS(ctx context.Context, client kubernetes.Interface) error {
	file := filepath.Join(c.DataDir, dnsAddressFile)
	addr := dnsserver.DefaultAddr
	if prev, err := os.ReadFile(file); err == nil && portFree(strings.TrimSpace(string(prev))) {
		addr = strings.TrimSpace(string(prev))
	}
	srv, err := dnsserver.Start(ctx, client, dnsserver.Options{Addr: addr})
	if err != nil {
		return fmt.Errorf("starting the cluster DNS server: %w", err)
	}
	c.services = append(c.services, service{"DNS server", func() { _ = srv.Close() }})
	c.dnsAddr = srv.Addr()
	if err := os.WriteFile(file, []byte(srv.Addr()+"\n"), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}

// portFree reports whether addr (127.0.0.1:PORT) can be bound for UDP and TCP.
func portFree(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		return false
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	_ = l.Close()
	p, err := net.ListenPacket("udp", addr)
	if err != nil {
		return false
	}
	_ = p.Close()
	return true
}

// stopServices closes the services in reverse order.
func (c *Cluster) stopServices() {
	for i := len(c.services) - 1; i >= 0; i-- {
		c.services[i].close()
	}
	c.services = nil
}

// DNSAddress is the cluster DNS server's address, 127.0.0.1:PORT.
func (c *Cluster) DNSAddress() string { return c.dnsAddr }

func dnsHost(addr string) string {
	h, _, _ := net.SplitHostPort(addr)
	return h
}

func dnsPort(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// installAddons creates the kube-system add-ons a cluster joined by the
// seed guide has (flannel, the Windows kube-proxy, CoreDNS and kube-dns);
// the nodes then run their pods.
func (c *Cluster) installAddons(ctx context.Context) error {
	step := time.Now()
	// Without client-go's 5 requests/s: the add-ons are some twenty
	// objects written by the admin, once.
	cfg := c.cp.RESTConfig()
	cfg.QPS, cfg.Burst = -1, 0
	if err := addons.Apply(ctx, cfg, c.Config); err != nil {
		return fmt.Errorf("installing the kube-system add-ons: %w", err)
	}
	c.done("kube-system add-ons", time.Since(step))
	return nil
}
