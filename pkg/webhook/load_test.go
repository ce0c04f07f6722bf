package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const benchPod = `
metadata: {name: iis}
spec:
  nodeSelector: {disk: ssd}
  tolerations: [{key: dedicated, operator: Exists}]
  initContainers: [{name: setup, image: "mcr.microsoft.com/windows/nanoserver:ltsc2022"}]
  containers:
  - {name: iis, image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}
  - {name: logs, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}
`

// benchNodes is a cluster of 3 Linux, 10 Windows 2019 and 10 Windows 2022
// nodes, all with disk=ssd.
func benchNodes() []*corev1.Node {
	var nodes []*corev1.Node
	add := func(prefix, os, build string, n int) {
		for i := 0; i < n; i++ {
			node := testNode(prefix+strconv.Itoa(i), os, build, "containerd")
			node.Labels["disk"] = "ssd"
			nodes = append(nodes, node)
		}
	}
	add("linux-", "linux", "", 3)
	add("win2019-", "windows", build2019, 10)
	add("win2022-", "windows", build2022, 10)
	return nodes
}

// BenchmarkMutate is one placement decision for a three-container
// Windows pod on a 23-node cluster, images from the catalog.
func BenchmarkMutate(b *testing.B) {
	h := newTestHandler(b, Options{}, benchNodes())
	req := podRequest(b, benchPod)
	b.ReportAllocs()
	for b.Loop() {
		if resp := h.Mutate(context.Background(), req); resp.Patch == nil {
			b.Fatal("not placed")
		}
	}
}

// BenchmarkServeMutate is the same decision through ServeHTTP, with the
// review decoded and the response encoded.
func BenchmarkServeMutate(b *testing.B) {
	h := newTestHandler(b, Options{}, benchNodes())
	body := reviewBody(b, podRequest(b, benchPod))
	b.ReportAllocs()
	for b.Loop() {
		rec := &discardWriter{h: http.Header{}}
		h.ServeHTTP(rec, newPost(body))
		if rec.code != 0 && rec.code != http.StatusOK {
			b.Fatalf("status %d", rec.code)
		}
	}
}

// TestLoad sends admission reviews over HTTPS on the loopback at a fixed
// rate with a warm cache and reports latency percentiles, goroutines and
// heap. It runs only with WINKUBE_WEBHOOK_LOAD=1 (WINKUBE_WEBHOOK_LOAD_RATE
// requests/s, default 1000; WINKUBE_WEBHOOK_LOAD_SECONDS, default 60):
//
//	WINKUBE_WEBHOOK_LOAD=1 go test -short -run TestLoad -v ./pkg/webhook/
//
// It fails only on errors; the figures are for the notes.
func TestLoad(t *testing.T) {
	if os.Getenv("WINKUBE_WEBHOOK_LOAD") != "1" {
		t.Skip("load test: set WINKUBE_WEBHOOK_LOAD=1")
	}
	rate := envInt("WINKUBE_WEBHOOK_LOAD_RATE", 1000)
	seconds := envInt("WINKUBE_WEBHOOK_LOAD_SECONDS", 60)

	caPEM, cert, err := selfSignedServing()
	if err != nil {
		t.Fatal(err)
	}
	h := newTestHandler(t, Options{}, benchNodes())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeListener(ctx, ln, cert, h) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	// The API server keeps connections to a webhook alive; so does this
	// client, with enough idle connections for the concurrency.
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: 64}
	defer transport.CloseIdleConnections()
	httpClient := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	url := "https://" + ln.Addr().String() + MutatePath
	body := reviewBody(t, podRequest(t, benchPod))
	send := func() error {
		resp, err := httpClient.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(resp.Body).Decode(&review); err != nil {
			return err
		}
		if review.Response == nil || review.Response.Patch == nil {
			return errNotPlaced
		}
		return nil
	}
	for i := 0; i < 200; i++ { // warm up: connections, caches
		if err := send(); err != nil {
			t.Fatal(err)
		}
	}
	goroutinesBefore, heapBefore := settle()

	total := rate * seconds
	latencies := make([]time.Duration, total)
	var errs, late int
	var mu sync.Mutex
	var wg sync.WaitGroup
	jobs := make(chan int, total)
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				start := time.Now()
				err := send()
				latencies[i] = time.Since(start)
				if err != nil {
					mu.Lock()
					errs++
					mu.Unlock()
				}
			}
		}()
	}
	interval := time.Second / time.Duration(rate)
	began := time.Now()
	for i := 0; i < total; i++ {
		next := began.Add(time.Duration(i) * interval)
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		} else if d < -10*time.Millisecond {
			late++
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(began)
	transport.CloseIdleConnections()
	goroutinesAfter, heapAfter := settle()

	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) time.Duration { return latencies[int(p*float64(len(latencies)-1))] }
	t.Logf("%d requests in %s (%.0f req/s achieved, %d sent more than 10ms late), %d errors",
		total, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), late, errs)
	t.Logf("latency (HTTPS round trip): p50 %s, p90 %s, p99 %s, p99.9 %s, max %s",
		pct(0.50), pct(0.90), pct(0.99), pct(0.999), latencies[len(latencies)-1])
	t.Logf("goroutines %d -> %d, heap in use %.1f MiB -> %.1f MiB (after GC)",
		goroutinesBefore, goroutinesAfter, float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20))
	t.Logf("server-side (handler) latency: p50 <= %s, p99 <= %s (histogram bucket bounds)",
		serverQuantile(t, h, 0.50), serverQuantile(t, h, 0.99))
	if errs > 0 {
		t.Errorf("%d of %d requests failed", errs, total)
	}
}

// serverQuantile is the upper bound of the latency histogram's bucket
// holding quantile q of the /mutate requests.
func serverQuantile(t *testing.T, h *Handler, q float64) time.Duration {
	t.Helper()
	families, err := h.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "winkube_webhook_request_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			hist := m.GetHistogram()
			want := q * float64(hist.GetSampleCount())
			for _, b := range hist.GetBucket() {
				if float64(b.GetCumulativeCount()) >= want {
					return time.Duration(b.GetUpperBound() * float64(time.Second))
				}
			}
		}
	}
	return 0
}

var errNotPlaced = errors.New("the pod was not placed")

// settle collects garbage and returns the goroutine count and live heap.
func settle() (int, uint64) {
	runtime.GC()
	time.Sleep(100 * time.Millisecond) // let finished goroutines exit
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapInuse
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func reviewBody(t testing.TB, req *admissionv1.AdmissionRequest) []byte {
	t.Helper()
	return mustJSON(t, admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	})
}

func newPost(body []byte) *http.Request {
	r, _ := http.NewRequest(http.MethodPost, MutatePath, bytes.NewReader(body))
	return r
}

// discardWriter is a ResponseWriter that keeps only the status.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
