package webhook

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/version"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/webhook"
	"github.com/winkube/winkube/pkg/webhook/install"
)

// DefaultImageRepository is where the winkube image is published; the tag
// is this build's version.
const DefaultImageRepository = webhook.ImageRepository

type installFlags struct {
	cluster        clusterFlags
	decision       decisionFlags
	namespace      string
	image          string
	url            string
	certDir        string
	failurePolicy  string
	timeoutSeconds int32
	replicas       int32
	certManager    string
}

func newInstallCommand(streams cmd.IOStreams) *cobra.Command {
	f := &installFlags{}
	c := &cobra.Command{
		Use:   "install",
		Short: "Run the webhook in a cluster and register it (or register one served at --url)",
		Long: "In the cluster (default): a namespace, a service account with read access to nodes, RuntimeClasses, " +
			"secrets and service accounts, the serving certificate (cert-manager's when it is installed, else a " +
			"generated CA whose bundle is patched into the configurations), a Deployment on Linux nodes, a " +
			"Service, and the mutating and validating webhook configurations.\n\n" +
			"With --url, the webhook runs outside the cluster: install writes a CA and serving certificate for " +
			"the URL's host into --cert-dir, registers the configurations pointing at the URL, and prints the " +
			"`winkube webhook serve` command to run there.\n\n" +
			"Running install again updates the objects and keeps valid certificates. The configurations exclude " +
			"kube-system and the webhook's namespace, and fail open (--failure-policy Ignore) unless told otherwise.",
		Example: "  winkube webhook install --kubeconfig ~/.kube/config\n" +
			"  winkube webhook install --data-dir ~/.winkube/default --url https://127.0.0.1:9443",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runInstall(c.Context(), streams, c.Flags(), f)
		},
	}
	fs := c.Flags()
	f.cluster.add(fs)
	f.decision.add(fs)
	// A cluster's webhook reaches registries; the pods get
	// --resolve-images=registry unless the flag says otherwise.
	fs.Lookup("resolve-images").DefValue = "registry"
	fs.StringVarP(&f.namespace, "namespace", "n", install.DefaultNamespace, "namespace of the webhook's Deployment, Service and Secret (excluded from admission)")
	fs.StringVar(&f.image, "image", DefaultImageRepository+":"+version.Winkube(), "winkube image the Deployment runs (its entrypoint is winkube)")
	fs.StringVar(&f.url, "url", "", "register a webhook served outside the cluster at https://HOST:PORT instead of running it in the cluster")
	fs.StringVar(&f.certDir, "cert-dir", "", "with --url: where the CA and serving certificate go (default <data dir>/webhook-install, else ~/.config/winkube/webhook)")
	fs.StringVar(&f.failurePolicy, "failure-policy", string(install.DefaultFailurePolicy), "what kube-apiserver does when the webhook cannot answer: Ignore (admit) or Fail (refuse)")
	fs.Int32Var(&f.timeoutSeconds, "timeout-seconds", install.DefaultTimeoutSeconds, "how long kube-apiserver waits for the webhook, 1 to 30 seconds")
	fs.Int32Var(&f.replicas, "replicas", install.DefaultReplicas, "replicas of the webhook's Deployment")
	fs.StringVar(&f.certManager, "cert-manager", "auto", "serving certificate from cert-manager: auto (when its CRDs exist), true or false")
	return c
}

func (f *installFlags) options(fs *pflag.FlagSet) (install.Options, error) {
	o := install.Options{
		Namespace:      f.namespace,
		Image:          f.image,
		Replicas:       f.replicas,
		TimeoutSeconds: f.timeoutSeconds,
		URL:            f.url,
		ServeArgs:      f.decision.args(fs),
	}
	if !fs.Changed("resolve-images") {
		o.ServeArgs = append(o.ServeArgs, "--resolve-images=registry")
	}
	switch p := admissionregistrationv1.FailurePolicyType(f.failurePolicy); p {
	case admissionregistrationv1.Ignore, admissionregistrationv1.Fail:
		o.FailurePolicy = p
	default:
		return o, fmt.Errorf("--failure-policy %q: want Ignore or Fail", f.failurePolicy)
	}
	if f.timeoutSeconds < 1 || f.timeoutSeconds > 30 {
		return o, fmt.Errorf("--timeout-seconds %d: kube-apiserver accepts 1 to 30", f.timeoutSeconds)
	}
	if f.replicas < 1 {
		return o, fmt.Errorf("--replicas %d: want at least 1", f.replicas)
	}
	switch f.certManager {
	case "auto", "true", "false":
	default:
		return o, fmt.Errorf("--cert-manager %q: want auto, true or false", f.certManager)
	}
	if f.url != "" {
		if _, err := install.URLHost(f.url); err != nil {
			return o, err
		}
	}
	return o, f.decision.validate()
}

func runInstall(ctx context.Context, streams cmd.IOStreams, fs *pflag.FlagSet, f *installFlags) error {
	o, err := f.options(fs)
	if err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	cfg, err := f.cluster.restConfig(false)
	if err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	client, err := install.NewClient(cfg, streams.Out)
	if err != nil {
		return err
	}
	certDir := ""
	if o.URL != "" {
		if certDir, err = f.defaultCertDir(); err != nil {
			return err
		}
		fmt.Fprintf(streams.Out, "Registering the winkube webhook at %s with %s:\n", o.URL, cfg.Host)
	} else {
		o.CertManager = f.certManager == "true" || (f.certManager == "auto" && client.HasCertManager())
		fmt.Fprintf(streams.Out, "Installing the winkube webhook (%s) in namespace %s of %s:\n", o.Image, o.Namespace, cfg.Host)
		if warning := install.EmulatedWarning(o); warning != "" && client.Emulated(ctx) {
			fmt.Fprintln(streams.ErrOut, warning)
		}
	}
	res, err := client.Install(ctx, o, certDir)
	if err != nil {
		return fmt.Errorf("installing the webhook (check --kubeconfig and your permissions): %w", err)
	}
	summary(streams.Out, o, res, certDir, f)
	return nil
}

func summary(out io.Writer, o install.Options, res *install.Result, certDir string, f *installFlags) {
	certs := "the CA of the last install, still valid"
	switch {
	case o.CertManager && o.URL == "":
		certs = "cert-manager (Issuer " + install.IssuerName + "; its cainjector fills the caBundle)"
	case res.CertsCreated:
		certs = "a new CA"
	}
	if o.URL == "" {
		fmt.Fprintf(out, "Installed: serving certificate from %s, failurePolicy %s.\n", certs, o.FailurePolicy)
		fmt.Fprintf(out, "Wait for it: kubectl -n %s rollout status deployment/%s\n", o.Namespace, install.Name)
		return
	}
	fmt.Fprintf(out, "Registered: serving certificate in %s from %s, failurePolicy %s.\n", certDir, certs, o.FailurePolicy)
	fmt.Fprintf(out, "Run the webhook where %s reaches it:\n  %s\n", o.URL, serveCommand(o, certDir, f))
}

// serveCommand is the `webhook serve` line for a --url install.
func serveCommand(o install.Options, certDir string, f *installFlags) string {
	// Options checked the URL already.
	return install.ServeLine("winkube webhook serve", o.URL, certDir, append(f.cluster.Args(), o.ServeArgs...)...)
}

// defaultCertDir is --cert-dir, else the webhook directory of the winkube
// data dir when one was named, else the user's config directory.
func (f *installFlags) defaultCertDir() (string, error) {
	if f.certDir != "" {
		return filepath.Abs(f.certDir)
	}
	if f.cluster.DataDir != "" {
		dir, err := datadir.Resolve(f.cluster.DataDir)
		// Not <data dir>/webhook, which `up --webhook` keeps for its own.
		return filepath.Join(dir, "webhook-install"), err
	}
	conf, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding a directory for the certificates (set --cert-dir): %w", err)
	}
	return filepath.Join(conf, "winkube", "webhook"), nil
}

func newUninstallCommand(streams cmd.IOStreams) *cobra.Command {
	f := &clusterFlags{}
	c := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove what `winkube webhook install` created",
		Long: "Deletes the objects `winkube webhook install` created (label app.kubernetes.io/managed-by=winkube): " +
			"the webhook configurations first, so kube-apiserver stops calling the webhook, the namespace last " +
			"(only when install created it). Certificates written for --url stay in their directory.",
		Example: "  winkube webhook uninstall --kubeconfig ~/.kube/config",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := f.restConfig(false)
			if err != nil {
				return &cmd.ExitError{Code: 2, Err: err}
			}
			client, err := install.NewClient(cfg, streams.Out)
			if err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "Removing the winkube webhook from %s:\n", cfg.Host)
			removed, err := client.Uninstall(c.Context(), install.Name)
			if err != nil {
				return fmt.Errorf("removing the webhook (check --kubeconfig and your permissions): %w", err)
			}
			if len(removed) == 0 {
				fmt.Fprintln(streams.Out, "Nothing to remove.")
				return nil
			}
			fmt.Fprintf(streams.Out, "Removed %d objects.\n", len(removed))
			return nil
		},
	}
	f.add(c.Flags())
	return c
}
