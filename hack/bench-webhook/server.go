package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/webhook"
	"github.com/winkube/winkube/pkg/webhook/install"
)

// serve is the measured process: the handler `winkube up --webhook` builds
// (a node-watching client, the catalog resolver), served the same way on
// 127.0.0.1. The client is a fake holding the default cluster's nodes, so
// no control plane shares the process and its RSS is the webhook's. It
// prints its address, then serves until its stdin closes (the parent
// exited or is done). With table it answers from a table instead (the
// floor, answerTable).
func serve(certDir string, table bool) error {
	certs, err := install.ReadCerts(certDir)
	if err != nil {
		return err
	}
	cert, err := certs.TLS()
	if err != nil {
		return err
	}
	h, err := newHandler()
	if err != nil {
		return err
	}
	defer h.Close()
	var handler http.Handler = h
	if table {
		if handler, err = answerTable(h); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	return webhook.ServeListener(ctx, ln, cert, &timed{next: handler})
}

// newHandler is the webhook's handler over a fake client holding the
// default cluster's nodes.
func newHandler() (*webhook.Handler, error) {
	return webhook.NewHandler(webhook.Options{
		Client:            fake.NewClientset(defaultNodes()...),
		KubernetesVersion: fmt.Sprintf("1.%d", kubeversion.DefaultMinor),
	})
}

// defaultNodes are `winkube up`'s default cluster: one Linux node, two
// Windows Server 2019 and one 2022, as their kubelets register them.
func defaultNodes() []runtime.Object {
	node := func(name, os, build string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			corev1.LabelOSStable: os, corev1.LabelArchStable: "amd64", corev1.LabelHostname: name,
		}}}
		n.Status.NodeInfo.ContainerRuntimeVersion = "containerd://1.7.13"
		if os == "windows" {
			n.Labels[corev1.LabelWindowsBuild] = build
			n.Spec.Taints = []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
		}
		return n
	}
	return []runtime.Object{
		node("linux-1", "linux", ""),
		node("win2019-1", "windows", "10.0.17763"),
		node("win2019-2", "windows", "10.0.17763"),
		node("win2022-1", "windows", "10.0.20348"),
	}
}
