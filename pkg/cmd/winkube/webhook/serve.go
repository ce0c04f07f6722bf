package webhook

import (
	"context"
	"crypto/tls"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/webhook"
)

type serveFlags struct {
	listen   string
	certFile string
	keyFile  string
	cluster  clusterFlags
	decision decisionFlags
}

func newServeCommand(streams cmd.IOStreams) *cobra.Command {
	f := &serveFlags{}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run the admission webhook's HTTPS server until SIGTERM or Ctrl-C",
		Long: "Serves " + webhook.MutatePath + " and " + webhook.ValidatePath + " (AdmissionReview v1), /healthz, /readyz and " +
			"Prometheus /metrics over TLS. The default --listen :8443 is for a pod (the Service sends 443 there); " +
			"outside a cluster, listen on the address the webhook configurations' URL names.\n\n" +
			"The cluster (nodes, RuntimeClasses, pull secrets) is read through --kubeconfig, else the pod's " +
			"service account, else $KUBECONFIG or the winkube cluster of --data-dir.",
		Example: "  winkube webhook serve --tls-cert-file tls.crt --tls-private-key-file tls.key\n" +
			"  winkube webhook serve --listen 127.0.0.1:9443 --tls-cert-file ~/.config/winkube/webhook/tls.crt \\\n" +
			"      --tls-private-key-file ~/.config/winkube/webhook/tls.key --resolve-images registry",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runServe(c.Context(), streams, f)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.listen, "listen", ":8443", "address to serve HTTPS on, HOST:PORT (all interfaces by default, as a pod needs)")
	fs.StringVar(&f.certFile, "tls-cert-file", "", "PEM serving certificate, signed by the CA of the webhook configurations' caBundle (required)")
	fs.StringVar(&f.keyFile, "tls-private-key-file", "", "PEM private key of --tls-cert-file (required)")
	f.cluster.add(fs)
	f.decision.add(fs)
	return c
}

func runServe(ctx context.Context, streams cmd.IOStreams, f *serveFlags) error {
	if f.certFile == "" || f.keyFile == "" {
		return &cmd.ExitError{Code: 2, Err: fmt.Errorf("--tls-cert-file and --tls-private-key-file are required (kube-apiserver calls webhooks over HTTPS)")}
	}
	if err := f.decision.validate(); err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	cert, err := tls.LoadX509KeyPair(f.certFile, f.keyFile)
	if err != nil {
		return fmt.Errorf("--tls-cert-file %s, --tls-private-key-file %s: %w", f.certFile, f.keyFile, err)
	}
	cfg, err := f.cluster.restConfig(true)
	if err != nil {
		return err
	}
	// The image facts of the data dir (--data-dir, else the default), as
	// the nodes' pulls read them.
	f.decision.DataDir, _ = datadir.Resolve(f.cluster.DataDir)
	h, err := webhook.NewServeHandler(cfg, f.decision.ServeFlags, streams.ErrOut)
	if err != nil {
		return err
	}
	defer h.Close()
	fmt.Fprintln(streams.Out, webhook.ServingLine(f.listen, cfg.Host, f.decision.ServeFlags))
	if err := webhook.Serve(ctx, f.listen, cert, h); err != nil {
		return fmt.Errorf("serving on --listen %s: %w", f.listen, err)
	}
	fmt.Fprintln(streams.Out, "Stopped.")
	return nil
}
