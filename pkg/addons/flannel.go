package addons

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// Names of the flannel objects.
const (
	FlannelConfigMap        = "kube-flannel-cfg"
	FlannelDaemonSet        = "kube-flannel-ds"
	FlannelWindowsDaemonSet = "kube-flannel-ds-windows"
	FlannelServiceAccount   = "flannel"
	// NetConfKey and CNIConfKey are the keys of FlannelConfigMap.
	NetConfKey = "net-conf.json"
	CNIConfKey = "cni-conf.json"
)

// The VXLAN settings Linux and Windows flannel must share (NET-2): Windows
// accepts only VNI 4096 and port 4789 in the seeds.
const (
	FlannelVNI  = 4096
	FlannelPort = 4789
)

// NetworkName is the CNI and HNS network name for a network mode (KP-1,
// NET-2): vxlan0 on overlay as seed 004 names it, cbr0 on l2bridge.
func NetworkName(mode string) string {
	if mode == v1alpha1.ModeL2Bridge {
		return "cbr0"
	}
	return "vxlan0"
}

// flannelLabels are on every flannel object; k8s-app tells the Linux and
// Windows DaemonSets apart so their selectors never overlap.
func flannelLabels(app string) map[string]string {
	return map[string]string{"tier": "node", "app": "flannel", "k8s-app": app}
}

func flannelObjects(n *v1alpha1.Network) []Object {
	return []Object{
		&corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: meta(FlannelServiceAccount, flannelLabels("flannel"))},
		flannelClusterRole(),
		clusterRoleBinding("flannel", "flannel", FlannelServiceAccount, flannelLabels("flannel")),
		flannelConfigMap(n),
		flannelLinux(),
		flannelWindows(n),
	}
}

// flannelClusterRole is what flanneld with --kube-subnet-mgr needs: read
// nodes and its own pod, and write its annotations to node status.
func flannelClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRole"),
		ObjectMeta: clusterMeta("flannel", flannelLabels("flannel")),
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}},
			{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"nodes/status"}, Verbs: []string{"patch"}},
		},
	}
}

// netConf is flannel's net-conf.json (NET-2, PLAN-2).
type netConf struct {
	Network string  `json:"Network"`
	Backend backend `json:"Backend"`
}

type backend struct {
	Type string `json:"Type"`
	VNI  int    `json:"VNI,omitempty"`
	Port int    `json:"Port,omitempty"`
}

// NetConf renders net-conf.json for the cluster: VXLAN with VNI 4096 and
// port 4789 on overlay (NET-2), host-gw on l2bridge (NET-3).
func NetConf(n *v1alpha1.Network) string {
	c := netConf{Network: n.ClusterCIDR, Backend: backend{Type: "vxlan", VNI: FlannelVNI, Port: FlannelPort}}
	if n.Mode == v1alpha1.ModeL2Bridge {
		c.Backend = backend{Type: "host-gw"}
	}
	return mustJSON(c)
}

// cniConf is the flannel CNI network list of seed 004.
type cniConf struct {
	Name       string      `json:"name"`
	CNIVersion string      `json:"cniVersion"`
	Plugins    []cniPlugin `json:"plugins"`
}

type cniPlugin struct {
	Type         string          `json:"type"`
	Delegate     map[string]bool `json:"delegate,omitempty"`
	Capabilities map[string]bool `json:"capabilities,omitempty"`
}

// CNIConf renders cni-conf.json: flannel delegating to the bridge plugin,
// plus portmap, under the mode's network name (PLAN-2: vxlan0 on overlay).
func CNIConf(n *v1alpha1.Network) string {
	return mustJSON(cniConf{
		Name:       NetworkName(n.Mode),
		CNIVersion: "0.3.1",
		Plugins: []cniPlugin{
			{Type: "flannel", Delegate: map[string]bool{"hairpinMode": true, "isDefaultGateway": true}},
			{Type: "portmap", Capabilities: map[string]bool{"portMappings": true}},
		},
	})
}

// mustJSON indents v; the types above always marshal.
func mustJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "{}"
	}
	return string(b) + "\n"
}

func flannelConfigMap(n *v1alpha1.Network) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   typeMeta("v1", "ConfigMap"),
		ObjectMeta: meta(FlannelConfigMap, flannelLabels("flannel")),
		Data:       map[string]string{NetConfKey: NetConf(n), CNIConfKey: CNIConf(n)},
	}
}

// flannelLinux is upstream's kube-flannel-ds (v0.26.7) pinned to Linux
// nodes by a node selector, as seed 004's node-selector patch does (PLAN-2).
func flannelLinux() *appsv1.DaemonSet {
	labels := flannelLabels("flannel")
	spec := corev1.PodSpec{
		HostNetwork:        true,
		PriorityClassName:  "system-node-critical",
		ServiceAccountName: FlannelServiceAccount,
		NodeSelector:       linuxOnly,
		Tolerations:        []corev1.Toleration{anyNoSchedule},
		InitContainers: []corev1.Container{
			{Name: "install-cni-plugin", Image: FlannelCNIPluginImage, Command: []string{"cp"},
				Args:         []string{"-f", "/flannel", "/opt/cni/bin/flannel"},
				VolumeMounts: []corev1.VolumeMount{{Name: "cni-plugin", MountPath: "/opt/cni/bin"}}},
			{Name: "install-cni", Image: FlannelImage, Command: []string{"cp"},
				Args: []string{"-f", "/etc/kube-flannel/cni-conf.json", "/etc/cni/net.d/10-flannel.conflist"},
				VolumeMounts: []corev1.VolumeMount{{Name: "cni", MountPath: "/etc/cni/net.d"},
					{Name: "flannel-cfg", MountPath: "/etc/kube-flannel/"}}},
		},
		Containers: []corev1.Container{{
			Name:    "kube-flannel",
			Image:   FlannelImage,
			Command: []string{"/opt/bin/flanneld"},
			Args:    []string{"--ip-masq", "--kube-subnet-mgr"},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("50Mi")}},
			SecurityContext: &corev1.SecurityContext{Privileged: ptrTo(false),
				Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN", "NET_RAW"}}},
			Env: []corev1.EnvVar{fieldEnv("POD_NAME", "metadata.name"), fieldEnv("POD_NAMESPACE", "metadata.namespace"),
				{Name: "EVENT_QUEUE_DEPTH", Value: "5000"}},
			VolumeMounts: []corev1.VolumeMount{{Name: "run", MountPath: "/run/flannel"},
				{Name: "flannel-cfg", MountPath: "/etc/kube-flannel/"}, {Name: "xtables-lock", MountPath: "/run/xtables.lock"}},
		}},
		Volumes: []corev1.Volume{
			hostPathVolume("run", "/run/flannel", ""),
			hostPathVolume("cni-plugin", "/opt/cni/bin", ""),
			hostPathVolume("cni", "/etc/cni/net.d", ""),
			configMapVolume("flannel-cfg", FlannelConfigMap),
			hostPathVolume("xtables-lock", "/run/xtables.lock", corev1.HostPathFileOrCreate),
		},
	}
	return daemonSet(FlannelDaemonSet, labels, spec)
}

// flannelWindows runs flanneld on every Windows node as a HostProcess pod,
// the way sig-windows-tools' flannel DaemonSet did: host network, SYSTEM
// account, the Windows taint tolerated (SCH-3). Its image's start script
// reads net-conf.json from the mounted kube-flannel-cfg and writes the
// node's CNI config; SERVICE_SUBNET goes into the OutBoundNAT exceptions
// (NET-6).
func flannelWindows(n *v1alpha1.Network) *appsv1.DaemonSet {
	labels := flannelLabels("flannel-windows")
	spec := corev1.PodSpec{
		SecurityContext:    hostProcess(),
		HostNetwork:        true,
		PriorityClassName:  "system-node-critical",
		ServiceAccountName: FlannelServiceAccount,
		NodeSelector:       windowsOnly,
		Tolerations:        []corev1.Toleration{windowsTaint, anyNoSchedule, criticalAddons, {Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
		Containers: []corev1.Container{{
			Name:  "kube-flannel",
			Image: FlannelWindowsImage,
			Env: []corev1.EnvVar{
				{Name: "CNI_BIN_PATH", Value: `C:\opt\cni\bin`},
				{Name: "CNI_CONFIG_PATH", Value: `C:\etc\cni\net.d`},
				{Name: "SERVICE_SUBNET", Value: n.ServiceCIDR},
				fieldEnv("POD_NAME", "metadata.name"),
				fieldEnv("POD_NAMESPACE", "metadata.namespace"),
			},
			VolumeMounts: []corev1.VolumeMount{{Name: "flannel-cfg", MountPath: "/mounts/kube-flannel/"}},
		}},
		Volumes: []corev1.Volume{configMapVolume("flannel-cfg", FlannelConfigMap)},
	}
	return daemonSet(FlannelWindowsDaemonSet, labels, spec)
}

// daemonSet wraps a pod spec; the selector is the k8s-app label.
func daemonSet(name string, labels map[string]string, spec corev1.PodSpec) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		TypeMeta:   typeMeta("apps/v1", "DaemonSet"),
		ObjectMeta: meta(name, labels),
		Spec: appsv1.DaemonSetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": labels["k8s-app"]}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType},
			Template:       corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
		},
	}
}

// clusterRoleBinding binds a kube-system service account to a ClusterRole.
func clusterRoleBinding(name, role, account string, labels map[string]string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
		ObjectMeta: clusterMeta(name, labels),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: account, Namespace: Namespace}},
	}
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}
