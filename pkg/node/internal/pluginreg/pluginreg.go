// Package pluginreg is the emulated kubelet's plugin manager for CSI
// drivers: what pkg/kubelet/pluginmanager (the plugin watcher and its
// reconciler) and the CSI volume plugin's RegistrationHandler
// (pkg/volume/csi/csi_plugin.go) do. At start the node's CSINode is made
// with the kubelet's migrated-plugins annotation; then, when a socket
// appears in the node's plugins_registry directory, the watcher calls its
// GetInfo (pluginregistration v1), validates the plugin as the CSI
// handler does, asks the driver's endpoint NodeGetInfo and records the
// driver in the Node's csi.volume.kubernetes.io/nodeid annotation and in
// the CSINode's spec.drivers — through upstream's nodeinfomanager, called
// as a library — and tells the plugin with NotifyRegistrationStatus. When
// the socket goes, the driver is uninstalled again.
//
// The sockets are the node's unixsock.Namespace: the one its hostPath
// volumes and HostProcess containers reach, where the registrar binds
// <driver>-reg.sock and the driver its endpoint.
package pluginreg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/apimachinery/pkg/types"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	csitranslationplugins "k8s.io/csi-translation-lib/plugins"
	"k8s.io/klog/v2"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	"k8s.io/kubernetes/pkg/volume"
	"k8s.io/kubernetes/pkg/volume/csi/nodeinfomanager"

	"github.com/winkube/winkube/pkg/emu/unixsock"
)

// The kubelet's timeouts: operation_generator.go's dial and notify,
// csi_plugin.go's csiTimeout for NodeGetInfo.
const (
	dialTimeout   = 10 * time.Second
	infoTimeout   = time.Second
	notifyTimeout = 5 * time.Second
	csiTimeout    = 2 * time.Minute
)

// RegistryDir is the kubelet's plugin registration directory under its
// root directory (/var/lib/kubelet; c:\var\lib\kubelet on Windows).
func RegistryDir(windows bool) string {
	if windows {
		return `C:\var\lib\kubelet\plugins_registry`
	}
	return "/var/lib/kubelet/plugins_registry"
}

// Config is what the plugin manager of one node needs.
type Config struct {
	// Client is the node's client of the API (the kubelet's identity:
	// it patches its Node and writes its CSINode).
	Client kubernetes.Interface
	// NodeName is the Node's name.
	NodeName string
	// Sockets is the node's socket namespace.
	Sockets *unixsock.Namespace
	// Dir is the registration directory; RegistryDir by default.
	Dir string
	// Logger receives the kubelet's lines (klog.Background by default).
	Logger *klog.Logger
}

// Manager is one node's plugin manager.
type Manager struct {
	cfg Config
	log klog.Logger
	nim nodeinfomanager.Interface

	queue chan unixsock.Event

	mu      sync.Mutex
	drivers map[string]driver // by name: csiDrivers
	plugins map[string]plugin // by registration socket: the actual state of the world
	ready   chan struct{}
}

type driver struct {
	endpoint string
	version  *utilversion.Version
}

type plugin struct{ name, endpoint string }

// Start initialises the node's CSINode and starts watching the
// registration directory until ctx is done. It returns at once; Ready is
// closed when the CSINode has been initialised (the kubelet holds its
// Ready condition until then).
func Start(ctx context.Context, cfg Config) *Manager {
	if cfg.Dir == "" {
		cfg.Dir = RegistryDir(cfg.Sockets.Windows())
	}
	log := klog.Background()
	if cfg.Logger != nil {
		log = *cfg.Logger
	}
	m := &Manager{
		cfg: cfg, log: log,
		queue:   make(chan unixsock.Event, 64),
		drivers: map[string]driver{},
		plugins: map[string]plugin{},
		ready:   make(chan struct{}),
	}
	m.nim = nodeinfomanager.NewNodeInfoManager(types.NodeName(cfg.NodeName), kubeHost{client: cfg.Client}, migratedPlugins())
	go m.run(ctx)
	return m
}

// Ready is closed once the CSINode is initialised.
func (m *Manager) Ready() <-chan struct{} { return m.ready }

// Drivers are the registered drivers' endpoints by name.
func (m *Manager) Drivers() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	for n, d := range m.drivers {
		out[n] = d.endpoint
	}
	return out
}

// Endpoint is a registered driver's endpoint: what the kubelet's CSI
// client dials (csi_client.go's newCsiDriverClient).
func (m *Manager) Endpoint(name string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.drivers[name]
	return d.endpoint, ok
}

// migratedPlugins is csi_plugin.go's Init: every in-tree plugin with CSI
// migration, all on since their features went GA.
func migratedPlugins() map[string](func() bool) {
	on := func() bool { return true }
	return map[string](func() bool){
		csitranslationplugins.GCEPDInTreePluginName:     on,
		csitranslationplugins.AWSEBSInTreePluginName:    on,
		csitranslationplugins.CinderInTreePluginName:    on,
		csitranslationplugins.AzureDiskInTreePluginName: on,
		csitranslationplugins.AzureFileInTreePluginName: on,
		csitranslationplugins.VSphereInTreePluginName:   on,
		csitranslationplugins.PortworxVolumePluginName:  on,
	}
}

// kubeHost is the volume host nodeinfomanager needs: its kube client.
type kubeHost struct {
	volume.VolumeHost
	client kubernetes.Interface
}

func (h kubeHost) GetKubeClient() kubernetes.Interface { return h.client }

func (m *Manager) run(ctx context.Context) {
	m.initializeCSINode(ctx)
	close(m.ready)
	stop := m.cfg.Sockets.Watch(m.cfg.Dir, func(e unixsock.Event) {
		select {
		case m.queue <- e:
		case <-ctx.Done():
		}
	})
	defer stop()
	retry := map[string]time.Duration{}
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-m.queue:
			if e.Bound {
				// A new socket at a registered path is a new plugin:
				// the old one is deregistered first.
				m.unregister(e.Path)
				if err := m.register(ctx, e.Path); err != nil {
					m.log.Error(err, "OperationExecutor.RegisterPlugin failed", "plugin", e.Path)
					retry[e.Path] = 500 * time.Millisecond
					timer = time.After(retry[e.Path])
				} else {
					delete(retry, e.Path)
				}
			} else {
				delete(retry, e.Path)
				m.unregister(e.Path)
			}
		case <-timer:
			timer = nil
			for p, d := range retry {
				if !m.cfg.Sockets.Exists(p) || m.registered(p) {
					delete(retry, p)
					continue
				}
				if err := m.register(ctx, p); err != nil {
					m.log.Error(err, "OperationExecutor.RegisterPlugin failed", "plugin", p)
					retry[p] = min(2*d, 2*time.Minute+2*time.Second)
				} else {
					delete(retry, p)
				}
			}
			for _, d := range retry {
				timer = time.After(d)
				break
			}
		}
	}
}

// initializeCSINode is csi_plugin.go's initializeCSINode, with its
// backoff (6 steps over about 140 s), then tried again every minute: a
// kubelet that fails it exits and is restarted.
func (m *Manager) initializeCSINode(ctx context.Context) {
	backoff := wait.Backoff{Steps: 6, Duration: 30 * time.Millisecond, Factor: 8.0, Jitter: 0.1}
	for ctx.Err() == nil {
		err := wait.ExponentialBackoffWithContext(ctx, backoff, func(context.Context) (bool, error) {
			m.log.V(4).Info("Initializing migrated drivers on CSINode")
			if err := m.nim.InitializeCSINodeWithAnnotation(); err != nil {
				m.log.Error(err, "Failed to initialize CSINode")
				return false, nil
			}
			return true, nil
		})
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Minute):
		}
	}
}

func (m *Manager) registered(socket string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.plugins[socket]
	return ok
}

// dial is a gRPC client of a node socket.
func (m *Manager) dial(path string) (*grpc.ClientConn, error) {
	return grpc.NewClient("passthrough:///"+path,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return m.cfg.Sockets.Dial(ctx, path)
		}))
}

// register is operation_generator.go's GenerateRegisterPluginFunc with
// the CSI handler's ValidatePlugin and RegisterPlugin.
func (m *Manager) register(ctx context.Context, socketPath string) error {
	conn, err := m.dial(socketPath)
	if err != nil {
		return fmt.Errorf("RegisterPlugin error -- dial failed at socket %s, err: %v", socketPath, err)
	}
	defer conn.Close()
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	c, err := m.cfg.Sockets.Dial(dctx, socketPath)
	cancel()
	if err != nil {
		return fmt.Errorf("RegisterPlugin error -- dial failed at socket %s, err: %v", socketPath, err)
	}
	c.Close()
	client := registerapi.NewRegistrationClient(conn)
	ictx, cancel := context.WithTimeout(ctx, infoTimeout)
	info, err := client.GetInfo(ictx, &registerapi.InfoRequest{})
	cancel()
	if err != nil {
		return fmt.Errorf("RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket %s, err: %v", socketPath, err)
	}
	if info.Type != registerapi.CSIPlugin {
		// The DRA handler is not emulated.
		msg := fmt.Sprintf("RegisterPlugin error -- no handler registered for plugin type: %s at socket %s", info.Type, socketPath)
		if err := m.notify(ctx, client, false, msg); err != nil {
			return fmt.Errorf("RegisterPlugin error -- failed to send error at socket %s, err: %v", socketPath, err)
		}
		return errors.New(msg)
	}
	if info.Endpoint == "" {
		info.Endpoint = socketPath
	}
	m.log.Info(csiLog("Trying to validate a new CSI Driver with name: %s endpoint: %s versions: %s", info.Name, info.Endpoint, strings.Join(info.SupportedVersions, ",")))
	if _, err := m.validateVersions("ValidatePlugin", info.Name, info.SupportedVersions); err != nil {
		err = fmt.Errorf("validation failed for CSI Driver %s at endpoint %s: %v", info.Name, info.Endpoint, err)
		if err := m.notify(ctx, client, false, fmt.Sprintf("RegisterPlugin error -- plugin validation failed with err: %v", err)); err != nil {
			return fmt.Errorf("RegisterPlugin error -- failed to send error at socket %s, err: %v", socketPath, err)
		}
		return errors.New("RegisterPlugin error -- pluginHandler.ValidatePluginFunc failed")
	}
	m.mu.Lock()
	m.plugins[socketPath] = plugin{name: info.Name, endpoint: info.Endpoint}
	m.mu.Unlock()
	if err := m.registerPlugin(ctx, info.Name, info.Endpoint, info.SupportedVersions); err != nil {
		m.mu.Lock()
		delete(m.plugins, socketPath)
		m.mu.Unlock()
		return m.notify(ctx, client, false, fmt.Sprintf("RegisterPlugin error -- plugin registration failed with err: %v", err))
	}
	if err := m.notify(ctx, client, true, ""); err != nil {
		m.mu.Lock()
		delete(m.plugins, socketPath)
		m.mu.Unlock()
		m.deRegisterPlugin(info.Name, info.Endpoint)
		return fmt.Errorf("RegisterPlugin error -- failed to send registration status at socket %s, err: %v", socketPath, err)
	}
	return nil
}

func (m *Manager) notify(ctx context.Context, client registerapi.RegistrationClient, registered bool, errStr string) error {
	ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	if _, err := client.NotifyRegistrationStatus(ctx, &registerapi.RegistrationStatus{PluginRegistered: registered, Error: errStr}); err != nil {
		return fmt.Errorf("%s: %w", errStr, err)
	}
	if errStr != "" {
		return errors.New(errStr)
	}
	return nil
}

// csiLog is csi_util.go's log: the CSI plugin's name first.
func csiLog(msg string, parts ...any) string {
	return fmt.Sprintf("kubernetes.io/csi: "+msg, parts...)
}

// validateVersions is the CSI handler's: a 1.x (or 0.x) version, higher
// than a driver of the name registered before.
func (m *Manager) validateVersions(caller, name string, versions []string) (*utilversion.Version, error) {
	if len(versions) == 0 {
		return nil, errors.New(csiLog("%s for CSI driver %q failed. Plugin returned an empty list for supported versions", caller, name))
	}
	v, err := utilversion.HighestSupportedVersion(versions)
	if err != nil {
		return nil, errors.New(csiLog("%s for CSI driver %q failed. None of the versions specified %q are supported. err=%v", caller, name, versions, err))
	}
	m.mu.Lock()
	existing, ok := m.drivers[name]
	m.mu.Unlock()
	if ok && !existing.version.LessThan(v) {
		return nil, errors.New(csiLog("%s for CSI driver %q failed. Another driver with the same name is already registered with a higher supported version: %q", caller, name, existing.version))
	}
	return v, nil
}

// registerPlugin is the CSI handler's RegisterPlugin: the driver kept by
// name, its NodeGetInfo, and the node's objects updated.
func (m *Manager) registerPlugin(ctx context.Context, name, endpoint string, versions []string) error {
	m.log.Info(csiLog("Register new plugin with name: %s at endpoint: %s", name, endpoint))
	v, err := m.validateVersions("RegisterPlugin", name, versions)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.drivers[name] = driver{endpoint: endpoint, version: v}
	m.mu.Unlock()
	conn, err := m.dial(endpoint)
	if err != nil {
		return err
	}
	defer conn.Close()
	cctx, cancel := context.WithTimeout(ctx, csiTimeout)
	defer cancel()
	rsp, err := csi.NewNodeClient(conn).NodeGetInfo(cctx, &csi.NodeGetInfoRequest{})
	if err != nil {
		if uerr := m.unregisterDriver(name); uerr != nil {
			m.log.Error(nil, csiLog("registrationHandler.RegisterPlugin failed to unregister plugin due to previous error: %v", uerr))
		}
		return err
	}
	var topology map[string]string
	if t := rsp.GetAccessibleTopology(); t != nil {
		topology = t.Segments
	}
	if err := m.nim.InstallCSIDriver(name, rsp.GetNodeId(), rsp.GetMaxVolumesPerNode(), topology); err != nil {
		if uerr := m.unregisterDriver(name); uerr != nil {
			m.log.Error(nil, csiLog("registrationHandler.RegisterPlugin failed to unregister plugin due to previous error: %v", uerr))
		}
		return err
	}
	return nil
}

func (m *Manager) unregisterDriver(name string) error {
	m.mu.Lock()
	delete(m.drivers, name)
	m.mu.Unlock()
	if err := m.nim.UninstallCSIDriver(name); err != nil {
		return errors.New(csiLog("Error uninstalling CSI driver: %v", err))
	}
	return nil
}

func (m *Manager) deRegisterPlugin(name, endpoint string) {
	m.log.Info(csiLog("registrationHandler.DeRegisterPlugin request for plugin %s, endpoint %s", name, endpoint))
	if err := m.unregisterDriver(name); err != nil {
		m.log.Error(nil, csiLog("registrationHandler.DeRegisterPlugin failed: %v", err))
	}
}

// unregister is GenerateUnregisterPluginFunc for the plugin registered at
// socketPath, if any.
func (m *Manager) unregister(socketPath string) {
	m.mu.Lock()
	p, ok := m.plugins[socketPath]
	delete(m.plugins, socketPath)
	m.mu.Unlock()
	if ok {
		m.deRegisterPlugin(p.name, p.endpoint)
	}
}
