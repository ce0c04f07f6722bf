// Package csimount is the emulated kubelet's CSI volume plugin at mount
// time (k8s.io/kubernetes pkg/volume/csi) for a driver registered with
// the node's plugin manager (pluginreg): MountDevice stages a persistent
// volume through the driver's NodeStageVolume when its node service has
// STAGE_UNSTAGE_VOLUME (csi_attacher.go), SetUp publishes a volume at the
// pod's target path through NodePublishVolume (csi_mounter.go), and
// TearDown unpublishes a pod's volumes and unstages those no other pod
// uses. The driver's answer is the volume's: its error is the mount's
// event, and what it writes at the target path in the node's filesystem
// is what the pod's containers see there (Published).
//
// It is given what it needs (Config): the API for secrets, the registered
// drivers' endpoints, a dialer of the node's sockets and the node's disk.
package csimount

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/rootfs"
)

// csiTimeout is csi_plugin.go's: every CSI call of a mount or unmount
// gets two minutes.
const csiTimeout = 2 * time.Minute

// Kubelet root directories (--root-dir): /var/lib/kubelet, and on Windows
// nodes c:\var\lib\kubelet, where the CSI drivers' charts mount the pods'
// and plugins' directories from.
const (
	linuxRoot   = "/var/lib/kubelet"
	windowsRoot = `c:\var\lib\kubelet`
)

// Config is what the CSI volume plugin of one node uses.
type Config struct {
	// Client reads the secrets volumes name.
	Client kubernetes.Interface
	// Windows: the node's paths are Windows paths.
	Windows bool
	// Endpoint is a registered driver's endpoint (its socket in the
	// node's namespace); false when the driver is not registered.
	Endpoint func(driver string) (string, bool)
	// Dial connects to a socket of the node.
	Dial func(ctx context.Context, path string) (net.Conn, error)
	// Disk is the node's filesystem, where target and staging paths are.
	Disk func() *vfs.Volume
	// Timeout bounds each operation's calls; csiTimeout when zero.
	Timeout time.Duration
	// Logger receives the kubelet's lines (klog.Background by default).
	Logger *klog.Logger
}

// Volume is one CSI volume of a pod, as the kubelet's volume spec has it.
type Volume struct {
	// Name is the pod's name for the volume; Spec the spec's name, the
	// volume's own for an inline volume, the PersistentVolume's otherwise.
	Name, Spec string
	// Inline is an inline (ephemeral) volume's source; PV the bound
	// persistent volume, whose Spec.CSI is set.
	Inline *corev1.CSIVolumeSource
	PV     *corev1.PersistentVolume
	// ReadOnly is the pod's (or the claim reference's) readOnly.
	ReadOnly bool
	// Driver is the driver's CSIDriver object; nil when there is none.
	Driver *storagev1.CSIDriver
	// ModeError is why the CSIDriver does not allow the volume's
	// lifecycle mode, checked after MountDevice; empty when it does.
	ModeError string
}

func (v Volume) driverName() string {
	if v.Inline != nil {
		return v.Inline.Driver
	}
	return v.PV.Spec.CSI.Driver
}

// Mounter is the CSI volume plugin of one node: what it has staged and
// published.
type Mounter struct {
	cfg Config
	log klog.Logger

	mu sync.Mutex
	// pods are the volumes published (or whose publish is uncertain) by
	// pod and pod volume name.
	pods map[types.UID]map[string]publication
	// staged are the staged persistent volumes by staging path.
	staged map[string]*staging
	// ops are the mount operations under way or last finished.
	ops map[opKey]*operation
	// tearing are the pods whose volumes are being torn down.
	tearing map[types.UID]bool
}

type publication struct {
	driver, handle, target string
	done                   bool // false: the call's outcome is unknown (timeout, ...)
}

type staging struct {
	driver, handle string
	done           bool // false: the call's outcome is unknown
	pods           map[types.UID]bool
}

// New is the CSI volume plugin of a node.
func New(cfg Config) *Mounter {
	if cfg.Timeout == 0 {
		cfg.Timeout = csiTimeout
	}
	log := klog.Background()
	if cfg.Logger != nil {
		log = *cfg.Logger
	}
	return &Mounter{cfg: cfg, log: log, pods: map[types.UID]map[string]publication{}, staged: map[string]*staging{}, ops: map[opKey]*operation{}, tearing: map[types.UID]bool{}}
}

// Registered reports whether the driver is registered with the node's
// kubelet, with an endpoint to call.
func (m *Mounter) Registered(driver string) bool {
	_, ok := m.cfg.Endpoint(driver)
	return ok
}

// Published is the node path where a plugin published the pod's volume
// name; false if it has not.
func (m *Mounter) Published(pod types.UID, name string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.pods[pod][name]
	if !ok || !p.done {
		return "", false
	}
	return p.target, true
}

// root is the kubelet's root directory joined with parts, in the node's
// path syntax.
func (m *Mounter) root(parts ...string) string {
	if m.cfg.Windows {
		return strings.Join(append([]string{windowsRoot}, parts...), `\`)
	}
	return strings.Join(append([]string{linuxRoot}, parts...), "/")
}

// TargetPath is csi_mounter.go's GetPath: the pod's volume directory of
// the CSI plugin (kubernetes.io~csi), the spec's name escaped, "mount".
func (m *Mounter) TargetPath(pod types.UID, spec string) string {
	return m.root("pods", string(pod), "volumes", "kubernetes.io~csi", strings.ReplaceAll(spec, "/", "~"), "mount")
}

// StagingPath is csi_attacher.go's makeDeviceMountPath: the plugin's
// directory, the driver, the SHA-256 of the volume handle, "globalmount".
func (m *Mounter) StagingPath(driver, handle string) string {
	return m.root("plugins", "kubernetes.io", "csi", driver, fmt.Sprintf("%x", sha256.Sum256([]byte(handle))), "globalmount")
}

// inlineHandle is csi_mounter.go's makeVolumeHandle for an inline
// volume: csi-<sha256(pod UID, volume name)>.
func inlineHandle(pod types.UID, spec string) string {
	return fmt.Sprintf("csi-%x", sha256.Sum256([]byte(string(pod)+spec)))
}

// conn is a gRPC client of a registered driver's endpoint, made for one
// operation as csi_client.go's newCsiDriverClient does.
func (m *Mounter) conn(driver string) (*grpc.ClientConn, error) {
	endpoint, ok := m.cfg.Endpoint(driver)
	if !ok {
		return nil, fmt.Errorf("driver name %s not found in the list of registered CSI drivers", driver)
	}
	return grpc.NewClient("passthrough:///"+endpoint,
		grpc.WithAuthority("localhost"),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return m.cfg.Dial(ctx, endpoint)
		}))
}

// csiLog is csi_util.go's log: the CSI plugin's name first.
func csiLog(msg string, parts ...any) string {
	return fmt.Sprintf("kubernetes.io/csi: "+msg, parts...)
}

// mkdirAll makes a node directory (a path of the node's syntax).
func (m *Mounter) mkdirAll(dir string) error {
	return m.cfg.Disk().MkdirAll(rootfs.HostRel(dir), 0o750)
}

// removeDir is removeMountDir: the directory goes if the plugin left it
// empty (a real one is no longer a mount point), then its parent.
func (m *Mounter) removeDir(dir string, parent bool) {
	disk := m.cfg.Disk()
	rel := rootfs.HostRel(dir)
	if err := disk.FS().Remove(disk.FS().Abs("/", rel)); err != nil {
		return
	}
	if parent {
		_ = disk.FS().Remove(disk.FS().Abs("/", rootfs.HostRel(parentDir(dir, m.cfg.Windows))))
	}
}

func parentDir(p string, windows bool) string {
	sep := "/"
	if windows {
		sep = `\`
	}
	if i := strings.LastIndex(p, sep); i > 0 {
		return p[:i]
	}
	return p
}
