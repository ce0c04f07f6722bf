// Command bench-webhook measures winkube's admission webhook under load:
// it serves the handler `winkube up --webhook` builds in a process of its
// own on 127.0.0.1, sends it AdmissionReviews at a fixed rate over HTTPS
// with kept-alive connections (as kube-apiserver does), and reports
// latency percentiles, errors, and the server's RSS, heap and goroutines
// before and after. It exits 1 on any error or when the server's memory
// or goroutines grew.
//
//	go run ./hack/bench-webhook                    # 1,000 requests/s for 60 s
//	go run ./hack/bench-webhook -rate 200 -duration 10s
//
// Only 127.0.0.1 is dialled; no registry is asked (catalog images).
package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/winkube/winkube/pkg/webhook/install"
)

func main() {
	rate := flag.Int("rate", 1000, "requests per second")
	duration := flag.Duration("duration", 60*time.Second, "length of the measured run (whole seconds)")
	workers := flag.Int("workers", 64, "most requests in flight at once (connections)")
	serveDir := flag.String("serve", "", "internal: be the measured server, with the certificates in this directory")
	flag.Parse()
	if *serveDir != "" {
		if err := serve(*serveDir); err != nil {
			fmt.Fprintln(os.Stderr, "bench-webhook server:", err)
			os.Exit(1)
		}
		return
	}
	if *rate <= 0 || *duration < time.Second || *workers <= 0 {
		fmt.Fprintln(os.Stderr, "bench-webhook: -rate and -workers must be positive and -duration at least 1s")
		os.Exit(2)
	}
	ok, err := bench(*rate, *duration, *workers)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-webhook:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// bench starts the server, warms it up, measures, and reports; ok is false
// when a request failed or the server's memory grew.
func bench(rate int, d time.Duration, workers int) (ok bool, err error) {
	dir, err := os.MkdirTemp("", "bench-webhook-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	certs, _, err := install.EnsureCerts(dir, []string{"127.0.0.1"})
	if err != nil {
		return false, err
	}
	srv, addr, err := startServer(dir)
	if err != nil {
		return false, err
	}
	defer srv.stop()

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certs.CA)
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: workers}
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	base := "https://" + addr
	rs, err := reviews()
	if err != nil {
		return false, err
	}
	for i := range 2000 { // warm up: connections, caches, the heap's working size
		if err := send(client, base, rs[i%len(rs)]); err != nil {
			return false, fmt.Errorf("warm-up: %w", err)
		}
	}
	before, err := srv.sample(client, base)
	if err != nil {
		return false, err
	}
	fmt.Printf("server PID %d on %s; before: %s\n", srv.cmd.Process.Pid, addr, before)
	res := run(client, base, rs, rate, d, workers, func() {
		if s, err := srv.sample(client, base); err == nil {
			fmt.Printf("  %s\n", s)
		}
	})
	// The server holds a goroutine per kept-alive connection; closing ours
	// lets a leak show apart from them.
	transport.CloseIdleConnections()
	time.Sleep(2 * time.Second)
	after, err := srv.sample(client, base)
	if err != nil {
		return false, err
	}
	report(res, rate, before, after)
	return res.errors == 0 && !after.grewFrom(before), nil
}

func report(res *result, rate int, before, after memory) {
	fmt.Printf("%d requests in %s (%.0f/s asked %d/s, %d left more than 10ms late), %d errors\n",
		res.sent, res.elapsed.Round(time.Millisecond), float64(res.sent)/res.elapsed.Seconds(), rate, res.late, res.errors)
	if res.firstError != "" {
		fmt.Printf("first error: %s\n", res.firstError)
	}
	fmt.Printf("latency (HTTPS round trip on 127.0.0.1): p50 %s, p90 %s, p99 %s, p99.9 %s, max %s\n",
		res.quantile(0.5), res.quantile(0.9), res.quantile(0.99), res.quantile(0.999), res.latencies[len(res.latencies)-1])
	fmt.Printf("server before: %s\nserver after:  %s\n", before, after)
	if after.grewFrom(before) {
		fmt.Println("memory or goroutines GREW")
	}
}

// server is the measured child process.
type server struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
}

func startServer(certDir string) (*server, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(exe, "-serve", certDir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	s := &server{cmd: cmd, stdin: stdin}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		s.stop()
		return nil, "", errors.New("the server exited before it listened")
	}
	return s, line[:len(line)-1], nil
}

// stop closes the server's stdin, which ends it, and reaps it.
func (s *server) stop() {
	_ = s.stdin.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill() // our own child, by its handle
		<-done
	}
}
