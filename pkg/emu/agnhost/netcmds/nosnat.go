package netcmds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spf13/pflag"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	netutils "k8s.io/utils/net"
)

// no-snat-test and no-snat-test-proxy follow test/images/agnhost/
// no-snat-test(-proxy) of v1.36.3; their handlers are unexported and
// dial with http.Get on the host, so they are written out here, with
// the pod network as the client's and the server's.

// NoSnatTestSetup declares the flags of its subcommand and returns its body.
func NoSnatTestSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var port string
	fs.StringVar(&port, "port", "8080", "The port to serve /checknosnat and /whoami endpoints on.")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		pip, ok := a.P.LookupEnv("POD_IP")
		if !ok {
			return runErr(a, errors.New("POD_IP env var was not present in the environment"))
		}
		nip, ok := a.P.LookupEnv("NODE_IP")
		if !ok {
			return runErr(a, errors.New("NODE_IP env var was not present in the environment"))
		}
		if netutils.ParseIPSloppy(pip) == nil {
			return runErr(a, fmt.Errorf("POD_IP env var contained %q, which is not an IP address", pip))
		}
		if netutils.ParseIPSloppy(nip) == nil {
			return runErr(a, fmt.Errorf("NODE_IP env var contained %q, which is not an IP address", nip))
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/whoami", func(w http.ResponseWriter, req *http.Request) {
			fmt.Fprintf(w, "%s", req.RemoteAddr)
		})
		mux.HandleFunc("/checknosnat", func(w http.ResponseWriter, req *http.Request) {
			var errs []string
			for _, ip := range strings.Split(req.URL.Query().Get("ips"), ",") {
				if err := checkNoSnat(a, req.Context(), ip, pip, nip); err != nil {
					errs = append(errs, err.Error())
				}
			}
			if len(errs) > 0 {
				w.WriteHeader(500)
				fmt.Fprintf(w, "%s", strings.Join(errs, ", "))
				return
			}
			w.WriteHeader(200)
		})
		return listenAndServe(a, ctx, port, mux)
	}
}

// checkNoSnat GETs ip/whoami and compares the address it saw with
// this pod's (pip), telling SNAT to the node (nip) from other SNAT.
func checkNoSnat(a *kit.App, ctx context.Context, ip, pip, nip string) error {
	url := fmt.Sprintf("http://%s/whoami", ip)
	body, _, err := get(a, ctx, url)
	if err != nil {
		return err
	}
	rip := strings.Split(body, ":")[0]
	if rip != pip {
		if rip == nip {
			return fmt.Errorf("Returned ip %q != my Pod ip %q, == my Node ip %q - SNAT", rip, pip, nip)
		}
		return fmt.Errorf("Returned ip %q != my Pod ip %q or my Node ip %q - SNAT to unexpected ip (possible SNAT through unexpected interface on the way into another node)", rip, pip, nip)
	}
	return nil
}

// NoSnatTestProxySetup declares the flags of its subcommand and returns its body.
func NoSnatTestProxySetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	var port string
	fs.StringVar(&port, "port", "31235", "The port to serve /checknosnat endpoint on.")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		mux := http.NewServeMux()
		mux.HandleFunc("/checknosnat", func(w http.ResponseWriter, req *http.Request) {
			url := fmt.Sprintf("http://%s/checknosnat?ips=%s", req.URL.Query().Get("target"), req.URL.Query().Get("ips"))
			body, code, err := get(a, req.Context(), url)
			if err != nil {
				w.WriteHeader(500)
				fmt.Fprintf(w, "error querying %q, err: %v", url, err)
				return
			}
			// The target pod's status and body, as they came.
			w.WriteHeader(code)
			io.WriteString(w, body)
		})
		return listenAndServe(a, ctx, port, mux)
	}
}

// get is http.Get through the pod network: the body and status.
func get(a *kit.App, ctx context.Context, url string) (string, int, error) {
	tr := podTransport(a, nil)
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, err
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", 0, err
	}
	return string(body), resp.StatusCode, nil
}

// runErr is main's end on Run's error: the error alone, status 1.
func runErr(a *kit.App, err error) int {
	fmt.Fprintf(a.P.Stderr, "%v\n", err)
	return 1
}

// listenAndServe is http.ListenAndServe(":"+port) on the pod network;
// its error ends the program through runErr.
func listenAndServe(a *kit.App, ctx context.Context, port string, h http.Handler) int {
	n, err := parsePort("tcp", port)
	if err != nil {
		return runErr(a, fmt.Errorf("listen tcp: %v", err))
	}
	if a.P.Sys.Net == nil {
		return wait(ctx)
	}
	l, err := kit.Listen(ctx, a.P, "tcp", n)
	if err != nil {
		return runErr(a, fmt.Errorf("listen tcp :%d: %v", n, err))
	}
	kit.ServeHTTP(ctx, l, h, a.Log, nil)
	return 0
}
