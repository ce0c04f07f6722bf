package selfimage

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/webhook"
)

// commandPath is how winkube names the command in its errors.
const commandPath = "winkube webhook serve"

// serveFlags are the flags of `winkube webhook serve`
// (pkg/cmd/winkube/webhook/serve.go), with the same names and defaults;
// the policy flags are the very definitions the real command uses.
type serveFlags struct {
	listen     string
	certFile   string
	keyFile    string
	kubeconfig string
	dataDir    string
	policy     webhook.ServeFlags
}

// usageError is a refusal of the command line: the line winkube prints
// (after "winkube: ") and its exit status.
type usageError struct {
	msg  string
	code int
}

func (e *usageError) Error() string { return e.msg }

// parse reads the arguments after `webhook serve` as the real command
// does. --help prints the usage on out and returns errHelp.
func parse(args []string, out io.Writer) (*serveFlags, error) {
	f := &serveFlags{}
	fs := pflag.NewFlagSet(commandPath, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.listen, "listen", ":8443", "address to serve HTTPS on, HOST:PORT (all interfaces by default, as a pod needs)")
	fs.StringVar(&f.certFile, "tls-cert-file", "", "PEM serving certificate, signed by the CA of the webhook configurations' caBundle (required)")
	fs.StringVar(&f.keyFile, "tls-private-key-file", "", "PEM private key of --tls-cert-file (required)")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default $KUBECONFIG, else the winkube cluster of --data-dir)")
	fs.StringVar(&f.dataDir, "data-dir", "", "winkube data directory whose cluster to use when no kubeconfig is given (default ~/.winkube/default)")
	f.policy.AddFlags(fs)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, pflag.ErrHelp):
		fmt.Fprintf(out, "Usage:\n  %s [flags]\n\nFlags:\n%s", commandPath, fs.FlagUsages())
		return nil, errHelp
	case err != nil:
		return nil, &usageError{fmt.Sprintf("%v (see '%s --help')", err, commandPath), 2}
	case fs.NArg() > 0:
		// cobra.NoArgs; winkube exits 1 for it, as here.
		return nil, &usageError{fmt.Sprintf("unknown command %q for %q", fs.Arg(0), commandPath), 1}
	case f.certFile == "" || f.keyFile == "":
		return nil, &usageError{"--tls-cert-file and --tls-private-key-file are required (kube-apiserver calls webhooks over HTTPS)", 2}
	}
	if err := f.policy.Validate(); err != nil {
		return nil, &usageError{err.Error(), 2}
	}
	return f, nil
}

var errHelp = errors.New("help requested")
