package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	listerscorev1 "k8s.io/client-go/listers/core/v1"
	listersstoragev1 "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Events on claims, as sig-storage-lib-external-provisioner words them.
const (
	eventProvisioning          = "Provisioning"
	eventProvisioningSucceeded = "ProvisioningSucceeded"
	eventProvisioningFailed    = "ProvisioningFailed"
	eventVolumeFailedDelete    = "VolumeFailedDelete"
)

const (
	workers = 2
	// resync re-examines every claim and volume now and then, in case an
	// event was missed.
	resync = 10 * time.Minute
	// betaStorageClassAnnotation is the pre-GA way to name a claim's class,
	// still honoured by the PV controller.
	betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"
)

// Options configure a provisioner.
type Options struct {
	// Identity tells this provisioner's events apart: their source is
	// "winkube.io/local-path_<Identity>". Default "<hostname>_<random UUID>",
	// as the external-provisioner library makes it.
	Identity string
}

// Provisioner provisions volumes of the classes whose provisioner is
// ProvisionerName and deletes them when their claims are gone.
type Provisioner struct {
	client      kubernetes.Interface
	factory     informers.SharedInformerFactory
	claims      listerscorev1.PersistentVolumeClaimLister
	volumes     listerscorev1.PersistentVolumeLister
	classes     listersstoragev1.StorageClassLister
	queue       workqueue.TypedRateLimitingInterface[string]
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder

	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once

	mu sync.Mutex
	// refused remembers the claim versions already refused, so that a
	// resync does not repeat the ProvisioningFailed event.
	refused map[types.UID]string
}

// Start watches claims, volumes and classes and starts provisioning. ctx
// bounds the start only (the wait for the caches); the provisioner runs
// until Close. Claims that were handed over while no provisioner ran are
// provisioned at once, and volumes released meanwhile are deleted.
func Start(ctx context.Context, client kubernetes.Interface, opts Options) (*Provisioner, error) {
	if client == nil {
		return nil, errors.New("start provisioner: client is nil")
	}
	id := opts.Identity
	if id == "" {
		host, _ := os.Hostname()
		id = host + "_" + string(uuid.NewUUID())
	}
	p := &Provisioner{
		client:  client,
		factory: informers.NewSharedInformerFactory(client, resync),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "winkube-local-path"}),
		broadcaster: record.NewBroadcaster(),
		refused:     map[types.UID]string{},
	}
	p.recorder = p.broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: ProvisionerName + "_" + id})
	p.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	if err := p.watch(); err != nil {
		p.Close()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.factory.Start(runCtx.Done())
	for typ, ok := range p.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			p.Close()
			return nil, fmt.Errorf("start provisioner: sync %v cache: %w", typ, ctx.Err())
		}
	}
	for range workers {
		p.wg.Go(func() { p.work(runCtx) })
	}
	return p, nil
}

// watch wires the informers to the work queue.
func (p *Provisioner) watch() error {
	claims := p.factory.Core().V1().PersistentVolumeClaims()
	volumes := p.factory.Core().V1().PersistentVolumes()
	p.claims, p.volumes = claims.Lister(), volumes.Lister()
	p.classes = p.factory.Storage().V1().StorageClasses().Lister()
	enqueue := func(prefix string) cache.ResourceEventHandler {
		add := func(obj any) {
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				p.queue.Add(prefix + key)
			}
		}
		return cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, obj any) { add(obj) }}
	}
	if _, err := claims.Informer().AddEventHandler(enqueue("claim/")); err != nil {
		return fmt.Errorf("watch claims: %w", err)
	}
	if _, err := volumes.Informer().AddEventHandler(enqueue("volume/")); err != nil {
		return fmt.Errorf("watch volumes: %w", err)
	}
	return nil
}

// Close stops the provisioner and waits for its workers. Volumes stay.
func (p *Provisioner) Close() {
	p.closeOnce.Do(func() {
		if p.cancel != nil {
			p.cancel()
		}
		p.queue.ShutDown()
		p.factory.Shutdown()
		p.wg.Wait()
		p.broadcaster.Shutdown()
	})
}

// work processes keys until the queue shuts down; failures come back with
// the controller rate limiter's back-off.
func (p *Provisioner) work(ctx context.Context) {
	for {
		key, quit := p.queue.Get()
		if quit {
			return
		}
		if err := p.sync(ctx, key); err != nil && ctx.Err() == nil {
			klog.V(2).InfoS("local-path provisioner: will retry", "key", key, "err", err)
			p.queue.AddRateLimited(key)
		} else {
			p.queue.Forget(key)
		}
		p.queue.Done(key)
	}
}

func (p *Provisioner) sync(ctx context.Context, key string) error {
	kind, rest, _ := strings.Cut(key, "/")
	if kind == "volume" {
		return p.syncVolume(ctx, rest)
	}
	ns, name, err := cache.SplitMetaNamespaceKey(rest)
	if err != nil {
		return nil // not a key we made; nothing to retry
	}
	return p.syncClaim(ctx, ns, name)
}

// syncClaim provisions the volume of a claim handed to this provisioner.
func (p *Provisioner) syncClaim(ctx context.Context, ns, name string) error {
	claim, err := p.claims.PersistentVolumeClaims(ns).Get(name)
	if err != nil {
		return nil // deleted; its volume, if any, is released and handled there
	}
	class, err := p.classes.Get(claimClass(claim))
	if err != nil || !wantsVolume(claim, class) {
		return nil
	}
	if p.provisioned(ctx, VolumeName(claim)) {
		return nil // the PV controller binds it
	}
	if err := checkClaim(claim); err != nil {
		p.refuse(claim, err)
		return nil
	}
	p.recorder.Eventf(claim, corev1.EventTypeNormal, eventProvisioning,
		"External provisioner is provisioning volume for claim %q", ns+"/"+name)
	selected := claim.Annotations[AnnotationSelectedNode]
	node, err := p.client.CoreV1().Nodes().Get(ctx, selected, metav1.GetOptions{})
	if err != nil {
		err = fmt.Errorf("get selected node %q: %w", selected, err)
		p.recorder.Event(claim, corev1.EventTypeWarning, eventProvisioningFailed, err.Error())
		return err
	}
	pv := newVolume(claim, class, node)
	_, err = p.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil // created by an earlier pass the lister has not seen yet
	}
	if err != nil {
		err = fmt.Errorf("create volume %s: %w", pv.Name, err)
		p.recorder.Event(claim, corev1.EventTypeWarning, eventProvisioningFailed, err.Error())
		return err
	}
	p.recorder.Eventf(claim, corev1.EventTypeNormal, eventProvisioningSucceeded, "Successfully provisioned volume %s", pv.Name)
	return nil
}

// provisioned reports whether the volume exists. The API is asked when the
// lister does not know it: the lister may not have seen a volume created a
// moment ago, and the claim's events must not be repeated.
func (p *Provisioner) provisioned(ctx context.Context, name string) bool {
	if _, err := p.volumes.Get(name); err == nil {
		return true
	}
	_, err := p.client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
	return err == nil
}

// refuse reports once per claim version why the claim cannot be served.
func (p *Provisioner) refuse(claim *corev1.PersistentVolumeClaim, err error) {
	p.mu.Lock()
	seen := p.refused[claim.UID] == claim.ResourceVersion
	p.refused[claim.UID] = claim.ResourceVersion
	p.mu.Unlock()
	if !seen {
		p.recorder.Event(claim, corev1.EventTypeWarning, eventProvisioningFailed, err.Error())
	}
}

// syncVolume deletes a released volume of the Delete reclaim policy.
func (p *Provisioner) syncVolume(ctx context.Context, name string) error {
	pv, err := p.volumes.Get(name)
	if err != nil || !releasedVolume(pv) {
		return nil
	}
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &pv.UID}}
	err = p.client.CoreV1().PersistentVolumes().Delete(ctx, name, opts)
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		p.recorder.Event(pv, corev1.EventTypeWarning, eventVolumeFailedDelete, err.Error())
		return fmt.Errorf("delete volume %s: %w", name, err)
	}
	return nil
}

// claimClass is the class a claim asks for, GA field or beta annotation.
func claimClass(claim *corev1.PersistentVolumeClaim) string {
	if c, ok := claim.Annotations[betaStorageClassAnnotation]; ok {
		return c
	}
	if claim.Spec.StorageClassName != nil {
		return *claim.Spec.StorageClassName
	}
	return ""
}
