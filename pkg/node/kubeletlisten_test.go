package node

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
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node/internal/kubeletapi"
)

var loopback = netip.MustParseAddr("127.0.0.1")

// servingAgent is an agent of the default pools (not started) whose
// kubelet API listens on loopback.
func servingAgent(t *testing.T, port int) (*Agent, error) {
	t.Helper()
	client := fake.NewClientset()
	generated := 0
	client.PrependReactor("create", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		// The fake keeps generateName as it is; the apiserver appends a suffix.
		if m, err := meta.Accessor(action.(k8stesting.CreateAction).GetObject()); err == nil && m.GetName() == "" {
			generated++
			m.SetName(m.GetGenerateName() + strconv.Itoa(generated))
		}
		return false, nil, nil
	})
	a, err := newAgent(withReviews(t, client), Options{Cluster: v1alpha1.DefaultCluster(),
		Kubelet: &KubeletServing{Listen: loopback, Advertise: loopback, Port: port}})
	if err == nil {
		ctx, cancel := context.WithCancel(context.Background())
		a.runCtx, a.cancel = ctx, cancel
		t.Cleanup(func() { a.Close() })
	}
	return a, err
}

// reviewingClient is a fake API client whose TokenReviews and
// SubjectAccessReviews, which the kubelet's authenticator and authorizer
// send through their REST clients (the fake has none), are answered by a
// test server: testToken is user "test", allowed everything.
type reviewingClient struct {
	*fake.Clientset
	authn authenticationv1client.AuthenticationV1Interface
	authz authorizationv1client.AuthorizationV1Interface
}

func (c *reviewingClient) AuthenticationV1() authenticationv1client.AuthenticationV1Interface {
	return c.authn
}

func (c *reviewingClient) AuthorizationV1() authorizationv1client.AuthorizationV1Interface {
	return c.authz
}

func withReviews(t *testing.T, client *fake.Clientset) *reviewingClient {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review struct {
			APIVersion string         `json:"apiVersion"`
			Kind       string         `json:"kind"`
			Spec       map[string]any `json:"spec"`
			Status     map[string]any `json:"status"`
		}
		_ = json.NewDecoder(r.Body).Decode(&review)
		switch {
		case strings.HasSuffix(r.URL.Path, "/tokenreviews") && review.Spec["token"] == testToken:
			review.Status = map[string]any{"authenticated": true, "user": map[string]any{"username": "test"}}
		case strings.HasSuffix(r.URL.Path, "/subjectaccessreviews"):
			review.Status = map[string]any{"allowed": review.Spec["user"] == "test"}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	}))
	t.Cleanup(srv.Close)
	cfg := &rest.Config{Host: srv.URL}
	return &reviewingClient{Clientset: client,
		authn: authenticationv1client.NewForConfigOrDie(cfg), authz: authorizationv1client.NewForConfigOrDie(cfg)}
}

const testToken = "test-token"

// tlsGet GETs path from the kubelet at ep as kube-apiserver does without
// --kubelet-certificate-authority, with a token the fake API server
// confirms, and returns the certificate served.
func tlsGet(t *testing.T, ep netip.AddrPort, path string) (string, *x509.Certificate) {
	t.Helper()
	var served *x509.Certificate
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		InsecureSkipVerify: true,
		VerifyConnection:   func(cs tls.ConnectionState) error { served = cs.PeerCertificates[0]; return nil },
	}}}
	req, _ := http.NewRequest(http.MethodGet, "https://"+ep.String()+path, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s%s: %v", ep, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body), served
}

// Each node gets its own port on the real address, advertised as its
// InternalIP and kubelet port, and answers as that node.
func TestKubeletServesEachNodeOnItsPort(t *testing.T) {
	a, err := servingAgent(t, 0)
	if err != nil {
		t.Fatal(err)
	}
	eps := a.KubeletEndpoints()
	ports := map[uint16]bool{}
	for _, name := range a.NodeNames() {
		ep := eps[name]
		if ep.Addr() != loopback || ep.Port() == 0 || ports[ep.Port()] {
			t.Fatalf("node %s endpoint %v (ports so far %v)", name, ep, ports)
		}
		ports[ep.Port()] = true
		body, cert := tlsGet(t, ep, "/configz")
		var cfg struct {
			KubeletConfig struct{ Port int } `json:"kubeletconfig"`
		}
		if err := json.Unmarshal([]byte(body), &cfg); err != nil || cfg.KubeletConfig.Port != int(ep.Port()) {
			t.Errorf("node %s /configz port: %s (%v), want %d", name, body, err, ep.Port())
		}
		if cert.VerifyHostname(name) != nil || cert.VerifyHostname("127.0.0.1") != nil {
			t.Errorf("node %s: self-signed certificate names %v %v", name, cert.DNSNames, cert.IPAddresses)
		}
	}
	if len(ports) != len(a.NodeNames()) {
		t.Errorf("%d ports for %d nodes", len(ports), len(a.NodeNames()))
	}
}

// The API gets the real address as InternalIP (what apiservers dial) and
// the emulated one in an annotation; the agents' view of the node is the
// emulated address again, so the pod network model is unchanged.
func TestKubeletEndpointInNodeStatus(t *testing.T) {
	a, err := servingAgent(t, 0)
	if err != nil {
		t.Fatal(err)
	}
	spec := a.nodes[a.names[0]].spec
	n := spec.initialNode(time.Now())
	want := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: spec.name}}
	if len(n.Status.Addresses) != 2 || n.Status.Addresses[0] != want[0] || n.Status.Addresses[1] != want[1] {
		t.Errorf("addresses %v, want %v", n.Status.Addresses, want)
	}
	if got := n.Status.DaemonEndpoints.KubeletEndpoint.Port; got != int32(spec.endpoint.Port()) {
		t.Errorf("kubelet port %d, want %d", got, spec.endpoint.Port())
	}
	if n.Annotations[AnnotationNodeIP] != spec.ip {
		t.Errorf("annotation %s = %q, want %q", AnnotationNodeIP, n.Annotations[AnnotationNodeIP], spec.ip)
	}
	seen, _ := nodeView(n.DeepCopy())
	if got := seen.(*corev1.Node).Status.Addresses[0].Address; got != spec.ip {
		t.Errorf("agent's view InternalIP %s, want %s", got, spec.ip)
	}
	// Without a real endpoint nothing changes.
	plain := &nodeSpec{name: "x", ip: "10.127.130.10", pool: spec.pool, host: spec.host, kubelet: spec.kubelet}
	pn := plain.initialNode(time.Now())
	if pn.Status.Addresses[0].Address != "10.127.130.10" || pn.Status.DaemonEndpoints.KubeletEndpoint.Port != kubeletapi.Port || pn.Annotations[AnnotationNodeIP] != "" {
		t.Errorf("in-process node: %v port %d annotations %v", pn.Status.Addresses, pn.Status.DaemonEndpoints.KubeletEndpoint.Port, pn.Annotations)
	}
}

// A port in use fails the start, naming the address, and binds nothing.
func TestKubeletListenPortInUse(t *testing.T) {
	base, busy := freeThenBusy(t)
	defer busy.Close()
	// The busy port is the second node's: the first node's is released.
	_, err := servingAgent(t, base)
	var le *ListenError
	want := "127.0.0.1:" + strconv.Itoa(base+1)
	if !errors.As(err, &le) || !errors.Is(err, syscall.EADDRINUSE) || le.Addr != want {
		t.Fatalf("err = %v, want a ListenError for %s in use", err, want)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(base))
	if err != nil {
		t.Fatalf("the first node's port %d stayed bound after the failed start: %v", base, err)
	}
	l.Close()
}

// freeThenBusy finds a free port whose next port this test holds.
func freeThenBusy(t *testing.T) (int, net.Listener) {
	t.Helper()
	for range 20 {
		free, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := free.Addr().(*net.TCPAddr).Port
		busy, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+1))
		free.Close()
		if err == nil {
			return port, busy
		}
	}
	t.Fatal("no two consecutive free ports")
	return 0, nil
}

// One kubelet-serving CSR per node, as kubelet TLS bootstrap files them;
// approved on request; the issued certificate is served once it appears.
func TestKubeletServingCSR(t *testing.T) {
	a, err := servingAgent(t, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	csrs, err := a.RequestServingCerts(ctx, true)
	if err != nil || len(csrs) != len(a.names) {
		t.Fatalf("csrs %v, err %v", csrs, err)
	}
	api := a.client.CertificatesV1().CertificateSigningRequests()
	first := csrs[0]
	csr, err := api.Get(ctx, first.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(csr.Spec.Request)
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if csr.Spec.SignerName != certificatesv1.KubeletServingSignerName || req.Subject.CommonName != "system:node:"+first.Node ||
		len(req.Subject.Organization) != 1 || req.Subject.Organization[0] != "system:nodes" || len(req.DNSNames) != 1 || req.DNSNames[0] != first.Node {
		t.Errorf("CSR signer %s subject %v DNS %v", csr.Spec.SignerName, req.Subject, req.DNSNames)
	}
	if !first.Approved || len(csr.Status.Conditions) != 1 || csr.Status.Conditions[0].Type != certificatesv1.CertificateApproved {
		t.Errorf("approval: %+v conditions %v", first, csr.Status.Conditions)
	}
	// Sign it as kube-controller-manager would.
	csr.Status.Certificate = signFor(t, req)
	if _, err := api.UpdateStatus(ctx, csr, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ep := a.KubeletEndpoints()[first.Node]
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, cert := tlsGet(t, ep, "/healthz")
		if cert.Subject.CommonName == "system:node:"+first.Node {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s still serves %q", first.Node, cert.Subject.CommonName)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, cert := tlsGet(t, a.KubeletEndpoints()[csrs[1].Node], "/healthz"); cert.Subject.CommonName != "winkube-kubelet" {
		t.Errorf("node %s serves %q before its CSR is signed", csrs[1].Node, cert.Subject.CommonName)
	}
}

// signFor issues a certificate for req from a throwaway CA.
func signFor(t *testing.T, req *x509.CertificateRequest) []byte {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, IsCA: true, BasicConstraintsValid: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageCertSign}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: req.Subject, DNSNames: req.DNSNames, IPAddresses: req.IPAddresses,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, req.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// A loopback kubelet address works only for an apiserver on this machine:
// kind's advertises its container's address.
func TestKubeletLoopbackNeedsLocalAPIServer(t *testing.T) {
	a, err := servingAgent(t, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	slices := a.client.DiscoveryV1().EndpointSlices("default")
	es := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "kubernetes", Labels: map[string]string{discoveryv1.LabelServiceName: "kubernetes"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"127.0.0.1"}}},
	}
	if _, err := slices.Create(ctx, es, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := a.CheckKubeletReachable(ctx); err != nil {
		t.Errorf("apiserver on loopback: %v", err)
	}
	es.Endpoints[0].Addresses = []string{"198.51.100.7"} // TEST-NET-2: no machine's
	if _, err := slices.Update(ctx, es, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = a.CheckKubeletReachable(ctx)
	if err == nil || !strings.Contains(err.Error(), "the API server is at 198.51.100.7, not on this machine") {
		t.Errorf("apiserver elsewhere: %v", err)
	}
}
