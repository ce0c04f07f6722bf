package controlplane

import (
	"net"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// Component names; they are also the "component" subcommand's argument, the
// Progress steps, the PIDs keys and the log file names.
const (
	apiserverName         = "kube-apiserver"
	schedulerName         = "kube-scheduler"
	controllerManagerName = "kube-controller-manager"
)

// component describes one upstream component run as a child process.
type component struct {
	name string
	// command builds the upstream cobra command. Only once per process: the
	// constructors install signal handlers and register global flags and
	// feature gates, which is why each component runs in a child of its own.
	command func() *cobra.Command
	args    func(l *layout) []string
	// health is polled on https://127.0.0.1:<port> until it answers 200.
	health string
	// grace is how long the component gets between SIGTERM and SIGKILL.
	grace time.Duration
}

// components in start order; Close stops them in reverse. The apiserver must
// be ready before the others start: kube-controller-manager gives up if the
// apiserver is not healthy within 10 s of its start.
var components = []component{
	{name: apiserverName, command: apiserver.NewAPIServerCommand, args: apiserverArgs, health: "/readyz", grace: 5 * time.Second},
	{name: schedulerName, command: newSchedulerCommand, args: schedulerArgs, health: "/healthz", grace: 2 * time.Second},
	{name: controllerManagerName, command: controllermanager.NewControllerManagerCommand, args: controllerManagerArgs, health: "/healthz", grace: 2 * time.Second},
}

// newSchedulerCommand drops the out-of-tree plugin registry parameter.
func newSchedulerCommand() *cobra.Command { return scheduler.NewSchedulerCommand() }

func apiserverArgs(l *layout) []string {
	args := []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(l.ports[apiserverName]),
		"--advertise-address=" + advertiseAddress(),
		"--etcd-servers=" + l.httpsURL(etcdClient),
		"--etcd-cafile=" + l.pki("ca.crt"),
		"--etcd-certfile=" + l.pki("kube-apiserver-etcd-client.crt"),
		"--etcd-keyfile=" + l.pki("kube-apiserver-etcd-client.key"),
		"--client-ca-file=" + l.pki("ca.crt"),
		"--tls-cert-file=" + l.pki("kube-apiserver-serving.crt"),
		"--tls-private-key-file=" + l.pki("kube-apiserver-serving.key"),
		"--kubelet-client-certificate=" + l.pki("kube-apiserver-kubelet-client.crt"),
		"--kubelet-client-key=" + l.pki("kube-apiserver-kubelet-client.key"),
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--allow-privileged=true",
		"--service-cluster-ip-range=" + l.opts.ServiceCIDR,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + l.pki("sa.pub"),
		"--service-account-signing-key-file=" + l.pki("sa.key"),
		// Aggregated APIs (metrics-server and the like) authenticate the
		// apiserver's proxied requests with this front-proxy client certificate.
		"--proxy-client-cert-file=" + l.pki("front-proxy-client.crt"),
		"--proxy-client-key-file=" + l.pki("front-proxy-client.key"),
		"--requestheader-client-ca-file=" + l.pki("front-proxy-ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		// The default /var/run/kubernetes may not be writable; nothing is
		// written there while certificates are given, but keep it in the data dir.
		"--cert-dir=" + l.path("pki"),
	}
	if l.opts.NodeDialer != nil {
		args = append(args, "--egress-selector-config-file="+l.egressConfigFile(),
			// The node proxy subresource (GET /api/v1/nodes/N/proxy/...)
			// resolves the kubelet's host in the apiserver's own resolver
			// before it dials through the egress proxy; an emulated node's
			// name resolves nowhere, its InternalIP is a literal.
			"--kubelet-preferred-address-types=InternalIP,Hostname,InternalDNS,ExternalDNS,ExternalIP")
	}
	return args
}

func schedulerArgs(l *layout) []string {
	return append(secureServingArgs(l, schedulerName), "--kubeconfig="+l.kubeconfig(schedulerName))
}

func controllerManagerArgs(l *layout) []string {
	return append(secureServingArgs(l, controllerManagerName),
		"--kubeconfig="+l.kubeconfig(controllerManagerName),
		"--cluster-name="+clusterName,
		"--allocate-node-cidrs=true",
		"--cluster-cidr="+l.opts.ClusterCIDR,
		"--node-cidr-mask-size="+strconv.Itoa(l.opts.NodeCIDRMaskSize),
		"--service-cluster-ip-range="+l.opts.ServiceCIDR,
		// Each controller acts under its own service account, so RBAC denials
		// name the controller rather than kube-controller-manager.
		"--use-service-account-credentials=true",
		"--root-ca-file="+l.pki("ca.crt"),
		"--service-account-private-key-file="+l.pki("sa.key"),
		"--cluster-signing-cert-file="+l.pki("ca.crt"),
		"--cluster-signing-key-file="+l.pki("ca.key"),
		"--requestheader-client-ca-file="+l.pki("front-proxy-ca.crt"),
		// No --cloud-provider: empty means none, which disables every cloud
		// controller (routes, cloud node lifecycle, service load balancers).
	)
}

// secureServingArgs are shared by kube-scheduler and kube-controller-manager:
// loopback-only serving with a certificate from the cluster CA, delegated
// authentication/authorization through their own identity, and no leader
// election (a single instance; a lease left by a killed predecessor would
// otherwise stall a restart for its full duration).
func secureServingArgs(l *layout, name string) []string {
	kubeconfig := l.kubeconfig(name)
	return []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(l.ports[name]),
		"--tls-cert-file=" + l.pki(name+"-serving.crt"),
		"--tls-private-key-file=" + l.pki(name+"-serving.key"),
		"--client-ca-file=" + l.pki("ca.crt"),
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--leader-elect=false",
	}
}

// advertiseAddress is the IP the apiserver publishes in the "kubernetes"
// service's endpoints. It only labels, never binds (the apiserver listens on
// 127.0.0.1), but it cannot be loopback: Endpoints validation rejects
// 127.0.0.0/8 and the apiserver would log the failure forever. So take the
// host's first global unicast IPv4, falling back to a documentation address.
func advertiseAddress() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
			return n.IP.String()
		}
	}
	return "192.0.2.1" // TEST-NET-1 (RFC 5737): valid, and routes nowhere
}
