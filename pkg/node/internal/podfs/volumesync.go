package podfs

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/node/internal/atomicwrite"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
	"github.com/winkube/winkube/pkg/node/internal/rootfs"
)

// VolumeSyncPeriod is the kubelet's syncFrequency (its /configz says
// so): a running pod is synced again this long after its last sync,
// jittered by up to half of it as the pod workers' resync is.
const (
	VolumeSyncPeriod = time.Minute
	volumeSyncJitter = 0.5
)

// volumeSync is when the pod's configMap, secret, downwardAPI and
// projected volumes are next written again from their sources. The
// kubelet's volume manager remounts those volumes on every pod sync:
// configMaps and secrets as its object cache has them, the downward API
// from the pod. A pod is synced on its sync period and whenever it
// changes, which for its volumes means its labels and annotations (the
// rest of what the downward API reads does not change on a running pod
// or is not written to files).
type volumeSync struct {
	at          time.Time
	labels      map[string]string
	annotations map[string]string
}

// Sync writes the pod's volumes made from API objects again when
// the sync period has passed or the pod's labels or annotations changed.
// Only the volumes a container has looked at exist; the others are made
// with the current content when first read.
func (p *Pod) Sync(ctx context.Context, pod *corev1.Pod) {
	p.mu.Lock()
	written := len(p.volFiles)
	p.mu.Unlock()
	s := &p.volumeSync
	if written == 0 {
		s.at = time.Time{}
		return
	}
	now := p.cfg.Clock.Now()
	metaChanged := !maps.Equal(pod.Labels, s.labels) || !maps.Equal(pod.Annotations, s.annotations)
	if now.Before(s.at) && !metaChanged {
		return
	}
	first := s.at.IsZero()
	s.at = now.Add(wait.Jitter(p.cfg.SyncPeriod, volumeSyncJitter))
	s.labels, s.annotations = pod.Labels, pod.Annotations
	if first {
		return // just written from the pod and objects as they are now
	}
	p.mu.Lock()
	names := slices.Sorted(maps.Keys(p.volFiles))
	p.mu.Unlock()
	for _, name := range names {
		p.rewriteVolume(ctx, pod, name)
	}
}

// rewriteVolume writes one volume again if its sources changed. A source
// that cannot be read (a non-optional ConfigMap deleted) leaves the last
// content in place, as the kubelet's failed remount does.
func (p *Pod) rewriteVolume(ctx context.Context, pod *corev1.Pod, name string) {
	vol, ok := rootfs.FindVolume(pod, name)
	if !ok {
		return
	}
	files, err := kubeletenv.VolumeFiles(ctx, p.Objects(), pod, vol, p.cfg.KubeletNode(), p.cfg.Clock.Now())
	if err != nil {
		return
	}
	windows := p.cfg.Windows
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.vols[name]
	old, written := p.volFiles[name]
	if ok && written && atomicwrite.Update(v, old, files, windows) {
		p.volFiles[name] = files
	}
}

// setVolFiles records what was written in a volume (p.mu held).
func (p *Pod) setVolFiles(name string, files kubeletenv.Files) {
	if p.volFiles == nil {
		p.volFiles = map[string]kubeletenv.Files{}
	}
	p.volFiles[name] = files
}

// SyncWake is when the pod's volumes are next due.
func (p *Pod) SyncWake() time.Time { return p.volumeSync.at }

// Objects is what the pod's environment and volumes are made of: the
// agent's view of the API, with the pod's own token cache.
func (p *Pod) Objects() kubeletenv.Objects {
	return podObjects{Objects: p.cfg.Objects, client: p.cfg.Client, tokens: &p.tokens, now: p.cfg.Clock.Now}
}

type podObjects struct {
	kubeletenv.Objects
	client kubernetes.Interface
	tokens *tokenCache
	now    func() time.Time
}

// tokenCache keeps a pod's service account tokens as the kubelet's token
// manager (pkg/kubelet/token) does, so that writing a projected volume
// again on every sync does not ask for a token every time: a token is
// asked for again once it is within 20 % of its requested lifetime of
// expiring, or 24 hours after it was issued.
type tokenCache struct {
	mu sync.Mutex
	m  map[string]cachedToken
}

type cachedToken struct {
	token     string
	refreshAt time.Time
}

// maxTokenAge is the token manager's maxTTL.
const maxTokenAge = 24 * time.Hour

func (o podObjects) ServiceAccountToken(ctx context.Context, ns, sa string, req *authenticationv1.TokenRequest) (string, error) {
	key := tokenKey(ns, sa, req)
	now := o.now()
	o.tokens.mu.Lock()
	t, ok := o.tokens.m[key]
	o.tokens.mu.Unlock()
	if ok && now.Before(t.refreshAt) {
		return t.token, nil
	}
	tr, err := o.client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, req, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	o.tokens.mu.Lock()
	defer o.tokens.mu.Unlock()
	if o.tokens.m == nil {
		o.tokens.m = map[string]cachedToken{}
	}
	o.tokens.m[key] = cachedToken{token: tr.Status.Token, refreshAt: tokenRefreshAt(now, tr)}
	return tr.Status.Token, nil
}

// tokenRefreshAt is when the token manager's requiresRefresh turns true
// for a token: 80 % of the requested lifetime before its expiry, or 24
// hours after it was issued, whichever comes first.
func tokenRefreshAt(now time.Time, tr *authenticationv1.TokenRequest) time.Time {
	exp := tr.Status.ExpirationTimestamp.Time
	if exp.IsZero() || tr.Spec.ExpirationSeconds == nil {
		return now // unknown lifetime: ask every time
	}
	ttl := time.Duration(*tr.Spec.ExpirationSeconds) * time.Second
	issued := exp.Add(-ttl)
	at := exp.Add(-ttl / 5)
	if byAge := issued.Add(maxTokenAge); byAge.Before(at) {
		at = byAge
	}
	return at
}

// tokenKey is the token manager's keyFunc: the service account, the
// audiences, the lifetime and the object the token is bound to.
func tokenKey(ns, sa string, req *authenticationv1.TokenRequest) string {
	var exp string
	if req.Spec.ExpirationSeconds != nil {
		exp = strconv.FormatInt(*req.Spec.ExpirationSeconds, 10)
	}
	var bound string
	if ref := req.Spec.BoundObjectRef; ref != nil {
		bound = ref.Kind + "/" + ref.Name + "/" + string(ref.UID)
	}
	return strings.Join([]string{ns, sa, strings.Join(req.Spec.Audiences, ","), exp, bound}, "|")
}
