package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/webhook"
)

// review is one request the load sends in turn with the others.
type review struct {
	path  string
	uid   types.UID
	body  []byte
	patch bool // the answer must carry a patch (a placed pod)
}

// reviews are what kube-apiserver sends a cluster's webhook most: a
// Windows pod to place (three images, two builds to choose between), a
// Linux pod, and a Deployment to validate.
func reviews() ([]review, error) {
	winPod := `{"metadata": {"name": "iis"}, "spec": {"containers": [
		{"name": "iis", "image": "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"},
		{"name": "logs", "image": "mcr.microsoft.com/windows/servercore:ltsc2022"}],
		"initContainers": [{"name": "setup", "image": "mcr.microsoft.com/windows/nanoserver:ltsc2022"}]}}`
	linuxPod := `{"metadata": {"name": "nginx"}, "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}`
	deploy := `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
		"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
		"spec": {"containers": [{"name": "web", "image": "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"}]}}}}`
	pod := metav1.GroupVersionResource{Version: "v1", Resource: "pods"}
	podKind := metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}
	var out []review
	for i, r := range []struct {
		path, object string
		res          metav1.GroupVersionResource
		kind         metav1.GroupVersionKind
		patch        bool
	}{
		{webhook.MutatePath, winPod, pod, podKind, true},
		{webhook.MutatePath, linuxPod, pod, podKind, false},
		{webhook.ValidatePath, winPod, pod, podKind, false},
		{webhook.ValidatePath, deploy, metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, false},
	} {
		raw, err := yaml.YAMLToJSON([]byte(r.object))
		if err != nil {
			return nil, err
		}
		uid := types.UID(fmt.Sprintf("bench-%d", i))
		body, err := json.Marshal(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request: &admissionv1.AdmissionRequest{
				UID: uid, Kind: r.kind, Resource: r.res, Namespace: "default", Operation: admissionv1.Create,
				Object: runtime.RawExtension{Raw: raw},
			},
		})
		if err != nil {
			return nil, err
		}
		out = append(out, review{path: r.path, uid: uid, body: body, patch: r.patch})
	}
	return out, nil
}

// send posts one review and checks the answer is the one asked for.
func send(client *http.Client, base string, r review) error {
	resp, err := client.Post(base+r.path, "application/json", bytes.NewReader(r.body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s: %s: %s", r.path, resp.Status, msg)
	}
	var got admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		return fmt.Errorf("%s: decoding the answer: %w", r.path, err)
	}
	switch {
	case got.Response == nil || got.Response.UID != r.uid:
		return fmt.Errorf("%s: answer without the request's UID", r.path)
	case !got.Response.Allowed:
		return fmt.Errorf("%s: denied: %v", r.path, got.Response.Result)
	case r.patch && got.Response.Patch == nil:
		return fmt.Errorf("%s: the Windows pod was not placed", r.path)
	}
	return nil
}

// result is what a run measured.
type result struct {
	sent, errors, late int
	firstError         string
	latencies          []time.Duration // sorted
	elapsed            time.Duration
}

func (r *result) quantile(q float64) time.Duration {
	return r.latencies[int(q*float64(len(r.latencies)-1))]
}

// run sends rate requests a second for d, open loop: each request leaves at
// its scheduled time whatever the earlier ones do (as kube-apiserver's
// callers would), from up to workers connections at once; a request that
// cannot leave within 10ms of its time counts as late (the server fell
// behind and held every connection).
func run(client *http.Client, base string, rs []review, rate int, d time.Duration, workers int, tick func()) *result {
	total := rate * int(d/time.Second)
	res := &result{sent: total, latencies: make([]time.Duration, total)}
	jobs := make(chan int, workers)
	var errs atomic.Int64
	var once sync.Once
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				start := time.Now()
				err := send(client, base, rs[i%len(rs)])
				res.latencies[i] = time.Since(start)
				if err != nil {
					errs.Add(1)
					once.Do(func() { res.firstError = err.Error() })
				}
			}
		}()
	}
	interval := time.Second / time.Duration(rate)
	began, nextTick := time.Now(), time.Now().Add(10*time.Second)
	for i := range total {
		at := began.Add(time.Duration(i) * interval)
		if wait := time.Until(at); wait > 0 {
			time.Sleep(wait)
		}
		jobs <- i
		if time.Since(at) > 10*time.Millisecond {
			res.late++
		}
		if time.Now().After(nextTick) {
			tick()
			nextTick = nextTick.Add(10 * time.Second)
		}
	}
	close(jobs)
	wg.Wait()
	res.elapsed = time.Since(began)
	res.errors = int(errs.Load())
	slices.Sort(res.latencies)
	return res
}
