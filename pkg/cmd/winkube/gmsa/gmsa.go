// Package gmsa is `winkube gmsa`: the GMSACredentialSpec CRD and the
// windows-gmsa admission webhook on a cluster winkube does not run (`winkube
// up --gmsa` does both for its own cluster).
package gmsa

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/webhook"
	"github.com/winkube/winkube/pkg/webhook/install"
)

// NewCommand returns `winkube gmsa` and its subcommands.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "gmsa",
		Short: "GMSA for Windows pods: the GMSACredentialSpec CRD and the windows-gmsa admission webhook",
		Long: "GMSA credential specs are cluster-scoped GMSACredentialSpec objects (windows.k8s.io/v1); a pod names one in " +
			"securityContext.windowsOptions.gmsaCredentialSpecName. The windows-gmsa webhook (kubernetes-sigs/windows-gmsa) " +
			"inlines the named spec's JSON into gmsaCredentialSpec and refuses pods whose service account may not `use` it.\n\n" +
			"`winkube up --gmsa` installs the CRD and runs the webhook for its own cluster. For another cluster:\n\n" +
			"  install    apply the CRD (and, with --url, register a webhook served outside the cluster)\n" +
			"  serve      run the webhook's HTTPS server where --url points\n" +
			"  uninstall  remove the webhook configurations install registered (the CRD stays, with the specs)",
		Args: cobra.NoArgs,
	}
	c.AddCommand(newInstallCommand(streams), newServeCommand(streams), newUninstallCommand(streams))
	return c
}

// Instance names the configurations `winkube gmsa install --url` registers.
const Instance = "winkube-gmsa"

type installFlags struct {
	cluster   kubeflags.Flags
	url       string
	certDir   string
	namespace string
	print     bool
}

func newInstallCommand(streams cmd.IOStreams) *cobra.Command {
	f := &installFlags{}
	c := &cobra.Command{
		Use:   "install",
		Short: "Apply the GMSACredentialSpec CRD; with --url, register a webhook served there",
		Long: "Applies upstream's GMSACredentialSpec CRD (kubernetes-sigs/windows-gmsa's gmsa-crd.yml, unchanged) and waits " +
			"until it is served.\n\n" +
			"Without --url the webhook is not installed: winkube does not deploy it into a cluster it does not run. Install " +
			"upstream's there (its Helm chart charts/gmsa, or admission-webhook/deploy/deploy-gmsa-webhook.sh), or serve " +
			"winkube's copy of it outside the cluster with --url.\n\n" +
			"With --url https://HOST:PORT, install also writes a CA and serving certificate for HOST into --cert-dir, registers " +
			"upstream's mutating and validating configurations (pods; failurePolicy Fail; namespaces labelled " +
			gmsa.DisabledLabel + "=true and --namespace left out) pointing at the URL, and prints the `winkube gmsa serve` " +
			"command to run there. Until that server answers, every pod create outside those namespaces is refused.\n\n" +
			"--print writes the objects as YAML instead of applying them.",
		Example: "  winkube gmsa install --kubeconfig ~/.kube/config\n" +
			"  winkube gmsa install --kubeconfig ~/.kube/config --url https://10.0.0.5:9443\n" +
			"  winkube gmsa install --print > gmsa-crd.yaml",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runInstall(c.Context(), streams, f)
		},
	}
	fs := c.Flags()
	f.cluster.AddFlags(fs)
	fs.StringVar(&f.url, "url", "", "register the webhook served outside the cluster at https://HOST:PORT (`winkube gmsa serve` there)")
	fs.StringVar(&f.certDir, "cert-dir", "", "with --url: where the CA and serving certificate go (default <data dir>/gmsa-install, else ~/.config/winkube/gmsa)")
	fs.StringVarP(&f.namespace, "namespace", "n", "kube-system", "with --url: the namespace the configurations leave out, as upstream's leave out the webhook's own")
	fs.BoolVar(&f.print, "print", false, "print the objects as YAML instead of applying them")
	return c
}

func runInstall(ctx context.Context, streams cmd.IOStreams, f *installFlags) error {
	if f.url != "" {
		if _, err := install.URLHost(f.url); err != nil {
			return &cmd.ExitError{Code: 2, Err: err}
		}
	}
	if f.namespace == "" {
		return &cmd.ExitError{Code: 2, Err: fmt.Errorf("--namespace: want a namespace name")}
	}
	var certs *install.Certs
	certDir := ""
	if f.url != "" {
		var err error
		if certDir, err = f.defaultCertDir(); err != nil {
			return err
		}
		host, _ := install.URLHost(f.url)
		if certs, _, err = install.EnsureCerts(certDir, []string{host}); err != nil {
			return fmt.Errorf("--cert-dir %s: %w", certDir, err)
		}
	}
	if f.print {
		return printObjects(streams, f, certs)
	}
	cfg, err := f.cluster.RESTConfig()
	if err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	client, err := gmsa.NewClient(cfg, streams.Out)
	if err != nil {
		return err
	}
	fmt.Fprintf(streams.Out, "Installing the GMSACredentialSpec CRD in %s:\n", cfg.Host)
	if err := client.InstallCRD(ctx); err != nil {
		return fmt.Errorf("installing the CRD (check --kubeconfig and your permissions): %w", f.cluster.Explain(err))
	}
	if f.url == "" {
		fmt.Fprintln(streams.Out, "The webhook is not installed: run upstream's in the cluster (https://github.com/kubernetes-sigs/windows-gmsa, chart charts/gmsa), "+
			"or serve winkube's outside it and register it with --url. Without a webhook, pods naming a gmsaCredentialSpecName reach the nodes unresolved.")
		return nil
	}
	if err := client.Register(ctx, Instance, f.namespace, f.url, certs.CA); err != nil {
		return fmt.Errorf("registering the webhook: %w", err)
	}
	fmt.Fprintf(streams.Out, "Registered the GMSA webhook at %s (failurePolicy Fail: pod creates are refused until it answers).\n", f.url)
	fmt.Fprintf(streams.Out, "Run it where %s reaches it:\n  %s\n", f.url, serveCommand(f, certDir))
	return nil
}

func printObjects(streams cmd.IOStreams, f *installFlags, certs *install.Certs) error {
	docs := [][]byte{gmsa.CRDYAML()}
	if f.url != "" {
		u := f.url
		mut, val := gmsa.Configurations(Instance, f.namespace, admissionregistration(u, certs.CA))
		for _, obj := range []any{mut, val} {
			data, err := yaml.Marshal(obj)
			if err != nil {
				return err
			}
			docs = append(docs, data)
		}
	}
	for i, d := range docs {
		if i > 0 {
			fmt.Fprintln(streams.Out, "---")
		}
		fmt.Fprint(streams.Out, strings.TrimSuffix(string(d), "\n")+"\n")
	}
	return nil
}

// serveCommand is the `gmsa serve` line for a --url install.
func serveCommand(f *installFlags, certDir string) string {
	return install.ServeLine("winkube gmsa serve", f.url, certDir, f.cluster.Args()...)
}

func (f *installFlags) defaultCertDir() (string, error) {
	if f.certDir != "" {
		return filepath.Abs(f.certDir)
	}
	if f.cluster.DataDir != "" {
		dir, err := datadir.Resolve(f.cluster.DataDir)
		return filepath.Join(dir, "gmsa-install"), err
	}
	conf, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding a directory for the certificates (set --cert-dir): %w", err)
	}
	return filepath.Join(conf, "winkube", "gmsa"), nil
}

type serveFlags struct {
	listen, certFile, keyFile string
	cluster                   kubeflags.Flags
}

func newServeCommand(streams cmd.IOStreams) *cobra.Command {
	f := &serveFlags{}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run the windows-gmsa webhook's HTTPS server until SIGTERM or Ctrl-C",
		Long: "Serves " + gmsa.MutatePath + ", " + gmsa.ValidatePath + " (AdmissionReview v1) and " + gmsa.HealthPath + " over TLS, as " +
			"upstream's webhook does. It reads GMSACredentialSpecs and creates LocalSubjectAccessReviews through --kubeconfig " +
			"(else the pod's service account, else $KUBECONFIG or the cluster of --data-dir): it needs get on gmsacredentialspecs " +
			"and create on localsubjectaccessreviews.",
		Example: "  winkube gmsa serve --listen 10.0.0.5:9443 --tls-cert-file ~/.config/winkube/gmsa/tls.crt \\\n" +
			"      --tls-private-key-file ~/.config/winkube/gmsa/tls.key --kubeconfig ~/.kube/config",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runServe(c.Context(), streams, f)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.listen, "listen", ":8443", "address to serve HTTPS on, HOST:PORT")
	fs.StringVar(&f.certFile, "tls-cert-file", "", "PEM serving certificate, signed by the CA of the configurations' caBundle (required)")
	fs.StringVar(&f.keyFile, "tls-private-key-file", "", "PEM private key of --tls-cert-file (required)")
	f.cluster.AddFlags(fs)
	return c
}

func runServe(ctx context.Context, streams cmd.IOStreams, f *serveFlags) error {
	if f.certFile == "" || f.keyFile == "" {
		return &cmd.ExitError{Code: 2, Err: fmt.Errorf("--tls-cert-file and --tls-private-key-file are required (kube-apiserver calls webhooks over HTTPS)")}
	}
	cert, err := tls.LoadX509KeyPair(f.certFile, f.keyFile)
	if err != nil {
		return fmt.Errorf("--tls-cert-file %s, --tls-private-key-file %s: %w", f.certFile, f.keyFile, err)
	}
	cfg, err := f.cluster.InPodRESTConfig()
	if err != nil {
		return err
	}
	client, err := gmsa.NewClient(cfg, nil)
	if err != nil {
		return err
	}
	wh := gmsa.New(client.CredSpecs())
	wh.Logf = func(format string, args ...any) { fmt.Fprintf(streams.ErrOut, format+"\n", args...) }
	fmt.Fprintf(streams.Out, "Serving the GMSA webhook on https://%s (cluster %s).\n", f.listen, cfg.Host)
	if err := webhook.Serve(ctx, f.listen, cert, wh); err != nil {
		return fmt.Errorf("serving on --listen %s: %w", f.listen, err)
	}
	fmt.Fprintln(streams.Out, "Stopped.")
	return nil
}

func newUninstallCommand(streams cmd.IOStreams) *cobra.Command {
	f := &kubeflags.Flags{}
	c := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the webhook configurations `winkube gmsa install --url` registered",
		Long: "Deletes the mutating and validating configurations " + Instance + ". The CRD stays: deleting it would delete " +
			"every GMSACredentialSpec (kubectl delete crd " + gmsa.CRDName + " does that).",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := f.RESTConfig()
			if err != nil {
				return &cmd.ExitError{Code: 2, Err: err}
			}
			client, err := gmsa.NewClient(cfg, nil)
			if err != nil {
				return err
			}
			if err := client.Unregister(c.Context(), Instance); err != nil {
				return fmt.Errorf("removing the GMSA webhook (check --kubeconfig and your permissions): %w", f.Explain(err))
			}
			fmt.Fprintf(streams.Out, "Removed the GMSA webhook configurations %s from %s.\n", Instance, cfg.Host)
			return nil
		},
	}
	f.AddFlags(c.Flags())
	return c
}

func admissionregistration(u string, ca []byte) admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: ca}
}
