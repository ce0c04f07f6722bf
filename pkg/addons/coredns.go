package addons

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	clusterdns "github.com/winkube/winkube/pkg/network/dns"
)

// Names of the cluster DNS objects, as kubeadm names them.
const (
	CoreDNSDeployment     = "coredns"
	CoreDNSConfigMap      = "coredns"
	CoreDNSServiceAccount = "coredns"
	DNSService            = "kube-dns"
	// CorefileKey is the key of CoreDNSConfigMap.
	CorefileKey = "Corefile"
)

// CoreDNSReplicas is kubeadm's replica count.
const CoreDNSReplicas = 2

var dnsLabels = map[string]string{"k8s-app": "kube-dns"}

func coreDNSObjects(n *v1alpha1.Network) []Object {
	return []Object{
		&corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: meta(CoreDNSServiceAccount, nil)},
		coreDNSClusterRole(),
		clusterRoleBinding("system:coredns", "system:coredns", CoreDNSServiceAccount, nil),
		&corev1.ConfigMap{TypeMeta: typeMeta("v1", "ConfigMap"), ObjectMeta: meta(CoreDNSConfigMap, nil),
			Data: map[string]string{CorefileKey: Corefile()}},
		coreDNSDeployment(),
		dnsService(n),
	}
}

// coreDNSClusterRole lets CoreDNS's kubernetes plugin watch what it serves.
func coreDNSClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRole"),
		ObjectMeta: clusterMeta("system:coredns", nil),
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"endpoints", "services", "pods", "namespaces"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
		},
	}
}

// Corefile is the server block kubeadm configures: the kubernetes plugin
// for the cluster domain and reverse zones, upstream resolvers for the rest.
func Corefile() string {
	lines := []string{
		".:53 {",
		"    errors",
		"    health {",
		"       lameduck 5s",
		"    }",
		"    ready",
		"    kubernetes " + ClusterDomain + " in-addr.arpa ip6.arpa {",
		"       pods " + clusterdns.PodMode,
		"       fallthrough in-addr.arpa ip6.arpa",
		"       ttl 30",
		"    }",
		"    prometheus :9153",
		"    forward . /etc/resolv.conf {",
		"       max_concurrent 1000",
		"    }",
		"    cache 30 {",
		"       disable success " + ClusterDomain,
		"       disable denial " + ClusterDomain,
		"    }",
		"    loop",
		"    reload",
		"    loadbalance",
		"}",
	}
	return strings.Join(lines, "\n") + "\n"
}

// coreDNSDeployment runs CoreDNS on Linux nodes only (PLAN-2), spread over
// nodes when it can be.
func coreDNSDeployment() *appsv1.Deployment {
	spec := corev1.PodSpec{
		PriorityClassName:  "system-cluster-critical",
		ServiceAccountName: CoreDNSServiceAccount,
		NodeSelector:       linuxOnly,
		Tolerations:        []corev1.Toleration{criticalAddons, controlPlaneTnt},
		Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100,
				PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname,
					LabelSelector: &metav1.LabelSelector{MatchLabels: dnsLabels}}}}}},
		DNSPolicy:  corev1.DNSDefault,
		Containers: []corev1.Container{coreDNSContainer()},
		Volumes: []corev1.Volume{{Name: "config-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: CoreDNSConfigMap},
			Items:                []corev1.KeyToPath{{Key: CorefileKey, Path: CorefileKey}}}}}},
	}
	maxUnavailable := intstr.FromInt32(1)
	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: meta(CoreDNSDeployment, dnsLabels),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptrTo(int32(CoreDNSReplicas)),
			Selector: &metav1.LabelSelector{MatchLabels: dnsLabels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &maxUnavailable}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: dnsLabels}, Spec: spec},
		},
	}
}

func coreDNSContainer() corev1.Container {
	return corev1.Container{
		Name:  "coredns",
		Image: CoreDNSImage,
		Args:  []string{"-conf", "/etc/coredns/Corefile"},
		Resources: corev1.ResourceRequirements{
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("170Mi")},
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("70Mi")},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "config-volume", MountPath: "/etc/coredns", ReadOnly: true}},
		Ports: []corev1.ContainerPort{
			{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP},
			{Name: "dns-tcp", ContainerPort: 53, Protocol: corev1.ProtocolTCP},
			{Name: "metrics", ContainerPort: 9153, Protocol: corev1.ProtocolTCP},
			{Name: "liveness-probe", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
			{Name: "readiness-probe", ContainerPort: 8181, Protocol: corev1.ProtocolTCP},
		},
		LivenessProbe: &corev1.Probe{ProbeHandler: httpGet("/health", "liveness-probe"),
			InitialDelaySeconds: 60, TimeoutSeconds: 5, SuccessThreshold: 1, FailureThreshold: 5},
		ReadinessProbe: &corev1.Probe{ProbeHandler: httpGet("/ready", "readiness-probe")},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptrTo(false),
			Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"NET_BIND_SERVICE"}, Drop: []corev1.Capability{"ALL"}},
			ReadOnlyRootFilesystem:   ptrTo(true),
		},
	}
}

func httpGet(path, port string) corev1.ProbeHandler {
	return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(port), Scheme: corev1.URISchemeHTTP}}
}

// dnsService is kube-dns at network.dnsServiceIP (PLAN-1), the address
// every kubelet's --cluster-dns points pods at.
func dnsService(n *v1alpha1.Network) *corev1.Service {
	labels := map[string]string{"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS"}
	svc := &corev1.Service{
		TypeMeta:   typeMeta("v1", "Service"),
		ObjectMeta: meta(DNSService, labels),
		Spec: corev1.ServiceSpec{
			ClusterIP: n.DNSServiceIP,
			Selector:  dnsLabels,
			Ports: []corev1.ServicePort{
				{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromInt32(53)},
				{Name: "dns-tcp", Port: 53, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(53)},
				{Name: "metrics", Port: 9153, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(9153)},
			},
		},
	}
	svc.Annotations = map[string]string{"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}
	return svc
}
