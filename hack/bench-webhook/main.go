// Command bench-webhook measures winkube's admission webhook under load:
// it serves the handler `winkube up --webhook` builds in a process of its
// own on 127.0.0.1, sends it AdmissionReviews at a fixed rate over HTTPS
// with kept-alive connections (as kube-apiserver does), and reports
// latency percentiles, errors, and the server's RSS, heap and goroutines
// before and after. It then measures the floor under the same load: the
// same server answering each review from a table, so that what TLS, HTTP,
// the client and the machine cost shows apart from the webhook's work;
// both servers also report their handler's own time. It exits 1 on any
// error or when a server's memory or goroutines grew.
//
//	go run ./hack/bench-webhook                    # 1,000 requests/s for 60 s, each
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
	table := flag.Bool("table", false, "internal: with -serve, answer from a table (the floor)")
	flag.Parse()
	if *serveDir != "" {
		if err := serve(*serveDir, *table); err != nil {
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

// bench measures the webhook, then the floor (the same server answering
// from a table, answerTable) under the same load, and reports both; ok is
// false when a request failed or the server's memory grew.
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
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certs.CA)
	ok = true
	for _, table := range []bool{false, true} {
		if table {
			fmt.Println("\nthe floor: the same server answering each review from a table (TLS, HTTP, the client and the machine; no webhook work):")
		}
		m, err := measure(dir, pool, table, rate, d, workers)
		if err != nil {
			return false, err
		}
		m.report(rate)
		ok = ok && m.ok()
	}
	return ok, nil
}

// measured is one server's run.
type measured struct {
	res           *result
	before, after memory
	handler       string // the server's handler times (handlerTimesPath)
}

func (m *measured) ok() bool { return m.res.errors == 0 && !m.after.grewFrom(m.before) }

// measure starts a server (the webhook, or with table its floor), warms it
// up, sends the load and stops it.
func measure(dir string, pool *x509.CertPool, table bool, rate int, d time.Duration, workers int) (*measured, error) {
	srv, addr, err := startServer(dir, table)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: workers}
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	base := "https://" + addr
	rs, err := reviews()
	if err != nil {
		return nil, err
	}
	for i := range 2000 { // warm up: connections, caches, the heap's working size
		if err := send(client, base, rs[i%len(rs)]); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	if _, err := handlerTimes(client, base); err != nil { // forget the warm-up's
		return nil, err
	}
	m := &measured{}
	if m.before, err = srv.sample(client, base); err != nil {
		return nil, err
	}
	fmt.Printf("server PID %d on %s; before: %s\n", srv.cmd.Process.Pid, addr, m.before)
	m.res = run(client, base, rs, rate, d, workers, func() {
		if s, err := srv.sample(client, base); err == nil {
			fmt.Printf("  %s\n", s)
		}
	})
	if m.handler, err = handlerTimes(client, base); err != nil {
		return nil, err
	}
	// The server holds a goroutine per kept-alive connection; closing ours
	// lets a leak show apart from them.
	transport.CloseIdleConnections()
	time.Sleep(2 * time.Second)
	if m.after, err = srv.sample(client, base); err != nil {
		return nil, err
	}
	return m, nil
}

// handlerTimes reads the server's handler times since the last read.
func handlerTimes(client *http.Client, base string) (string, error) {
	resp, err := client.Get(base + handlerTimesPath)
	if err != nil {
		return "", fmt.Errorf("reading the server's handler times: %w", err)
	}
	defer resp.Body.Close()
	var n int
	var q [4]time.Duration
	if _, err := fmt.Fscan(resp.Body, &n, &q[0], &q[1], &q[2], &q[3]); err != nil {
		return "", fmt.Errorf("reading the server's handler times: %w", err)
	}
	return fmt.Sprintf("p50 %s, p90 %s, p99 %s, p99.9 %s (%d reviews)", q[0], q[1], q[2], q[3], n), nil
}

func (m *measured) report(rate int) {
	res := m.res
	fmt.Printf("%d requests in %s (%.0f/s asked %d/s, %d left more than 10ms late), %d errors\n",
		res.sent, res.elapsed.Round(time.Millisecond), float64(res.sent)/res.elapsed.Seconds(), rate, res.late, res.errors)
	if res.firstError != "" {
		fmt.Printf("first error: %s\n", res.firstError)
	}
	fmt.Printf("latency (HTTPS round trip on 127.0.0.1): p50 %s, p90 %s, p99 %s, p99.9 %s, max %s\n",
		res.quantile(0.5), res.quantile(0.9), res.quantile(0.99), res.quantile(0.999), res.latencies[len(res.latencies)-1])
	fmt.Printf("in the server's handler: %s\n", m.handler)
	fmt.Printf("server before: %s\nserver after:  %s\n", m.before, m.after)
	if m.after.grewFrom(m.before) {
		fmt.Println("memory or goroutines GREW")
	}
}

// server is the measured child process.
type server struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
}

func startServer(certDir string, table bool) (*server, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(exe, "-serve", certDir, fmt.Sprintf("-table=%t", table))
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
