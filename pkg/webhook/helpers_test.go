package webhook

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	nodelisters "k8s.io/client-go/listers/node/v1"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/windows"
)

// The seeds' builds: Windows Server 2019 and 2022.
const (
	build2019 = "10.0.17763"
	build2022 = "10.0.20348"
)

// testNode is a node as a kubelet registers it (SCH-1), Windows nodes with
// the recommended taint (SCH-3).
func testNode(name, os, build, runtime string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		corev1.LabelOSStable: os, corev1.LabelArchStable: "amd64", corev1.LabelHostname: name,
	}}}
	n.Status.NodeInfo.ContainerRuntimeVersion = runtime + "://1.7.13"
	if os == "windows" {
		n.Labels[corev1.LabelWindowsBuild] = build
		n.Spec.Taints = []corev1.Taint{windows.WindowsTaint()}
	}
	return n
}

// mixedNodes is a cluster with a Linux node and a 2019 and a 2022 node.
func mixedNodes() []*corev1.Node {
	return []*corev1.Node{
		testNode("linux-1", "linux", "", "containerd"),
		testNode("win2019-1", "windows", build2019, "containerd"),
		testNode("win2022-1", "windows", build2022, "containerd"),
	}
}

// knownCluster is a cluster view filled from objects through real
// listers, as the informers would fill it.
func knownCluster(minor int, nodes []*corev1.Node, classes ...*nodev1.RuntimeClass) *cluster {
	c := &cluster{stop: make(chan struct{}), known: make(chan struct{})}
	c.minor.Store(int64(minor))
	ni := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, n := range nodes {
		ni.Add(n)
	}
	ci := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, rc := range classes {
		ci.Add(rc)
	}
	c.nodes, c.classes = corelisters.NewNodeLister(ni), nodelisters.NewRuntimeClassLister(ci)
	close(c.known)
	return c
}

// newTestHandler builds a handler; with nodes it knows the cluster.
func newTestHandler(t testing.TB, opts Options, nodes []*corev1.Node, classes ...*nodev1.RuntimeClass) *Handler {
	t.Helper()
	h, err := NewHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	if nodes != nil {
		minor := h.s.minor
		if minor == 0 {
			minor = 36
		}
		h.cluster = knownCluster(minor, nodes, classes...)
	}
	return h
}

// request wraps an object written in YAML into an AdmissionRequest.
func request(t testing.TB, group, kind string, op admissionv1.Operation, manifest string) *admissionv1.AdmissionRequest {
	t.Helper()
	raw, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	return &admissionv1.AdmissionRequest{
		UID:       types.UID("uid-1"),
		Kind:      metav1.GroupVersionKind{Group: group, Version: "v1", Kind: kind},
		Namespace: "apps",
		Operation: op,
		Object:    runtime.RawExtension{Raw: raw},
	}
}

func podRequest(t testing.TB, manifest string) *admissionv1.AdmissionRequest {
	return request(t, "", "Pod", admissionv1.Create, manifest)
}

// patched applies the response's JSON patch to the request's object.
func patched(t *testing.T, req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) *corev1.Pod {
	t.Helper()
	if !resp.Allowed {
		t.Fatalf("denied: %s", resp.Result.Message)
	}
	doc := req.Object.Raw
	if resp.Patch != nil {
		if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
			t.Fatalf("patch type = %v, want JSONPatch", resp.PatchType)
		}
		p, err := jsonpatch.DecodePatch(resp.Patch)
		if err != nil {
			t.Fatalf("decode patch %s: %v", resp.Patch, err)
		}
		if doc, err = p.Apply(doc); err != nil {
			t.Fatalf("apply patch %s: %v", resp.Patch, err)
		}
	}
	pod := &corev1.Pod{}
	if err := json.Unmarshal(doc, pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

func mustDeny(t *testing.T, resp *admissionv1.AdmissionResponse, want ...string) {
	t.Helper()
	if resp.Allowed {
		t.Fatalf("allowed (warnings %q), want denied with %q", resp.Warnings, want)
	}
	t.Logf("denied: %s", resp.Result.Message)
	for _, w := range want {
		if !strings.Contains(resp.Result.Message, w) {
			t.Errorf("message %q does not contain %q", resp.Result.Message, w)
		}
	}
}

func warningWith(resp *admissionv1.AdmissionResponse, substr string) bool {
	for _, w := range resp.Warnings {
		if strings.Contains(w, substr) {
			return true
		}
	}
	return false
}

// fixedResolver answers from a table, falling back to the catalog, as a
// registry resolver answers from the registry.
type fixedResolver map[string]imageinfo.Answer

func (r fixedResolver) Resolve(_ context.Context, req imageinfo.Request) imageinfo.Answer {
	if a, ok := r[req.Ref]; ok {
		return a
	}
	return imageinfo.CatalogAnswer(req.Ref)
}

// windowsIndex is a registry answer for an index with one entry per build.
func windowsIndex(ref string, builds ...string) imageinfo.Answer {
	img := imageinfo.Image{Repository: ref, Tag: "v1", Index: true, Known: true}
	for _, b := range builds {
		img.Platforms = append(img.Platforms, imageinfo.Platform{OS: "windows", Architecture: "amd64", OSVersion: b + ".1"})
	}
	return imageinfo.Answer{Image: img, Source: imageinfo.SourceRegistry}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// selfSignedServing makes a CA and a serving certificate for 127.0.0.1.
func selfSignedServing() (caPEM []byte, cert tls.Certificate, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, cert, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "winkube-webhook-test-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, cert, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, cert, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, cert, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, cert, err
	}
	cert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), cert, nil
}
