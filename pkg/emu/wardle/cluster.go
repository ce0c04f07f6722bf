package wardle

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/winkube/winkube/internal/connset"
	"github.com/winkube/winkube/pkg/emu/program"
)

// serviceAccountDir is where the kubelet mounts the pod's service account
// token and CA, where rest.InClusterConfig reads them.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// inCluster writes the kubeconfig of the pod's in-cluster config: the
// API server's Service address from the container's environment, the
// token and CA from its filesystem, and a proxy that dials through the
// pod network. The upstream options load kubeconfigs from files and give
// their clients no dialer of their own; a proxy URL is the one way a file
// can say how to connect.
func (e *pod) inCluster(p *program.Proc) (string, error) {
	host, port := p.Getenv("KUBERNETES_SERVICE_HOST"), p.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return "", rest.ErrNotInCluster
	}
	token, err := readFile(p, serviceAccountDir+"/token")
	if err != nil {
		return "", err
	}
	ca, err := readFile(p, serviceAccountDir+"/ca.crt")
	if err != nil {
		return "", err
	}
	px, err := startProxy(p)
	if err != nil {
		return "", err
	}
	e.proxy = px
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["in-cluster"] = &clientcmdapi.Cluster{
		Server:                   "https://" + net.JoinHostPort(host, port),
		CertificateAuthorityData: ca,
		ProxyURL:                 px.url(),
	}
	cfg.AuthInfos["in-cluster"] = &clientcmdapi.AuthInfo{Token: string(token)}
	cfg.Contexts["in-cluster"] = &clientcmdapi.Context{Cluster: "in-cluster", AuthInfo: "in-cluster"}
	cfg.CurrentContext = "in-cluster"
	path := filepath.Join(e.dir, "in-cluster.kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

// proxy is an HTTP CONNECT proxy on the host's loopback that connects
// through one pod's network, for the clients of one process. It answers
// only requests carrying its secret, so no other local program can enter
// the pod network through it.
type proxy struct {
	ln     net.Listener
	secret string
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	ctx    context.Context
	cancel context.CancelFunc
	conns  connset.Set
	wg     sync.WaitGroup
}

func startProxy(p *program.Proc) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	px := &proxy{ln: ln, secret: rand.Text(), dial: program.NetDialer(p), ctx: ctx, cancel: cancel}
	px.wg.Go(px.serve)
	return px, nil
}

func (px *proxy) url() string {
	return (&url.URL{Scheme: "http", User: url.UserPassword("pod", px.secret), Host: px.ln.Addr().String()}).String()
}

func (px *proxy) serve() { px.conns.Serve(px.ln, &px.wg, px.handle) }

// handle reads one CONNECT request, dials, answers, then copies both ways.
func (px *proxy) handle(c net.Conn) {
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("pod:"+px.secret))
	switch {
	case req.Method != http.MethodConnect:
		io.WriteString(c, "HTTP/1.1 405 Method Not Allowed\r\n\r\n")
		return
	case req.Header.Get("Proxy-Authorization") != want:
		io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
		return
	}
	ctx, cancel := context.WithTimeout(px.ctx, 30*time.Second)
	up, err := px.dial(ctx, "tcp", req.Host)
	cancel()
	if err != nil {
		fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n\r\n%v\n", err)
		return
	}
	if !px.conns.Track(up) {
		up.Close()
		return
	}
	defer px.conns.Untrack(up)
	io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	done := make(chan struct{}, 2)
	go func() { _, _ = br.WriteTo(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done // either side ending ends the tunnel; the deferred closes end the other copy
}

// close stops accepting and ends every tunnel.
func (px *proxy) close() {
	px.cancel()
	px.ln.Close()
	px.conns.Close()
	px.wg.Wait()
}
