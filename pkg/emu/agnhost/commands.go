package agnhost

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/agnhost/netcmds"
)

// command is one agnhost subcommand: its cobra description and setup,
// which declares its flags on fs and returns the body that reads them.
// A nil setup marks a subcommand winkube does not emulate.
type command struct {
	use, short, long string
	args             cobra.PositionalArgs
	setup            func(fs *pflag.FlagSet) func(ctx context.Context, a *kit.App, args []string) int
}

func (c command) name() string {
	name, _, _ := strings.Cut(c.use, " ")
	return name
}

var noArgs = cobra.MaximumNArgs(0)

// commands are agnhost's subcommands, with the Use and Short texts of
// test/images/agnhost (help lists them).
func commands() []command {
	return []command{
		{use: "audit-proxy", short: "Listens on port 8080 for incoming audit events", args: noArgs},
		{use: "connect [host:port]", short: "Attempts a TCP, UDP or SCTP connection and returns useful errors", args: cobra.ExactArgs(1), setup: netcmds.ConnectSetup},
		{use: "crd-conversion-webhook", short: "Starts HTTP server on port 443 for testing CustomResourceConversionWebhook", args: noArgs, setup: netcmds.CRDConversionWebhookSetup},
		{use: "dns-server-list", short: "Prints the host's DNS Server list", long: "Prints the DNS Server list of this host.", args: noArgs, setup: plain(dnsServerList)},
		{use: "dns-suffix", short: "Prints the host's DNS suffix list", long: "Prints the DNS suffixes of this host.", args: noArgs, setup: plain(dnsSuffix)},
		{use: "entrypoint-tester", short: "Prints the args it's passed and exits", long: "Prints the args it's passed and exits.", setup: plain(entrypointTester)},
		{use: "etc-hosts", short: "Prints the host's /etc/hosts file", long: `Prints the "hosts" file of this host."`, args: noArgs, setup: plain(etcHosts)},
		{use: "external-metrics", short: "Starts an external metrics server for testing", args: noArgs},
		{use: "fake-gitserver", short: "Fakes a git server", args: noArgs, setup: plain(netcmds.FakeGitServer)},
		{use: "fake-registry-server", short: "Starts a fake registry server for testing"},
		{use: "grpc-health-checking", short: "Starts a simple grpc health checking endpoint", args: noArgs, setup: netcmds.GRPCHealthSetup},
		{use: "guestbook", short: "Creates a HTTP server with various endpoints representing a guestbook app", args: noArgs, setup: netcmds.GuestbookSetup},
		{use: "inclusterclient", short: `Periodically poll the Kubernetes "/healthz" endpoint`, args: noArgs, setup: netcmds.InClusterClientSetup},
		{use: "liveness", short: "Starts a server that is alive for 10 seconds", long: "A simple server that is alive for 10 seconds, then reports unhealthy for the rest of its (hopefully) short existence", args: noArgs, setup: plain(netcmds.Liveness)},
		{use: "logs-generator", short: "Outputs lines of logs to stdout uniformly", long: "Outputs <linesTotal> lines of logs to stdout uniformly for <duration>", args: noArgs, setup: logsGeneratorSetup},
		{use: "mounttest", short: "Creates files with given permissions and outputs FS type, owner, mode, permissions, contents of files", long: "Creates files with specific file permissions, and outputs the filesystem type, owner, mode, permissions, content of the given files, if they exist.", args: noArgs, setup: mounttestSetup},
		{use: "mtlsclient", short: "Client is configured to build mTLS with server", args: noArgs},
		{use: "mtlsserver", short: "Server is configured to build mTLS with client and echo client's spiffe identity", args: noArgs},
		{use: "net", short: "Creates webserver or runner for various networking tests", args: noArgs},
		{use: "netexec", short: "Creates HTTP(S), UDP, and (optionally) SCTP servers with various endpoints", args: noArgs, setup: netcmds.NetexecSetup},
		{use: "nettest", short: "Starts a tiny web server for checking networking connectivity", args: noArgs, setup: netcmds.NettestSetup},
		{use: "no-snat-test", short: "Creates the /checknosnat and /whoami endpoints", args: noArgs, setup: netcmds.NoSnatTestSetup},
		{use: "no-snat-test-proxy", short: "Creates a proxy for the /checknosnat endpoint", args: noArgs, setup: netcmds.NoSnatTestProxySetup},
		{use: "nonewprivs", short: "Prints the UID of the running process", long: "A go app that prints the UID of the process running to test security context features", args: noArgs, setup: plain(nonewprivs)},
		{use: "pause", short: "Pauses the execution", long: "Pauses the execution. Useful for keeping the containers running, so other commands can be executed.", args: noArgs, setup: plain(pause)},
		{use: "podcertificatesigner", short: "Sign PodCertificateRequests addressed to a given signer", args: noArgs},
		{use: "port-forward-tester", short: "Creates a TCP server that sends chunks of data", args: noArgs},
		{use: "porter", short: "Serves requested data on ports specified in ENV variables", args: noArgs, setup: netcmds.PorterSetup},
		{use: "resource-consumer-controller", short: "Starts a HTTP server that spreads requests around resource consumers", args: noArgs, setup: netcmds.ConsumerControllerSetup},
		{use: "serve-hostname", short: "Serves the hostname", long: "Serves the hostname through HTTP / TCP / UDP on the given port.", args: noArgs, setup: netcmds.ServeHostnameSetup},
		{use: "stress", short: "Lightweight compute resource stress utlity", args: cobra.NoArgs},
		{use: "tcp-reset", short: "Serves on a tcp port and RST the connections received", args: noArgs, setup: netcmds.TCPResetSetup},
		{use: "test-service-account-issuer-discovery", short: "Tests the ServiceAccountIssuerDiscovery feature", long: "Reads in a mounted token and attempts to verify it against the API server's OIDC endpoints, using a third-party OIDC implementation.", args: noArgs, setup: netcmds.IssuerDiscoverySetup},
		{use: "test-webserver", short: "Starts a simple HTTP fileserver", long: "Starts a simple HTTP fileserver on the given --port, which serves any file specified in the URL path, if it exists.", args: noArgs, setup: netcmds.TestWebserverSetup},
		{use: "webhook", short: "Starts a HTTP server, useful for testing MutatingAdmissionWebhook and ValidatingAdmissionWebhook", args: noArgs, setup: netcmds.WebhookSetup},
	}
}

// plain is the setup of a subcommand without flags.
func plain(fn func(ctx context.Context, a *kit.App, args []string) int) func(*pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	return func(*pflag.FlagSet) func(context.Context, *kit.App, []string) int { return fn }
}
