package fluentbit

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/fluentbit/conf"
)

// kubeTagRegex is filter_kubernetes's KUBE_TAG_TO_REGEX: the kubelet's
// container log file name after the tag prefix.
var kubeTagRegex = regexp.MustCompile(`(?<pod_name>[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*)_(?<namespace_name>[^_]+)_(?<container_name>.+)-(?<docker_id>[a-z0-9]{64})\.log$`)

const serviceAccount = "/var/run/secrets/kubernetes.io/serviceaccount"

// kubeFilter is filter_kubernetes: each record whose tag names a
// container log file gets the pod's metadata from the API server,
// asked with the pod's service account through the pod network, under
// "kubernetes"; Merge_Log merges a JSON log's keys into the record.
type kubeFilter struct {
	prefix         string
	client         *http.Client
	base           *url.URL
	token          string
	labels, annots bool
	merge, keepLog bool
	mergeKey       string
	cache          map[string]*corev1.Pod // by namespace/name; nil: not found
	cacheAt        map[string]time.Time
	cacheTTL       time.Duration
	ready          bool
}

func (k *kubeFilter) init(f *filterInstance) error {
	sys := f.e.p.Sys
	def := "kube.var.log.containers."
	if sys.Windows {
		def = "kube.c.var.log.containers."
	}
	k.prefix = f.propOr("Kube_Tag_Prefix", def)
	k.labels = isTrue(f.propOr("Labels", "on"))
	k.annots = isTrue(f.propOr("Annotations", "on"))
	k.merge = isTrue(f.propOr("Merge_Log", "off"))
	k.keepLog = isTrue(f.propOr("Keep_Log", "on"))
	k.mergeKey, _ = f.prop("Merge_Log_Key")
	k.cache, k.cacheAt, k.cacheTTL = map[string]*corev1.Pod{}, map[string]time.Time{}, time.Minute
	raw := f.propOr("Kube_URL", "https://kubernetes.default.svc:443")
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("invalid kube_url %s", raw)
	}
	k.base = u
	port := u.Port()
	if port == "" {
		port = map[bool]string{true: "443", false: "80"}[u.Scheme == "https"]
	}
	https := 0
	if u.Scheme == "https" {
		https = 1
	}
	f.e.log.infof("%s https=%d host=%s port=%s", f.logPrefix("filter"), https, u.Hostname(), port)
	if isTrue(f.propOr("Use_Kubelet", "off")) {
		f.once("filter", "kubelet", levelWarn, "winkube: Use_Kubelet is not emulated; metadata comes from the API server")
	}
	tokenFile := f.propOr("Kube_Token_File", serviceAccount+"/token")
	caFile := f.propOr("Kube_CA_File", serviceAccount+"/ca.crt")
	nsFile := f.propOr("Kube_Meta_Namespace_File", serviceAccount+"/namespace")
	token, err := conf.ReadFile(sys, tokenFile)
	if err != nil {
		f.e.log.warnf("%s cannot open %s", f.logPrefix("filter"), tokenFile)
	} else {
		k.token = strings.TrimSpace(token)
		f.e.log.infof("%s  token updated", f.logPrefix("filter"))
	}
	pool := x509.NewCertPool()
	if ca, err := conf.ReadFile(sys, caFile); err == nil {
		pool.AppendCertsFromPEM([]byte(ca))
	}
	k.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext:     podDialer(f.e.p),
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: u.Hostname()},
		Proxy:           func(*http.Request) (*url.URL, error) { return nil, nil },
	}}
	ns, err := conf.ReadFile(sys, nsFile)
	if err != nil {
		f.e.log.warnf("%s cannot open %s", f.logPrefix("filter"), nsFile)
		f.e.log.infof("%s Fluent Bit not running in a POD", f.logPrefix("filter"))
		return nil
	}
	f.e.log.infof("%s local POD info OK", f.logPrefix("filter"))
	f.e.log.infof("%s testing connectivity with API server...", f.logPrefix("filter"))
	if _, err := k.pod(f, strings.TrimSpace(ns), sys.Hostname); err != nil {
		f.e.log.warnf("%s could not get meta for POD %s", f.logPrefix("filter"), sys.Hostname)
		return nil
	}
	f.e.log.infof("%s connectivity OK", f.logPrefix("filter"))
	return nil
}

// pod asks the API server for a pod; what it found is cached for a
// minute, a failure is asked again at the next record.
func (k *kubeFilter) pod(f *filterInstance, namespace, name string) (*corev1.Pod, error) {
	key := namespace + "/" + name
	if at, ok := k.cacheAt[key]; ok && time.Since(at) < k.cacheTTL {
		return k.cache[key], nil
	}
	u := *k.base
	u.Path = "/api/v1/namespaces/" + url.PathEscape(namespace) + "/pods/" + url.PathEscape(name)
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	if k.token != "" {
		req.Header.Set("Authorization", "Bearer "+k.token)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		f.e.log.errorf("%s kube api upstream connection error", f.logPrefix("filter"))
		f.e.log.debugf("%s %v", f.logPrefix("filter"), err)
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	f.e.log.debugf("%s Request (ns=%s, pod=%s) http_do=0, HTTP Status: %d", f.logPrefix("filter"), namespace, name, resp.StatusCode)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP status %d", resp.StatusCode)
	}
	pod := &corev1.Pod{}
	if err := json.Unmarshal(body, pod); err != nil {
		return nil, err
	}
	k.cache[key], k.cacheAt[key] = pod, time.Now()
	return pod, nil
}

func (k *kubeFilter) filter(f *filterInstance, r *record) bool {
	if len(r.tag) <= len(k.prefix) || !strings.HasPrefix(r.tag, k.prefix) {
		if len(r.tag) < len(k.prefix) {
			f.e.log.errorf("%s incoming record tag (%s) is shorter than kube_tag_prefix value (%s), skip filter", f.logPrefix("filter"), r.tag, k.prefix)
		}
		return true
	}
	m := kubeTagRegex.FindStringSubmatch(r.tag[len(k.prefix):])
	if m == nil {
		f.e.log.warnf("%s invalid pattern for given tag %s", f.logPrefix("filter"), r.tag)
		return true
	}
	podName, ns, ctr, id := m[1], m[2], m[3], m[4]
	meta := []field{{"pod_name", podName}, {"namespace_name", ns}}
	if pod, err := k.pod(f, ns, podName); err == nil {
		meta = append(meta, field{"pod_id", string(pod.UID)})
		if k.labels && len(pod.Labels) > 0 {
			meta = append(meta, field{"labels", stringMap(pod.Labels)})
		}
		if k.annots && len(pod.Annotations) > 0 {
			meta = append(meta, field{"annotations", stringMap(pod.Annotations)})
		}
		if pod.Spec.NodeName != "" {
			meta = append(meta, field{"host", pod.Spec.NodeName})
		}
		if pod.Status.PodIP != "" {
			meta = append(meta, field{"pod_ip", pod.Status.PodIP})
		}
		meta = append(meta, field{"container_name", ctr}, field{"docker_id", id})
		for _, st := range append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
			if st.Name == ctr {
				meta = append(meta, field{"container_hash", strings.TrimPrefix(st.ImageID, "docker-pullable://")}, field{"container_image", st.Image})
			}
		}
	} else {
		meta = append(meta, field{"container_name", ctr}, field{"docker_id", id})
	}
	if k.merge {
		k.mergeLog(r)
	}
	r.set("kubernetes", meta)
	return true
}

// mergeLog is Merge_Log: a log that is a JSON map has its keys merged
// into the record (under Merge_Log_Key when set).
func (k *kubeFilter) mergeLog(r *record) {
	v, ok := r.get("log")
	s, isString := v.(string)
	if !ok || !isString {
		return
	}
	parsed, ok := parseJSON(strings.TrimSpace(s))
	fields, isMap := parsed.([]field)
	if !ok || !isMap {
		return
	}
	if !k.keepLog {
		for i, f := range r.body {
			if f.key == "log" {
				r.body = append(r.body[:i:i], r.body[i+1:]...)
				break
			}
		}
	}
	if k.mergeKey != "" {
		r.set(k.mergeKey, fields)
		return
	}
	for _, f := range fields {
		r.set(f.key, f.val)
	}
}

func stringMap(m map[string]string) []field {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]field, 0, len(keys))
	for _, k := range keys {
		out = append(out, field{k, m[k]})
	}
	return out
}
