package nodes

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"math/big"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/node"
)

// Kubelet flags that cannot work are usage errors naming the flag, before
// the cluster is contacted.
func TestKubeletFlagUsageErrors(t *testing.T) {
	kubeconfig, _ := unreachableKubeconfig(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kubelet-address", "my-host"}, `--kubelet-address "my-host": not an IP address`},
		{[]string{"--kubelet-port", "70000"}, "--kubelet-port 70000: not a port"},
		{[]string{"--kubelet-tls-cert", "c.pem"}, "--kubelet-tls-cert and --kubelet-tls-key go together"},
		{[]string{"--kubelet-tls-cert", "c.pem", "--kubelet-tls-key", "k.pem", "--approve-csr"}, "--approve-csr has nothing to approve"},
	} {
		_, err := runNodes(append([]string{"--kubeconfig", kubeconfig}, tc.args...)...)
		var exit *cmd.ExitError
		if !errors.As(err, &exit) || exit.Code != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want exit 2 with %q", tc.args, err, tc.want)
		}
	}
}

// The default address is the one on the route to the API server: for a
// loopback API server, loopback.
func TestKubeletDefaultAddress(t *testing.T) {
	k := &kubeletFlags{port: 10250, clientCA: []byte("ca")}
	s, err := k.serving(localAPI, "", 4)
	if err != nil || s.Listen != netip.MustParseAddr("127.0.0.1") || s.Advertise != s.Listen {
		t.Fatalf("serving = %+v, %v", s, err)
	}
	// 0.0.0.0 binds every interface and advertises the routed address.
	k.address = "0.0.0.0"
	s, err = k.serving(localAPI, "", 4)
	if err != nil || !s.Listen.IsUnspecified() || s.Advertise != netip.MustParseAddr("127.0.0.1") {
		t.Fatalf("0.0.0.0: serving = %+v, %v", s, err)
	}
	k.port = 65535
	if _, err := k.serving(localAPI, "", 4); err == nil || !strings.Contains(err.Error(), "4 nodes need ports up to 65538") {
		t.Errorf("ports past 65535: %v", err)
	}
	k = &kubeletFlags{certFile: "/nonexistent/c.pem", keyFile: "/nonexistent/k.pem", clientCA: []byte("ca")}
	if _, err := k.serving(localAPI, "", 1); err == nil || !strings.Contains(err.Error(), "--kubelet-tls-cert /nonexistent/c.pem") {
		t.Errorf("missing certificate: %v", err)
	}
}

// A --kubelet-client-ca that is not a PEM CA bundle is a usage error
// naming the flag and the file.
func TestKubeletClientCAUsageErrors(t *testing.T) {
	kubeconfig, _ := unreachableKubeconfig(t)
	dir := t.TempDir()
	leaf := writeTemp(t, dir, "leaf.pem", testCert(t, false))
	junk := writeTemp(t, dir, "junk.pem", []byte("not pem"))
	key := writeTemp(t, dir, "key.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}}))
	for file, want := range map[string]string{
		filepath.Join(dir, "missing.pem"): "no such file",
		junk:                              "no PEM certificate in it",
		key:                               "holds a PRIVATE KEY, not only CA certificates",
		leaf:                              `the certificate of "leaf" is not a CA's`,
	} {
		_, err := runNodes("--kubeconfig", kubeconfig, "--kubelet-client-ca", file)
		var exit *cmd.ExitError
		if !errors.As(err, &exit) || exit.Code != 2 || !strings.Contains(err.Error(), "--kubelet-client-ca "+file+": ") ||
			!strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want exit 2 naming the flag and %q", file, err, want)
		}
	}
}

// Without --kubelet-client-ca the kubelet API trusts the CA of the
// kubeconfig (which signs kube-apiserver's kubelet client certificate in
// kubeadm, kind and winkube up); a kubeconfig without one needs the flag.
func TestKubeletClientCADefault(t *testing.T) {
	dir := t.TempDir()
	ca := testCert(t, true)
	withCA := writeTemp(t, dir, "ca.kubeconfig", []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: "`+base64.StdEncoding.EncodeToString(ca)+`"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`))
	if got := servingWith(t, "--kubeconfig", withCA).ClientCA; string(got) != string(ca) {
		t.Errorf("default client CA %q, want the kubeconfig's", got)
	}
	other := testCert(t, true)
	flagCA := writeTemp(t, dir, "other.pem", other)
	if got := servingWith(t, "--kubeconfig", withCA, "--kubelet-client-ca", flagCA).ClientCA; string(got) != string(other) {
		t.Errorf("--kubelet-client-ca: client CA %q, want the file's", got)
	}
	insecure, _ := unreachableKubeconfig(t)
	_, err := servingOf(t, "--kubeconfig", insecure)
	if err == nil || !strings.Contains(err.Error(), "--kubelet-client-ca is needed: --kubeconfig "+insecure+" names no certificate authority") {
		t.Errorf("kubeconfig without a CA: %v", err)
	}
}

// localAPI is an API server on loopback.
var localAPI = &rest.Config{Host: "https://127.0.0.1:6443"}

// servingOf is the kubelet serving options of the command's flags.
func servingOf(t *testing.T, args ...string) (*node.KubeletServing, error) {
	t.Helper()
	fs := pflag.NewFlagSet("nodes", pflag.ContinueOnError)
	var cluster kubeflags.Flags
	cluster.AddJoinFlags(fs, "")
	k := &kubeletFlags{}
	k.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := k.validate(); err != nil {
		t.Fatal(err)
	}
	cfg, err := cluster.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	return k.serving(cfg, cluster.Source(), 1)
}

func servingWith(t *testing.T, args ...string) *node.KubeletServing {
	t.Helper()
	s, err := servingOf(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func writeTemp(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// testCert is a self-signed PEM certificate, a CA's or a leaf's.
func testCert(t *testing.T, isCA bool) []byte {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "leaf"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	if isCA {
		tmpl.Subject.CommonName, tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = "ca", true, true, x509.KeyUsageCertSign
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
