package plan

import (
	"fmt"
	"strings"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// nodeFiles are the files of windows/<node>/.
func (p *Plan) nodeFiles(n Node) []File {
	dir := "windows/" + n.Name + "/"
	files := []File{
		{Path: dir + "README.md", Content: p.nodeReadme(n)},
		{Path: dir + "kubelet-flags.txt", Content: p.kubeletFlagsFile(n)},
		{Path: dir + "kube-proxy-flags.txt", Content: p.kubeProxyFlagsFile(n)},
		{Path: dir + "register-services.ps1", Content: p.scScript(n)},
		{Path: dir + "register-services-nssm.ps1", Content: p.nssmScript(n)},
		{Path: dir + "start-seed.ps1", Content: p.startScript(n)},
		{Path: dir + "kubeadm-join.ps1", Content: p.kubeadmScript(n)},
	}
	if p.Cluster.Proxy != nil {
		files = append(files, File{Path: dir + "proxy.ps1", Content: p.proxyScript()})
	}
	return files
}

func (p *Plan) kubeletFlagsFile(n Node) string {
	head := header("#", "PLAN-4, KP-8, SCH-3, IMG-5, PLAN-1",
		fmt.Sprintf("kubelet flags for %s (Kubernetes %s), one per line.", n.Name, p.KubernetesVersion),
		"--hostname-override is the node name kube-proxy also uses (KP-8); --register-with-taints is the",
		"pool's taints (SCH-3); --system-reserved keeps memory for Windows (PLAN-4); --cluster-dns is PLAN-1's DNS service IP.")
	if p.Minor >= podInfraFlagRemoved {
		head += fmt.Sprintf("# IMG-5: Kubernetes 1.%d has no --pod-infra-container-image; set the runtime's sandbox image to %s\n", p.Minor, n.PauseImage)
	}
	return head + flagLines(p.kubeletFlags(n, []flag{{"kubeconfig", seedKubeconfig}}))
}

func (p *Plan) kubeProxyFlagsFile(n Node) string {
	head := header("#", "PLAN-4, KP-1, KP-2, KP-8",
		fmt.Sprintf("kube-proxy flags for %s, one per line: kernelspace mode, --hostname-override = node name (KP-8).", n.Name))
	if p.Mode == v1alpha1.ModeOverlay {
		head += "# KP-1, KP-2: overlay names the HNS network and needs the source VIP; $SourceVip is the node subnet's .2\n" +
			"# address (register-services.ps1 reads it from C:\\run\\flannel\\subnet.env).\n"
	}
	for _, e := range p.kubeProxyEnv() {
		head += "# KP-1: kube-proxy finds the HNS network through the environment variable " + e + "\n"
	}
	return head + flagLines(p.kubeProxyFlags(n))
}

func flagLines(fs []flag) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.text() + "\n")
	}
	return b.String()
}

// sourceVIPSnippet reads the overlay source VIP (KP-2): the node subnet's
// .2, next to the .1 flanneld writes as FLANNEL_SUBNET (NET-8).
func (p *Plan) sourceVIPSnippet() string {
	if p.Mode != v1alpha1.ModeOverlay {
		return ""
	}
	return "# KP-2: the overlay source VIP is the node subnet's .2 address; flanneld (start.ps1) must have\n" +
		"# written C:\\run\\flannel\\subnet.env, whose FLANNEL_SUBNET is the .1 address (NET-8).\n" +
		"$line = Get-Content C:\\run\\flannel\\subnet.env | Where-Object { $_ -like 'FLANNEL_SUBNET=*' }\n" +
		"$bytes = ([ipaddress](($line -replace '^FLANNEL_SUBNET=', '').Split('/')[0])).GetAddressBytes()\n" +
		"$bytes[3]++\n" +
		"$SourceVip = ([ipaddress]$bytes).IPAddressToString\n"
}

// scScript registers kubelet and kube-proxy with sc.exe (PLAN-5).
func (p *Plan) scScript(n Node) string {
	kubelet := "C:\\k\\kubelet.exe --windows-service " + joinArgs(p.kubeletFlags(n, []flag{{"kubeconfig", seedKubeconfig}}), flag.serviceArg)
	proxy := "C:\\k\\kube-proxy.exe --windows-service " + joinArgs(p.kubeProxyFlags(n), flag.serviceArg)
	var b strings.Builder
	b.WriteString(header("#", "PLAN-5, PLAN-4, KP-1, KP-2, KP-8",
		fmt.Sprintf("Registers kubelet and kube-proxy on %s as Windows services with sc.exe (run as Administrator", n.Name),
		"after start.ps1 has joined the node once). Empty flag values are written as --flag= so no quote needs",
		"escaping inside binPath; values with spaces would be quoted as \\\"...\\\"."))
	b.WriteString("$ErrorActionPreference = 'Stop'\n")
	b.WriteString(p.sourceVIPSnippet())
	fmt.Fprintf(&b, "$kubelet = '%s'\n", kubelet)
	fmt.Fprintf(&b, "sc.exe create kubelet binPath= $kubelet start= auto depend= %s\n", runtimeService(n.pool.Runtime))
	fmt.Fprintf(&b, "$proxy = \"%s\"\n", proxy)
	b.WriteString("sc.exe create kube-proxy binPath= $proxy start= auto depend= kubelet\n")
	if env := p.kubeProxyEnv(); len(env) > 0 {
		fmt.Fprintf(&b, "Set-ItemProperty HKLM:\\SYSTEM\\CurrentControlSet\\Services\\kube-proxy -Name Environment -Type MultiString -Value @('%s')\n", strings.Join(env, "','"))
	}
	b.WriteString("Start-Service kubelet\nStart-Service kube-proxy\n")
	return b.String()
}

// nssmScript registers the same services with nssm (PLAN-5).
func (p *Plan) nssmScript(n Node) string {
	var b strings.Builder
	b.WriteString(header("#", "PLAN-5, PLAN-4, PLAN-7, KP-1, KP-2, KP-8",
		fmt.Sprintf("Registers kubelet and kube-proxy on %s as Windows services with nssm (https://nssm.cc), an", n.Name),
		"alternative to register-services.ps1; logs go to C:\\k."))
	b.WriteString("$ErrorActionPreference = 'Stop'\n")
	b.WriteString(p.sourceVIPSnippet())
	env := p.proxyEnv()
	services := []struct {
		name, exe, args, depends string
		env                      []string
	}{
		{"kubelet", "kubelet.exe", joinArgs(p.kubeletFlags(n, []flag{{"kubeconfig", seedKubeconfig}}), flag.serviceArg), runtimeService(n.pool.Runtime), env},
		{"kube-proxy", "kube-proxy.exe", joinArgs(p.kubeProxyFlags(n), flag.serviceArg), "kubelet", append(p.kubeProxyEnv(), env...)},
	}
	for _, s := range services {
		fmt.Fprintf(&b, "nssm install %s C:\\k\\%s\n", s.name, s.exe)
		fmt.Fprintf(&b, "nssm set %s AppParameters \"%s\"\n", s.name, s.args)
		fmt.Fprintf(&b, "nssm set %s AppDirectory C:\\k\n", s.name)
		if len(s.env) > 0 {
			fmt.Fprintf(&b, "nssm set %s AppEnvironmentExtra %s\n", s.name, strings.Join(s.env, " "))
		}
		fmt.Fprintf(&b, "nssm set %s DependOnService %s\n", s.name, s.depends)
		fmt.Fprintf(&b, "nssm set %s AppStdout C:\\k\\%s.log\n", s.name, s.name)
		fmt.Fprintf(&b, "nssm set %s AppStderr C:\\k\\%s.err.log\n", s.name, s.name)
	}
	b.WriteString("Start-Service kubelet\nStart-Service kube-proxy\n")
	return b.String()
}

// proxyEnv are the proxy variables for nssm's AppEnvironmentExtra (PLAN-7).
func (p *Plan) proxyEnv() []string {
	px := p.Cluster.Proxy
	if px == nil {
		return nil
	}
	var env []string
	if px.HTTPProxy != "" {
		env = append(env, "HTTP_PROXY="+px.HTTPProxy)
	}
	if px.HTTPSProxy != "" {
		env = append(env, "HTTPS_PROXY="+px.HTTPSProxy)
	}
	return append(env, "NO_PROXY="+noProxyValue(p.Cluster))
}

// proxyScript sets the proxy at machine scope, as seed 004 does (PLAN-7).
func (p *Plan) proxyScript() string {
	var b strings.Builder
	b.WriteString(header("#", "PLAN-7, TS-14",
		"Proxy variables at machine scope, so the runtime, kubelet and kube-proxy services see them.",
		"Run before installing the runtime; restart the services (or the machine) after changing them."))
	for _, e := range p.proxyEnv() {
		name, value, _ := strings.Cut(e, "=")
		fmt.Fprintf(&b, "[Environment]::SetEnvironmentVariable(\"%s\", \"%s\", [EnvironmentVariableTarget]::Machine)\n", name, value)
	}
	return b.String()
}

// startScript is seed 004's start.ps1 invocation with this node's values
// (PLAN-3).
func (p *Plan) startScript(n Node) string {
	c := p.Cluster
	args := []string{
		".\\start.ps1 -ManagementIP " + n.ManagementIP,
		"-NetworkMode " + p.Mode,
		"-ClusterCIDR " + c.Network.ClusterCIDR,
		"-ServiceCIDR " + c.Network.ServiceCIDR,
		"-KubeDnsServiceIP " + c.Network.DNSServiceIP,
		"-InterfaceName '" + n.InterfaceName + "'",
		"-LogDir " + kDir,
	}
	return header("#", "PLAN-3, PLAN-1",
		fmt.Sprintf("Seed 004's join of %s with flannel's start.ps1 (run as Administrator). Copy the cluster's", n.Name),
		"kubeconfig to C:\\k\\config and kubelet.exe, kube-proxy.exe to C:\\k first.") +
		"cd C:\\k\n" +
		"[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12\n" +
		"Invoke-WebRequest https://raw.githubusercontent.com/Microsoft/SDN/master/Kubernetes/flannel/start.ps1 -OutFile C:\\k\\start.ps1\n" +
		strings.Join(args, " `\n  ") + "\n"
}

// kubeadmScript is today's route: kubelet as a service with kubeadm's
// kubeconfig, then kubeadm join; flannel and kube-proxy come from the
// HostProcess DaemonSets.
func (p *Plan) kubeadmScript(n Node) string {
	endpoint := p.Cluster.ControlPlaneEndpoint
	if endpoint == "" {
		endpoint = endpointPlaceholder
	}
	kubeconfig := []flag{{"bootstrap-kubeconfig", kubeadmBootConf}, {"kubeconfig", kubeadmConf}, {"config", kubeadmKubeletC}}
	kubelet := "C:\\k\\kubelet.exe --windows-service " + joinArgs(p.kubeletFlags(n, kubeconfig), flag.serviceArg)
	return header("#", "PLAN-4, PLAN-5, KP-8",
		fmt.Sprintf("kubeadm join of %s; flannel and kube-proxy then run as the HostProcess DaemonSets of", n.Name),
		"..\\hostprocess. Get the token and hash on the control plane: kubeadm token create --print-join-command") +
		"param(\n  [Parameter(Mandatory = $true)][string]$Token,\n  [Parameter(Mandatory = $true)][string]$CACertHash\n)\n" +
		"$ErrorActionPreference = 'Stop'\n" +
		"New-Item -ItemType Directory -Force C:\\var\\lib\\kubelet, C:\\etc\\kubernetes\\pki | Out-Null\n" +
		fmt.Sprintf("$kubelet = '%s'\n", kubelet) +
		fmt.Sprintf("sc.exe create kubelet binPath= $kubelet start= auto depend= %s\n", runtimeService(n.pool.Runtime)) +
		fmt.Sprintf("C:\\k\\kubeadm.exe join %s --token $Token --discovery-token-ca-cert-hash $CACertHash `\n  --node-name %s --cri-socket %s\n",
			endpoint, n.Name, containerdPipe)
}
