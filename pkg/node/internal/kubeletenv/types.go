package kubeletenv

import (
	"context"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
)

// Objects is how the builder reads API objects; the node passes a
// client-backed getter. A missing object is reported with an apimachinery
// NotFound error (any resource name: the errors returned to the caller are
// re-worded the way the kubelet's object managers word them).
type Objects interface {
	ConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error)
	Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	// Services lists the services of one namespace. Env asks for the
	// pod's namespace and for "default" (the master service).
	Services(ctx context.Context, namespace string) ([]*corev1.Service, error)
	// ServiceAccountToken returns the token a TokenRequest for the service
	// account yields (a JWT).
	ServiceAccountToken(ctx context.Context, namespace, serviceAccount string, req *authenticationv1.TokenRequest) (string, error)
}

// VolumeFileReader may also be implemented by Objects: it reads a file of
// one of the pod's volumes (an emptyDir an init container wrote), which
// env valueFrom.fileKeyRef needs. Without it fileKeyRef fails the way the
// kubelet fails for a volume it cannot find.
type VolumeFileReader interface {
	ReadVolumeFile(ctx context.Context, volume, path string) ([]byte, error)
}

// Image is what the runtime takes from the image config (catalog or
// registry).
type Image struct {
	Env        []string // NAME=value, in the config's order
	Entrypoint []string
	Cmd        []string
	WorkingDir string
	// User is the config's User ("1000", "1000:1000", "nobody", or on
	// Windows "ContainerUser"); "" means root / ContainerAdministrator.
	User    string
	Windows bool
	// NanoServer marks a Nano Server base (fewer default variables).
	NanoServer bool
	// Passwd and Group are the image's /etc/passwd and /etc/group; nil
	// means busybox's (BusyboxPasswd, BusyboxGroup).
	Passwd, Group []byte
}

// Node is what the kubelet knows about its node.
type Node struct {
	Name          string
	Allocatable   corev1.ResourceList
	Windows       bool
	ClusterDNS    []string // --cluster-dns
	ClusterDomain string   // --cluster-domain
	HostIPs       []string // status.hostIPs, in the node's family order
	// HostsFile is the node's own hosts file, which hostNetwork pods get;
	// nil means DefaultNodeHosts(Name).
	HostsFile []byte
}
