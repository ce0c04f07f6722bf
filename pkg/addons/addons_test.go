package addons

import (
	"encoding/json"
	"net/netip"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/windows"
)

// find returns the object of the type and name.
func find[T Object](t *testing.T, objs []Object, name string) T {
	t.Helper()
	for _, o := range objs {
		if typed, ok := o.(T); ok && o.GetName() == name {
			return typed
		}
	}
	var zero T
	t.Fatalf("no %T named %s", zero, name)
	return zero
}

func l2bridgeCluster() *v1alpha1.Cluster {
	c := &v1alpha1.Cluster{Network: v1alpha1.Network{Mode: v1alpha1.ModeL2Bridge}}
	v1alpha1.SetDefaults(c)
	return c
}

// flagValue returns the value of --name=value in args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// The Linux side's net-conf.json carries the cluster CIDR and the VXLAN
// backend Windows interoperates with, and cni-conf.json is named vxlan0.
// rule: NET-2, PLAN-2
func TestFlannelConfigOverlay(t *testing.T) {
	cm := find[*corev1.ConfigMap](t, Objects(v1alpha1.DefaultCluster()), "kube-flannel-cfg")
	if cm.Namespace != "kube-system" {
		t.Errorf("namespace = %s, want kube-system (seed 004)", cm.Namespace)
	}
	var net struct {
		Network string
		Backend struct {
			Type string
			VNI  int
			Port int
		}
	}
	if err := json.Unmarshal([]byte(cm.Data["net-conf.json"]), &net); err != nil {
		t.Fatalf("net-conf.json: %v\n%s", err, cm.Data["net-conf.json"])
	}
	if net.Network != "10.244.0.0/16" || net.Backend.Type != "vxlan" || net.Backend.VNI != 4096 || net.Backend.Port != 4789 {
		t.Errorf("net-conf.json = %+v, want 10.244.0.0/16 with vxlan VNI 4096 port 4789", net)
	}
	var cni struct {
		Name    string
		Plugins []struct {
			Type         string
			Delegate     map[string]bool
			Capabilities map[string]bool
		}
	}
	if err := json.Unmarshal([]byte(cm.Data["cni-conf.json"]), &cni); err != nil {
		t.Fatalf("cni-conf.json: %v", err)
	}
	if cni.Name != "vxlan0" || len(cni.Plugins) != 2 {
		t.Fatalf("cni-conf.json = %+v, want vxlan0 with flannel and portmap", cni)
	}
	if p := cni.Plugins[0]; p.Type != "flannel" || !p.Delegate["hairpinMode"] || !p.Delegate["isDefaultGateway"] {
		t.Errorf("first plugin = %+v, want flannel with hairpinMode and isDefaultGateway", p)
	}
	if p := cni.Plugins[1]; p.Type != "portmap" || !p.Capabilities["portMappings"] {
		t.Errorf("second plugin = %+v, want portmap with portMappings", p)
	}
}

// l2bridge uses flannel's host-gw backend and the cbr0 network.
// rule: NET-3, KP-1
func TestFlannelConfigL2Bridge(t *testing.T) {
	c := l2bridgeCluster()
	c.Network.ClusterCIDR = "10.200.0.0/16"
	cm := find[*corev1.ConfigMap](t, Objects(c), "kube-flannel-cfg")
	var net map[string]any
	if err := json.Unmarshal([]byte(cm.Data["net-conf.json"]), &net); err != nil {
		t.Fatal(err)
	}
	backend, _ := net["Backend"].(map[string]any)
	if net["Network"] != "10.200.0.0/16" || len(backend) != 1 || backend["Type"] != "host-gw" {
		t.Errorf("net-conf.json = %v, want 10.200.0.0/16 with only Type host-gw", net)
	}
	if !strings.Contains(cm.Data["cni-conf.json"], `"name": "cbr0"`) {
		t.Errorf("cni-conf.json is not named cbr0:\n%s", cm.Data["cni-conf.json"])
	}
}

// podSpecs returns every workload's pod spec by name.
func podSpecs(objs []Object) map[string]corev1.PodSpec {
	out := map[string]corev1.PodSpec{}
	for _, o := range objs {
		switch w := o.(type) {
		case *appsv1.DaemonSet:
			out[w.Name] = w.Spec.Template.Spec
		case *appsv1.Deployment:
			out[w.Name] = w.Spec.Template.Spec
		}
	}
	return out
}

var windowsWorkloads = map[string]bool{"kube-flannel-ds-windows": true, "kube-proxy-windows": true}

// Linux workloads are pinned to Linux nodes; the Windows node agents are
// pinned to Windows, tolerate the Windows taint and run as HostProcess pods
// on the host network.
// rule: PLAN-2, SCH-3, KLT-8
func TestPlacement(t *testing.T) {
	specs := podSpecs(Objects(v1alpha1.DefaultCluster()))
	for _, name := range []string{"kube-flannel-ds", "kube-flannel-ds-windows", "kube-proxy", "kube-proxy-windows", "coredns"} {
		if _, ok := specs[name]; !ok {
			t.Errorf("no workload %s", name)
		}
	}
	for name, spec := range specs {
		want := "linux"
		if windowsWorkloads[name] {
			want = "windows"
		}
		if got := spec.NodeSelector["kubernetes.io/os"]; got != want {
			t.Errorf("%s: nodeSelector kubernetes.io/os = %q, want %q", name, got, want)
		}
		if want == "linux" {
			continue
		}
		tolerated := false
		for _, tol := range spec.Tolerations {
			tolerated = tolerated || tol.ToleratesTaint(klog.Background(), &v1alpha1.WindowsTaint, false)
		}
		if !tolerated {
			t.Errorf("%s does not tolerate os=windows:NoSchedule", name)
		}
		// The seeds' toleration, written out: key os, operator Equal,
		// value windows, effect NoSchedule.
		seedToleration := corev1.Toleration{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}
		if !slices.Contains(spec.Tolerations, seedToleration) {
			t.Errorf("%s tolerations = %v, want them to include %v", name, spec.Tolerations, seedToleration)
		}
		wo := spec.SecurityContext.WindowsOptions
		if wo == nil || wo.HostProcess == nil || !*wo.HostProcess || !spec.HostNetwork {
			t.Errorf("%s is not a HostProcess pod on the host network", name)
		}
		if wo == nil || wo.RunAsUserName == nil || *wo.RunAsUserName != `NT AUTHORITY\system` {
			t.Errorf("%s: runAsUserName = %v, want NT AUTHORITY\\system", name, wo)
		}
	}
}

func windowsProxy(t *testing.T, objs []Object) corev1.Container {
	t.Helper()
	ds := find[*appsv1.DaemonSet](t, objs, "kube-proxy-windows")
	return ds.Spec.Template.Spec.Containers[0]
}

// Overlay: kernelspace mode, the vxlan0 network, a source VIP filled on the
// node, and a hostname override that is always the node's name.
// rule: KP-1, KP-2, KP-8, PLAN-4
func TestWindowsKubeProxyOverlay(t *testing.T) {
	c := windowsProxy(t, Objects(v1alpha1.DefaultCluster()))
	for name, want := range map[string]string{
		"--proxy-mode":        "kernelspace",
		"--network-name":      "vxlan0",
		"--hostname-override": "$(NODE_NAME)",
	} {
		if got, _ := flagValue(c.Args, name); got != want {
			t.Errorf("%s = %q, want %q (args %v)", name, got, want, c.Args)
		}
	}
	vip, ok := flagValue(c.Args, "--source-vip")
	if _, err := netip.ParseAddr(vip); !ok || err == nil {
		t.Errorf("--source-vip = %q, want a placeholder the node fills, not a fixed IP", vip)
	}
	var nodeName *corev1.EnvVar
	for i := range c.Env {
		if c.Env[i].Name == "NODE_NAME" {
			nodeName = &c.Env[i]
		}
		if c.Env[i].Name == "SOURCE_VIP" {
			t.Error("SOURCE_VIP is set in env, so the kubelet would expand the placeholder")
		}
	}
	if nodeName == nil || nodeName.ValueFrom == nil || nodeName.ValueFrom.FieldRef == nil || nodeName.ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("NODE_NAME env = %+v, want fieldRef spec.nodeName", nodeName)
	}
	if _, ok := flagValue(c.Args, "--enable-dsr"); ok {
		t.Errorf("--enable-dsr without network.enableDSR: %v", c.Args)
	}
	// WinOverlay is GA from 1.34: a 1.36 cluster passes no gates.
	if gates, ok := flagValue(c.Args, "--feature-gates"); ok {
		t.Errorf("--feature-gates=%s on Kubernetes 1.36", gates)
	}
}

// Before 1.34 overlay needs WinOverlay and DSR needs WinDSR.
// rule: KP-2
func TestWindowsKubeProxyGatesByVersion(t *testing.T) {
	c := v1alpha1.DefaultCluster()
	c.Network.EnableDSR = true
	cases := []struct {
		minor int
		want  string
	}{
		{33, "WinOverlay=true,WinDSR=true"},
		{34, ""},
		{36, ""},
	}
	for _, tc := range cases {
		args := windowsProxy(t, objects(c, tc.minor)).Args
		gates, _ := flagValue(args, "--feature-gates")
		if gates != tc.want {
			t.Errorf("1.%d: --feature-gates = %q, want %q", tc.minor, gates, tc.want)
		}
		if dsr, _ := flagValue(args, "--enable-dsr"); dsr != "true" {
			t.Errorf("1.%d: --enable-dsr = %q with network.enableDSR", tc.minor, dsr)
		}
	}
	if !windows.FeatureAvailable(windows.FeatureWinOverlayGA, 34) {
		t.Error("the rule book no longer has WinOverlay GA in 1.34")
	}
}

// l2bridge names the network through KUBE_NETWORK and needs no source VIP.
// rule: KP-1
func TestWindowsKubeProxyL2Bridge(t *testing.T) {
	c := windowsProxy(t, Objects(l2bridgeCluster()))
	for _, name := range []string{"--network-name", "--source-vip"} {
		if v, ok := flagValue(c.Args, name); ok {
			t.Errorf("l2bridge passes %s=%s", name, v)
		}
	}
	found := false
	for _, e := range c.Env {
		found = found || (e.Name == "KUBE_NETWORK" && e.Value == "cbr0")
	}
	if !found {
		t.Errorf("env = %v, want KUBE_NETWORK=cbr0", c.Env)
	}
	if mode, _ := flagValue(c.Args, "--proxy-mode"); mode != "kernelspace" {
		t.Errorf("--proxy-mode = %q", mode)
	}
}

// CoreDNS runs two replicas on Linux behind kube-dns at the DNS service IP.
// rule: PLAN-1, PLAN-2
func TestCoreDNS(t *testing.T) {
	objs := Objects(v1alpha1.DefaultCluster())
	d := find[*appsv1.Deployment](t, objs, "coredns")
	if *d.Spec.Replicas != 2 || d.Spec.Template.Spec.Containers[0].Image != "registry.k8s.io/coredns/coredns:v1.14.2" {
		t.Errorf("coredns: %d replicas of %s", *d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Image)
	}
	svc := find[*corev1.Service](t, objs, "kube-dns")
	if svc.Spec.ClusterIP != "10.96.0.10" || svc.Labels["k8s-app"] != "kube-dns" || svc.Spec.Selector["k8s-app"] != "kube-dns" {
		t.Errorf("kube-dns: clusterIP %s, labels %v, selector %v", svc.Spec.ClusterIP, svc.Labels, svc.Spec.Selector)
	}
	var ports []string
	for _, p := range svc.Spec.Ports {
		ports = append(ports, p.Name+" "+string(p.Protocol)+" "+p.TargetPort.String())
	}
	if got := strings.Join(ports, ", "); got != "dns UDP 53, dns-tcp TCP 53, metrics TCP 9153" {
		t.Errorf("kube-dns ports = %s", got)
	}
	corefile := find[*corev1.ConfigMap](t, objs, "coredns").Data["Corefile"]
	if !strings.Contains(corefile, "kubernetes cluster.local in-addr.arpa ip6.arpa {") {
		t.Errorf("Corefile does not serve cluster.local:\n%s", corefile)
	}

	c := v1alpha1.DefaultCluster()
	c.Network.ServiceCIDR, c.Network.DNSServiceIP = "10.100.0.0/16", "10.100.0.10"
	if got := find[*corev1.Service](t, Objects(c), "kube-dns").Spec.ClusterIP; got != "10.100.0.10" {
		t.Errorf("kube-dns clusterIP = %s, want network.dnsServiceIP 10.100.0.10", got)
	}
}

// Every image runs on every node its workload can land on: the Linux images
// on Linux, the HostProcess images on every Windows build the default pools
// and the supported releases use.
// rule: IMG-2, IMG-4
func TestImagesRunOnTheirNodes(t *testing.T) {
	var builds []windows.Build
	for _, name := range []string{"2019", "2022", "2025"} {
		r, ok := windows.ReleaseByName(name)
		if !ok {
			t.Fatalf("release %s unknown", name)
		}
		builds = append(builds, r.Version())
	}
	for name, spec := range podSpecs(Objects(v1alpha1.DefaultCluster())) {
		os := spec.NodeSelector["kubernetes.io/os"]
		for _, ctr := range append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...) {
			img := imageinfo.Lookup(ctr.Image)
			if !img.Known {
				t.Errorf("%s: %s is not in the image catalog", name, ctr.Image)
			}
			hosts := []windows.Build{{}}
			if os == "windows" {
				hosts = builds
			}
			for _, b := range hosts {
				if _, err := imageinfo.MatchHost(img, os, "amd64", b); err != nil {
					t.Errorf("%s: %s on %s %s: %v", name, ctr.Image, os, b.Label(), err)
				}
			}
		}
	}
}

// Accounts and ConfigMaps come before the workloads that use them.
func TestObjectsOrder(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range Objects(v1alpha1.DefaultCluster()) {
		kind := o.GetObjectKind().GroupVersionKind().Kind
		if kind == "" {
			t.Errorf("%s has no kind", o.GetName())
		}
		seen[kind+"/"+o.GetName()] = true
		var spec corev1.PodSpec
		switch w := o.(type) {
		case *appsv1.DaemonSet:
			spec = w.Spec.Template.Spec
		case *appsv1.Deployment:
			spec = w.Spec.Template.Spec
		default:
			continue
		}
		if !seen["ServiceAccount/"+spec.ServiceAccountName] {
			t.Errorf("%s comes before its ServiceAccount %s", o.GetName(), spec.ServiceAccountName)
		}
		for _, v := range spec.Volumes {
			if v.ConfigMap != nil && !seen["ConfigMap/"+v.ConfigMap.Name] {
				t.Errorf("%s comes before its ConfigMap %s", o.GetName(), v.ConfigMap.Name)
			}
		}
	}
}

// ObjectsForVersion reads the release: its kube-proxy gates and images.
// rule: KP-2
func TestObjectsForVersionReadsTheRelease(t *testing.T) {
	c := v1alpha1.DefaultCluster()
	old := windowsProxy(t, ObjectsForVersion(c, "v1.33.4"))
	if gates, _ := flagValue(old.Args, "--feature-gates"); gates != "WinOverlay=true" {
		t.Errorf("v1.33.4: --feature-gates = %q, want WinOverlay=true", gates)
	}
	if !strings.Contains(old.Image, ":v1.33.4-") {
		t.Errorf("v1.33.4: kube-proxy image %s", old.Image)
	}
	cur := windowsProxy(t, ObjectsForVersion(c, KubernetesVersion))
	if want := windowsProxy(t, Objects(c)); !slices.Equal(cur.Args, want.Args) || cur.Image != want.Image {
		t.Errorf("ObjectsForVersion(%s) differs from Objects: %v %s, want %v %s", KubernetesVersion, cur.Args, cur.Image, want.Args, want.Image)
	}
}
