package install

import (
	"fmt"
	"net/url"
	"strconv"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/winkube/winkube/pkg/webhook"
)

// Names of what Install creates.
const (
	Name             = "winkube-webhook"
	DefaultNamespace = "winkube-system"
	SecretName       = Name + "-tls"
	IssuerName       = Name + "-selfsigned"
	// ServePort is the container port of `winkube webhook serve` in a pod;
	// the Service maps 443 onto it.
	ServePort = 8443
	// The labels every installed object carries; Uninstall selects on them.
	LabelName      = "app.kubernetes.io/name"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelInstance  = "app.kubernetes.io/instance"
	ManagedBy      = "winkube"
	// InjectCAAnnotation asks cert-manager's cainjector to fill caBundle
	// from a Certificate ("namespace/name").
	InjectCAAnnotation = "cert-manager.io/inject-ca-from"
	certMountPath      = "/etc/winkube/webhook"
)

// Defaults of Options.
const (
	DefaultTimeoutSeconds = 5
	DefaultReplicas       = 2
	DefaultFailurePolicy  = admissionregistrationv1.Ignore
)

// Options say what to install.
type Options struct {
	Namespace string // default winkube-system
	// Instance tells installations apart (label app.kubernetes.io/instance):
	// "winkube-webhook" for `webhook install`, another for `up --webhook`.
	Instance       string
	Image          string
	Replicas       int32
	FailurePolicy  admissionregistrationv1.FailurePolicyType
	TimeoutSeconds int32
	// ServeArgs are added after `webhook serve --listen ... --tls-...` in
	// the Deployment (--windows-taint, --enforce, ...).
	ServeArgs []string
	// URL, when set, is where kube-apiserver reaches a webhook running
	// outside the cluster (https://HOST:PORT); only the configurations are
	// installed then.
	URL string
	// CertManager uses a cert-manager Issuer and Certificate for the
	// serving certificate instead of generated ones.
	CertManager bool
}

func (o Options) withDefaults() Options {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.Instance == "" {
		o.Instance = Name
	}
	if o.Replicas == 0 {
		o.Replicas = DefaultReplicas
	}
	if o.FailurePolicy == "" {
		o.FailurePolicy = DefaultFailurePolicy
	}
	if o.TimeoutSeconds == 0 {
		o.TimeoutSeconds = DefaultTimeoutSeconds
	}
	return o
}

// ServiceHosts are the names kube-apiserver may use for the webhook's
// Service; the first is the one it uses.
func ServiceHosts(namespace string) []string {
	return []string{
		Name + "." + namespace + ".svc",
		Name + "." + namespace,
		Name,
		Name + "." + namespace + ".svc.cluster.local",
	}
}

// URLHost is the host of a --url, which the serving certificate must name.
func URLHost(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("--url %q: %w", raw, err)
	}
	if u.Scheme != "https" || u.Hostname() == "" {
		return "", fmt.Errorf("--url %q: want https://HOST:PORT (kube-apiserver calls webhooks over TLS)", raw)
	}
	if u.Path != "" && u.Path != "/" {
		return "", fmt.Errorf("--url %q: give no path; the webhook serves %s and %s", raw, webhook.MutatePath, webhook.ValidatePath)
	}
	return u.Hostname(), nil
}

func (o Options) labels() map[string]string {
	return map[string]string{LabelName: Name, LabelManagedBy: ManagedBy, LabelInstance: o.Instance}
}

func (o Options) meta(name string, namespaced bool) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: name, Labels: o.labels()}
	if namespaced {
		m.Namespace = o.Namespace
	}
	return m
}

// Objects are what Install applies, in order: for a webhook in the cluster
// the namespace, RBAC, certificate, Deployment and Service, then the
// webhook configurations; for a URL only the configurations. caBundle is
// the PEM CA kube-apiserver trusts (nil with CertManager, whose cainjector
// fills it); certs, when not nil, become the TLS Secret.
func Objects(o Options, caBundle []byte, certs *Certs) ([]runtime.Object, error) {
	o = o.withDefaults()
	var objs []runtime.Object
	cc := admissionregistrationv1.WebhookClientConfig{CABundle: caBundle}
	if o.URL != "" {
		if _, err := URLHost(o.URL); err != nil {
			return nil, err
		}
		u := o.URL
		cc.URL = &u
	} else {
		if o.Image == "" {
			return nil, fmt.Errorf("--image: no image to run the webhook")
		}
		port := int32(443)
		cc.Service = &admissionregistrationv1.ServiceReference{Namespace: o.Namespace, Name: Name, Port: &port}
		objs = append(objs, o.namespace(), o.serviceAccount(), o.clusterRole(), o.clusterRoleBinding())
		switch {
		case o.CertManager:
			objs = append(objs, o.issuer(), o.certificate())
		case certs != nil:
			objs = append(objs, o.secret(certs))
		default:
			return nil, fmt.Errorf("no serving certificate: generate one or use cert-manager")
		}
		objs = append(objs, o.deployment(), o.service())
	}
	mut, val := webhook.Configurations(Name, o.Namespace, cc, o.TimeoutSeconds, o.FailurePolicy)
	mut.TypeMeta = metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"}
	val.TypeMeta = metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"}
	for _, m := range []*metav1.ObjectMeta{&mut.ObjectMeta, &val.ObjectMeta} {
		// Named after the instance, so `up --webhook` and `webhook install`
		// can register side by side.
		m.Name = o.Instance
		m.Labels = mergeLabels(m.Labels, o.labels())
		if o.CertManager && o.URL == "" {
			m.Annotations = mergeLabels(m.Annotations, map[string]string{InjectCAAnnotation: o.Namespace + "/" + Name})
		}
	}
	return append(objs, mut, val), nil
}

func mergeLabels(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func (o Options) namespace() *corev1.Namespace {
	return &corev1.Namespace{TypeMeta: typeMeta("v1", "Namespace"), ObjectMeta: o.meta(o.Namespace, false)}
}

func (o Options) serviceAccount() *corev1.ServiceAccount {
	return &corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: o.meta(Name, true)}
}

// clusterRole is what the decisions read: node builds and taints, the
// RuntimeClasses a pod names, and the pull secrets of a pod and its
// service account for registry look-ups.
func (o Options) clusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRole"),
		ObjectMeta: o.meta(Name, false),
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"node.k8s.io"}, Resources: []string{"runtimeclasses"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"secrets", "serviceaccounts"}, Verbs: []string{"get"}},
		},
	}
}

func (o Options) clusterRoleBinding() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
		ObjectMeta: o.meta(Name, false),
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: Name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: Name, Namespace: o.Namespace}},
	}
}

func (o Options) secret(c *Certs) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   typeMeta("v1", "Secret"),
		ObjectMeta: o.meta(SecretName, true),
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: c.Cert, corev1.TLSPrivateKeyKey: c.Key, CAFile: c.CA},
	}
}

// issuer and certificate are cert-manager's objects, built untyped so
// winkube needs no cert-manager module: a self-signed Issuer whose
// Certificate's ca.crt is the bundle cainjector patches in.
func (o Options) issuer() *unstructured.Unstructured {
	u := o.unstructured("cert-manager.io/v1", "Issuer", IssuerName)
	u.Object["spec"] = map[string]any{"selfSigned": map[string]any{}}
	return u
}

func (o Options) certificate() *unstructured.Unstructured {
	u := o.unstructured("cert-manager.io/v1", "Certificate", Name)
	var names []any
	for _, h := range ServiceHosts(o.Namespace) {
		names = append(names, h)
	}
	u.Object["spec"] = map[string]any{
		"secretName": SecretName,
		"dnsNames":   names,
		"issuerRef":  map[string]any{"kind": "Issuer", "name": IssuerName},
		// cert-manager creates the Secret; the labels let Uninstall find it.
		"secretTemplate": map[string]any{"labels": stringMap(o.labels())},
	}
	return u
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (o Options) unstructured(apiVersion, kind, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetName(name)
	u.SetNamespace(o.Namespace)
	u.SetLabels(o.labels())
	return u
}

func (o Options) service() *corev1.Service {
	return &corev1.Service{
		TypeMeta:   typeMeta("v1", "Service"),
		ObjectMeta: o.meta(Name, true),
		Spec: corev1.ServiceSpec{
			Selector: o.selector(),
			Ports:    []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(ServePort)}},
		},
	}
}

func (o Options) selector() map[string]string {
	return map[string]string{LabelName: Name, LabelInstance: o.Instance}
}

// serveArgs are the container's arguments: the image's entrypoint is
// winkube.
func (o Options) serveArgs() []string {
	args := []string{"webhook", "serve",
		"--listen=:" + strconv.Itoa(ServePort),
		"--tls-cert-file=" + certMountPath + "/" + CertFile,
		"--tls-private-key-file=" + certMountPath + "/" + KeyFile,
	}
	return append(args, o.ServeArgs...)
}

func (o Options) deployment() *appsv1.Deployment {
	replicas := o.Replicas
	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: o.meta(Name, true),
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: o.selector()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: o.labels()},
				Spec:       o.podSpec(),
			},
		},
	}
}

// podSpec runs on Linux nodes only: the image is a Linux one, and in a
// mixed cluster an unpinned pod could be sent to a Windows node (SCH-1).
func (o Options) podSpec() corev1.PodSpec {
	yes, no := true, false
	uid := int64(65532)
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromInt32(ServePort), Scheme: corev1.URISchemeHTTPS,
		}}, PeriodSeconds: 10}
	}
	return corev1.PodSpec{
		ServiceAccountName: Name,
		NodeSelector:       map[string]string{corev1.LabelOSStable: "linux"},
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   &yes,
			RunAsUser:      &uid,
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{{
			Name:           "webhook",
			Image:          o.Image,
			Args:           o.serveArgs(),
			Ports:          []corev1.ContainerPort{{Name: "https", ContainerPort: ServePort}},
			ReadinessProbe: probe("/readyz"),
			LivenessProbe:  probe("/healthz"),
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
			},
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: &no,
				ReadOnlyRootFilesystem:   &yes,
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
			VolumeMounts: []corev1.VolumeMount{{Name: "tls", MountPath: certMountPath, ReadOnly: true}},
		}},
		Volumes: []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: SecretName}}}},
	}
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}
