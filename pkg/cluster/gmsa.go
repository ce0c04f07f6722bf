package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/pkg/gmsa"
)

// gmsaInstance names the webhook configurations `up --gmsa` registers.
const gmsaInstance = "winkube-up-gmsa"

// gmsaDir holds the in-process GMSA webhook's CA and serving certificate.
const gmsaDir = "gmsa-webhook"

// startGMSA installs the GMSACredentialSpec CRD and serves and registers
// the windows-gmsa webhook in-process. Its configurations fail closed, as
// upstream's, and leave kube-system out (the namespace the webhook counts
// as its own), so the cluster's add-ons never wait for it.
func (c *Cluster) startGMSA(ctx context.Context) error {
	step := time.Now()
	wh, err := gmsa.StartInProcess(ctx, c.cp.RESTConfig(), filepath.Join(c.DataDir, gmsaDir), gmsaInstance, metav1.NamespaceSystem,
		func(format string, args ...any) { klog.Infof("gmsa webhook: "+format, args...) })
	if err != nil {
		return fmt.Errorf("starting the GMSA webhook (--gmsa): %w", err)
	}
	c.services = append(c.services, service{"GMSA webhook", wh.Stop})
	c.gmsaURL = wh.URL
	c.done("GMSACredentialSpec CRD installed, GMSA webhook registered", time.Since(step))
	return nil
}

// removeStaleGMSA deletes the configurations of an earlier `up --gmsa`
// that could not remove them (killed): they fail closed, so without this
// every pod create outside kube-system would be refused.
func (c *Cluster) removeStaleGMSA(ctx context.Context) {
	_ = gmsa.RemoveStale(ctx, c.cp.RESTConfig(), gmsaInstance)
}
