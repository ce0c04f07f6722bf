package node

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// authAgent is a second agent (not started, its one node not registered)
// whose kubelet API listens on loopback and checks requests against the
// test control plane, with the cluster CA as client CA.
func authAgent(t *testing.T) (*Agent, string) {
	t.Helper()
	first := cluster.Nodes()[0].Name
	a, err := newAgent(client, Options{Cluster: cluster,
		Kubelet: &KubeletServing{Listen: loopback, Advertise: loopback, ClientCA: restConfig.CAData},
		Nodes:   func(name string) bool { return name == first }})
	if err != nil {
		t.Fatal(err)
	}
	a.runCtx, a.cancel = context.WithCancel(context.Background())
	t.Cleanup(func() { a.Close() })
	return a, "https://" + a.KubeletEndpoints()[first].String()
}

// kubeletGet GETs url with an optional client certificate and token and
// returns the status code and body.
func kubeletGet(t *testing.T, url string, cert *tls.Certificate, token string) (int, string) {
	t.Helper()
	tc := &tls.Config{InsecureSkipVerify: true} // as kube-apiserver without --kubelet-certificate-authority
	if cert != nil {
		tc.Certificates = []tls.Certificate{*cert}
	}
	c := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return getWith(t, c, req)
}

func getWith(t *testing.T, c *http.Client, req *http.Request) (int, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// On its real listeners the kubelet API answers only what a kubelet with
// the cluster CA as clientCAFile and Webhook authentication and
// authorization answers: 401 without a certificate of that CA or a token
// the API server confirms, 403 for an identity without the node's
// subresource, with the kubelet's messages.
func TestKubeletAuthCertificates(t *testing.T) {
	needCluster(t)
	_, base := authAgent(t)
	if code, body := kubeletGet(t, base+"/healthz", nil, ""); code != http.StatusUnauthorized || body != "Unauthorized" {
		t.Errorf("no credentials: %d %q, want 401 Unauthorized", code, body)
	}
	other := certFromOtherCA(t)
	if code, body := kubeletGet(t, base+"/configz", &other, ""); code != http.StatusUnauthorized || body != "Unauthorized" {
		t.Errorf("certificate of another CA: %d %q, want 401 Unauthorized", code, body)
	}
	if code, body := kubeletGet(t, base+"/healthz", nil, "not-a-token"); code != http.StatusUnauthorized {
		t.Errorf("unknown token: %d %q, want 401", code, body)
	}
	apiserver := apiserverKubeletClientCert(t)
	for _, path := range []string{"/healthz", "/configz"} {
		if code, body := kubeletGet(t, base+path, &apiserver, ""); code != http.StatusOK {
			t.Errorf("%s with kube-apiserver's kubelet client certificate: %d %q, want 200", path, code, body)
		}
	}
}

// A ServiceAccount token is confirmed by a TokenReview; a
// SubjectAccessReview then decides, on nodes/healthz or nodes/proxy.
func TestKubeletAuthServiceAccountToken(t *testing.T) {
	needCluster(t)
	a, base := authAgent(t)
	ns := newNamespace(t)
	node := a.names[0]
	denied := serviceAccountToken(t, ns, "no-rbac")
	code, body := kubeletGet(t, base+"/healthz", nil, denied)
	want := "Forbidden (user=system:serviceaccount:" + ns + ":no-rbac, verb=get, resource=nodes, subresource(s)=[healthz proxy])\n"
	if code != http.StatusForbidden || body != want {
		t.Errorf("service account without RBAC: %d %q, want 403 %q", code, body, want)
	}
	allowed := serviceAccountToken(t, ns, "proxy")
	grantNodesProxy(t, ns, "proxy", node)
	if code, body := kubeletGet(t, base+"/healthz", nil, allowed); code != http.StatusOK || body != "ok" {
		t.Errorf("service account with nodes/proxy: %d %q, want 200 ok", code, body)
	}
	// In-process connections (winkube up's egress proxy) stay unchecked.
	code, body = get(t, kubeletClient(t), "https://"+node+":10250/healthz")
	if code != http.StatusOK {
		t.Errorf("DialKubelet without credentials: %d %q, want 200", code, body)
	}
}

// serviceAccountToken creates a ServiceAccount and a token for it.
func serviceAccountToken(t *testing.T, ns, name string) string {
	t.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expiry := int64(600)
	tr, err := client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// grantNodesProxy gives the ServiceAccount get on nodes/proxy and waits
// until a SubjectAccessReview says so: a kubelet caches a denial for 30 s.
func grantNodesProxy(t *testing.T, ns, name, node string) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns + "-nodes-proxy"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes/proxy"}, Verbs: []string{"get"}}}}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	})
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}}}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})
	waitFor(t, 20*time.Second, "nodes/proxy granted", func(ctx context.Context) (bool, error) {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: "system:serviceaccount:" + ns + ":" + name,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: "get", Resource: "nodes", Subresource: "proxy", Name: node, Version: "v1"}}}
		got, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		return err == nil && got.Status.Allowed, nil
	})
}

// apiserverKubeletClientCert is the test control plane's
// --kubelet-client-certificate: of the control planes in the temporary
// directory (other test binaries run theirs), the one whose certificate
// the cluster CA signed.
func apiserverKubeletClientCert(t *testing.T) tls.Certificate {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(restConfig.CAData)
	files, _ := filepath.Glob(filepath.Join(os.TempDir(), "winkube-cptest-*", "pki", "kube-apiserver-kubelet-client.crt"))
	for _, crt := range files {
		pair, err := tls.LoadX509KeyPair(crt, strings.TrimSuffix(crt, ".crt")+".key")
		if err != nil {
			continue
		}
		leaf, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			continue
		}
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
			return pair
		}
	}
	t.Fatalf("no kube-apiserver-kubelet-client certificate of the test control plane among %v", files)
	return tls.Certificate{}
}

// certFromOtherCA is a client certificate with kube-apiserver's kubelet
// client identity, from a CA the kubelet does not trust.
func certFromOtherCA(t *testing.T) tls.Certificate {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other-ca"}, IsCA: true, BasicConstraintsValid: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageCertSign}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2),
		Subject:   pkix.Name{CommonName: "kube-apiserver-kubelet-client", Organization: []string{"system:masters"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	pair, err := tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	return pair
}
