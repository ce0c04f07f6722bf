package kubeletenv

import (
	"context"
	"errors"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/kubernetes/pkg/volume"
	"k8s.io/kubernetes/pkg/volume/configmap"
	"k8s.io/kubernetes/pkg/volume/downwardapi"
	"k8s.io/kubernetes/pkg/volume/secret"
	volumeutil "k8s.io/kubernetes/pkg/volume/util"
)

// defaultMode is what the API server defaults defaultMode to for
// configMap, secret, downwardAPI and projected volumes (0644 for all).
const defaultMode int32 = 0644

// ErrNoContent is returned by VolumeFiles for volume kinds whose content
// does not come from API objects (emptyDir, hostPath, PVCs, images...).
var ErrNoContent = errors.New("volume has no kubelet-written content")

// VolumeFiles computes a configMap, secret, downwardAPI or projected
// volume as its plugin's SetUp writes it (pkg/volume/{configmap,secret,
// downwardapi,projected}): items select and rename keys, modes default to
// defaultMode, optional sources may be missing, and fsGroup sets the
// group and adds group read. Errors are the plugins' (the kubelet reports
// them as `MountVolume.SetUp failed for volume "<name>" : <error>`).
// now is the write time that names the timestamp directory.
func VolumeFiles(ctx context.Context, objs Objects, pod *corev1.Pod, vol corev1.Volume, node Node, now time.Time) (Files, error) {
	var payload map[string]volumeutil.FileProjection
	var err error
	switch s := vol.VolumeSource; {
	case s.ConfigMap != nil:
		payload, err = configMapPayload(ctx, objs, pod.Namespace, s.ConfigMap.Name, s.ConfigMap.Items, s.ConfigMap.Optional, modeOr(s.ConfigMap.DefaultMode))
	case s.Secret != nil:
		payload, err = secretPayload(ctx, objs, pod.Namespace, s.Secret.SecretName, s.Secret.Items, s.Secret.Optional, modeOr(s.Secret.DefaultMode))
	case s.DownwardAPI != nil:
		payload, err = downwardapi.CollectData(s.DownwardAPI.Items, pod, allocatableHost{alloc: node.Allocatable}, modeOr(s.DownwardAPI.DefaultMode))
	case s.Projected != nil:
		payload, err = projectedPayload(ctx, objs, pod, s.Projected, node)
	default:
		return Files{}, ErrNoContent
	}
	if err != nil {
		return Files{}, err
	}
	return buildFiles(pod, vol.Name, payload, node.Windows, now)
}

func configMapPayload(ctx context.Context, objs Objects, ns, name string, items []corev1.KeyToPath, optional *bool, mode *int32) (map[string]volumeutil.FileProjection, error) {
	cm, err := objs.ConfigMap(ctx, ns, name)
	if err != nil {
		if !apierrors.IsNotFound(err) || !isTrue(optional) {
			return nil, notFound(err, "configmap", name)
		}
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	return configmap.MakePayload(items, cm, mode, isTrue(optional))
}

func secretPayload(ctx context.Context, objs Objects, ns, name string, items []corev1.KeyToPath, optional *bool, mode *int32) (map[string]volumeutil.FileProjection, error) {
	s, err := objs.Secret(ctx, ns, name)
	if err != nil {
		if !apierrors.IsNotFound(err) || !isTrue(optional) {
			return nil, notFound(err, "secret", name)
		}
		s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	// secret.MakePayload logs a missing key through klog before failing;
	// the same check here keeps the node's log quiet.
	for _, it := range items {
		if _, ok := s.Data[it.Key]; !ok && !isTrue(optional) {
			return nil, fmt.Errorf("references non-existent secret key: %s", it.Key)
		}
	}
	return secret.MakePayload(items, s, mode, isTrue(optional))
}

// projectedPayload is the projected plugin's collectData: every source is
// tried, failures are aggregated, later sources overwrite earlier paths.
func projectedPayload(ctx context.Context, objs Objects, pod *corev1.Pod, src *corev1.ProjectedVolumeSource, node Node) (map[string]volumeutil.FileProjection, error) {
	mode := modeOr(src.DefaultMode)
	fsUser := volumeutil.FsUserFrom(pod)
	var fsGroup *int64
	if pod.Spec.SecurityContext != nil {
		fsGroup = pod.Spec.SecurityContext.FSGroup
	}
	payload := map[string]volumeutil.FileProjection{}
	var errs []error
	for _, s := range src.Sources {
		var part map[string]volumeutil.FileProjection
		var err error
		switch {
		case s.Secret != nil:
			part, err = secretPayload(ctx, objs, pod.Namespace, s.Secret.Name, s.Secret.Items, s.Secret.Optional, mode)
		case s.ConfigMap != nil:
			part, err = configMapPayload(ctx, objs, pod.Namespace, s.ConfigMap.Name, s.ConfigMap.Items, s.ConfigMap.Optional, mode)
		case s.DownwardAPI != nil:
			part, err = downwardapi.CollectData(s.DownwardAPI.Items, pod, allocatableHost{alloc: node.Allocatable}, mode)
		case s.ServiceAccountToken != nil:
			part, err = tokenPayload(ctx, objs, pod, s.ServiceAccountToken, *mode, fsUser, fsGroup)
		case s.ClusterTrustBundle != nil:
			err = fmt.Errorf("clusterTrustBundle projections are not supported by this node")
		case s.PodCertificate != nil:
			err = fmt.Errorf("podCertificate projections are not supported by this node")
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for k, v := range part {
			payload[k] = v
		}
	}
	return payload, utilerrors.NewAggregate(errs)
}

// tokenPayload requests a token bound to the pod; the file is 0600 and
// owned by the pods' common runAsUser when the pod has an fsGroup or such
// a user (projected.go collectData).
func tokenPayload(ctx context.Context, objs Objects, pod *corev1.Pod, tp *corev1.ServiceAccountTokenProjection, mode int32, fsUser, fsGroup *int64) (map[string]volumeutil.FileProjection, error) {
	if fsUser != nil || fsGroup != nil {
		mode = 0600
	}
	var auds []string
	if tp.Audience != "" {
		auds = []string{tp.Audience}
	}
	tok, err := objs.ServiceAccountToken(ctx, pod.Namespace, pod.Spec.ServiceAccountName, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{
			Audiences:         auds,
			ExpirationSeconds: tp.ExpirationSeconds,
			BoundObjectRef: &authenticationv1.BoundObjectReference{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
			},
		},
	})
	if err != nil {
		return nil, err
	}
	return map[string]volumeutil.FileProjection{tp.Path: {Data: []byte(tok), Mode: mode, FsUser: fsUser}}, nil
}

func modeOr(m *int32) *int32 {
	if m != nil {
		return m
	}
	d := defaultMode
	return &d
}

// allocatableHost is the one VolumeHost method downwardapi.CollectData
// calls (GetNodeAllocatable, for resourceFieldRef items); any other call
// would hit the nil embedded interface, and CollectData makes none.
type allocatableHost struct {
	volume.VolumeHost
	alloc corev1.ResourceList
}

func (h allocatableHost) GetNodeAllocatable() (corev1.ResourceList, error) {
	return h.alloc, nil
}
