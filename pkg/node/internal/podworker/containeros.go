package podworker

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/nodeos"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh"
	"github.com/winkube/winkube/pkg/emu/userland"
	"github.com/winkube/winkube/pkg/emu/vnet"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/network/cni"
	"github.com/winkube/winkube/pkg/node/internal/cri"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
	"github.com/winkube/winkube/pkg/node/internal/podfs"
	"github.com/winkube/winkube/pkg/node/internal/process"
	"github.com/winkube/winkube/pkg/node/internal/rootfs"
	winos "github.com/winkube/winkube/pkg/node/internal/windows"
	"github.com/winkube/winkube/pkg/windows"
	"github.com/winkube/winkube/pkg/windows/activedirectory"
)

// prepare computes what a container start needs, as the kubelet's
// generateContainerConfig does: the environment (which may fail: a
// missing ConfigMap key is a CreateContainerConfigError), the mounts, the
// command, and the container's OS with the programs of its image. The
// filesystem is made only when a program first touches it.
func (w *Worker) prepare(ctx context.Context, pod *corev1.Pod, c *ctr, pulled cri.Pulled) (*launchSpec, error) {
	win := w.node.Host.Runtime().OS == "windows"
	cmd, known := imageinfo.DefaultCommand(c.spec.Image)
	img := imageConfig(c.spec.Image, cmd, win, pulled.Config)
	node := w.node.KubeletNode()
	env, err := kubeletenv.Env(ctx, w.fs.Objects(), pod, &c.spec, node, img, w.podIPs())
	if err != nil {
		return nil, err
	}
	mounts, err := kubeletenv.Mounts(pod, &c.spec, env.Kubelet, win)
	if err != nil {
		return nil, err
	}
	id, err := kubeletenv.ContainerIdentity(pod, &c.spec, img, win)
	if err != nil {
		return nil, err
	}
	hostname, _ := kubeletenv.SandboxHostname(pod, node)
	sys := &program.Sys{
		Windows: win, Clock: w.clock, Hostname: hostname,
		User:     program.User{UID: id.UID, GID: id.GID, Groups: id.Groups, Name: id.Name, GroupName: id.GroupName, Account: id.Account},
		Programs: userland.Of(c.spec.Image, win),
		Net:      w.node.Fabric.Net(w.joinNetwork(pod)),
		OS:       w.node.OSInfo(),
		// The cluster DNS program (CoreDNS) answers from the agent's view
		// of the API, as its kubernetes plugin reads the API.
		ClusterDNS: w.node.Router.AnswerDNS,
		Machine:    w.node.Machine,
	}
	if !win {
		sys.Privileges = containerPrivileges(&c.spec)
		sys.Netns = w.netns(pod)
	}
	hpc := win && windows.IsHostProcessPod(&pod.Spec)
	if hpc {
		sys.Groups = w.node.Groups
	} else if win {
		sys.Groups = program.NewLocalGroups()
	}
	sys.Sockets = w.fs.SocketView(pod, mounts, win, hpc)
	if win && !hpc {
		// A GMSA credential spec gives the container the domain
		// identity its programs (nltest, klist) see; whoami stays the
		// container user.
		account, err := nodeos.GMSA(activedirectory.CredentialSpecOf(&pod.Spec, &c.spec), w.node.Domain)
		if err != nil {
			return nil, err
		}
		sys.GMSA = account
	}
	runningID := ""
	if c.status.State.Running != nil {
		runningID = c.status.ContainerID
	}
	sys.FS = w.fs.LazyFS(podfs.Plan{
		Container: &c.spec, RunningID: runningID, Ref: func(pod *corev1.Pod) *corev1.ObjectReference { return containerRef(pod, c) },
		Mounts: mounts, Identity: id, Windows: win, HostProcess: hpc, Busybox: userland.E2ETestImage(c.spec.Image),
		ImageFiles: cmd.Files, ImageText: cmd.Text,
	})
	l := &launchSpec{sys: sys, spec: process.Spec{Env: env.Process, Dir: kubeletenv.WorkingDir(&c.spec, img)}}
	if hpc {
		// containerd 1.7 starts a HostProcess container in its image's
		// mount and tells it where that is.
		l.spec.Env = append(l.spec.Env, sandboxMountVar+"="+sandboxMount)
		if l.spec.Dir == "" {
			l.spec.Dir = rootfs.HostProcessMount
		}
	}
	if l.spec.Dir == "" {
		l.spec.Dir = sys.FS.Abs("/", "/")
	}
	if !c.init && steeredByAnnotations(pod) {
		l.steered = true
		return l, nil
	}
	if !known && len(c.spec.Command) == 0 && pulled.Config == nil {
		return cannotFollow(pod, c, l, "the default command of image "+c.spec.Image+", which it does not know")
	}
	argv, err := kubeletenv.Argv(&c.spec, img, env.Kubelet)
	if err != nil {
		return nil, err
	}
	if hpc {
		argv = expandSandboxMount(argv)
	}
	l.spec.Argv = argv
	if what := pwsh.UnsupportedCommand(argv); what != "" {
		// Honest where it cannot follow: says so once.
		return cannotFollow(pod, c, l, "the script: its PowerShell does not emulate "+what)
	}
	if _, err := sys.Lookup(argv[0]); err != nil && !known {
		// An image winkube does not know may well have the program.
		return cannotFollow(pod, c, l, fmt.Sprintf("%q of image %s, which it does not know", argv[0], c.spec.Image))
	}
	return l, nil
}

// containerPrivileges are what the runtime grants beyond the user: the
// kubelet asks for no_new_privs when allowPrivilegeEscalation is false
// (API validation refuses that with privileged or CAP_SYS_ADMIN).
func containerPrivileges(c *corev1.Container) program.Privileges {
	sc := c.SecurityContext
	if sc == nil {
		return program.Privileges{}
	}
	pr := program.Privileges{
		NoNewPrivs: sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation,
		Privileged: sc.Privileged != nil && *sc.Privileged,
	}
	if caps := sc.Capabilities; caps != nil {
		for _, a := range caps.Add {
			pr.Add = append(pr.Add, string(a))
		}
		for _, d := range caps.Drop {
			pr.Drop = append(pr.Drop, string(d))
		}
	}
	return pr
}

// netns is the pod's network namespace as ip shows it: eth0 with the pod
// IP in the node's pod CIDR, whose first address is the bridge the CNI
// routes through. A host-network pod sees the node's interfaces, which
// the emulation does not model: lo alone.
func (w *Worker) netns(pod *corev1.Pod) *program.Netns {
	ns := &program.Netns{}
	m := w.node.Network()
	if pod.Spec.HostNetwork || !w.ip.IsValid() || m == nil {
		return ns
	}
	ns.Addr = netip.PrefixFrom(w.ip, m.Prefix().Bits())
	ns.Gateway = cni.Gateway(m.Prefix())
	return ns
}

// imageConfig is the runtime's view of an image's config: the config the
// pull found (an imported image's), else the catalog's default command
// cmd and the user of the Windows base images. (Whether winkube knows
// the image's contents is the catalog's to say: a config alone says what
// to run, not that the image's programs can be followed.)
func imageConfig(ref string, cmd imageinfo.Command, win bool, cfg *imageinfo.Config) kubeletenv.Image {
	img := kubeletenv.Image{Windows: win}
	img.Entrypoint, img.Cmd = cmd.Entrypoint, cmd.Cmd
	if win {
		img.User = winos.ImageUser(ref)
	}
	if cfg != nil {
		img.Entrypoint, img.Cmd, img.Env, img.User = cfg.Entrypoint, cfg.Cmd, cfg.Env, cfg.User
	}
	img.NanoServer = win && img.User == "ContainerUser"
	return img
}

// podIPs are the pod's addresses (the node's on the host network).
// joinNetwork is the pod's place on the pod network: its IP and its own
// loopback (the node's for hostNetwork pods) and its resolver settings.
// It tells the router the pod runs here, and keeps the place for
// port-forward, which runs on another goroutine.
func (w *Worker) joinNetwork(pod *corev1.Pod) *vnet.Host {
	src := "pod/" + pod.Namespace + "/" + pod.Name
	ip, _ := netip.ParseAddr(w.podIPs()[0])
	w.node.Router.Live(pod, ip)
	h := vnet.Host{IP: ip, Scope: string(pod.UID), Source: src}
	if pod.Spec.HostNetwork {
		h.Scope = "node/" + w.node.Name
	}
	if d, err := kubeletenv.PodDNS(w.node.RunCtx, pod, w.node.KubeletNode()); err == nil {
		h.DNSServers, h.DNSSearch = d.Servers, d.Searches
	}
	w.netHost.Store(&h)
	return &h
}

func (w *Worker) podIPs() []string {
	if w.ip.IsValid() {
		return []string{w.ip.String()}
	}
	return []string{w.node.IP}
}

// sandboxMountVar names where a HostProcess container's image is mounted;
// hcsshim's job containers set it and expand it in the command line.
const (
	sandboxMountVar = "CONTAINER_SANDBOX_MOUNT_POINT"
	sandboxMount    = rootfs.HostProcessMount + `\`
)

// expandSandboxMount replaces %CONTAINER_SANDBOX_MOUNT_POINT% and
// $env:CONTAINER_SANDBOX_MOUNT_POINT in a HostProcess container's command
// line with the mount, as hcsshim does before it starts the process (the
// program would otherwise see the literal text: the command line of a
// container is not run through a shell).
func expandSandboxMount(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, "%"+sandboxMountVar+"%", sandboxMount)
		out[i] = strings.ReplaceAll(a, "$env:"+sandboxMountVar, sandboxMount)
	}
	return out
}
