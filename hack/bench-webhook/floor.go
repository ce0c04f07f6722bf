package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"
)

// handlerTimesPath is where the measured server reports how long its
// handler took for the reviews since the last report, server side: the
// webhook's own share of a round trip, apart from TLS, HTTP, the loopback,
// the client and the machine's stalls.
const handlerTimesPath = "/bench/handler-times"

// timed records how long next takes for each review.
type timed struct {
	next http.Handler
	mu   sync.Mutex
	took []time.Duration
}

func (t *timed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == handlerTimesPath {
		t.report(w)
		return
	}
	if r.Method != http.MethodPost {
		t.next.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	t.next.ServeHTTP(w, r)
	took := time.Since(start)
	t.mu.Lock()
	t.took = append(t.took, took)
	t.mu.Unlock()
}

// report writes the percentiles of the recorded times and forgets them.
func (t *timed) report(w http.ResponseWriter) {
	t.mu.Lock()
	took := t.took
	t.took = nil
	t.mu.Unlock()
	slices.Sort(took)
	q := func(f float64) time.Duration {
		if len(took) == 0 {
			return 0
		}
		return took[int(f*float64(len(took)-1))]
	}
	fmt.Fprintf(w, "%d %d %d %d %d\n", len(took), q(0.5), q(0.9), q(0.99), q(0.999))
}

// answerTable is the floor the webhook is measured against: the same
// server answering each of the load's reviews with the bytes the real
// handler answered it with once, looked up by the request body, so that
// everything but the handler's work (TLS, HTTP, reading the body, the
// client's decoding) is the same. Anything else goes to the handler
// (/metrics).
func answerTable(h http.Handler) (http.Handler, error) {
	rs, err := reviews()
	if err != nil {
		return nil, err
	}
	answers := map[string][]byte{}
	for _, r := range rs {
		if answers[r.path+"\x00"+string(r.body)], err = answer(h, r); err != nil {
			return nil, err
		}
	}
	var buf sync.Pool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		b, _ := buf.Get().(*bytes.Buffer)
		if b == nil {
			b = new(bytes.Buffer)
		}
		b.Reset()
		defer buf.Put(b)
		if _, err := b.ReadFrom(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer, ok := answers[r.URL.Path+"\x00"+b.String()]
		if !ok {
			http.Error(w, "not one of the load's reviews", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}), nil
}

// answer is what h answers review r with, in process.
func answer(h http.Handler, r review) ([]byte, error) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, r.path, bytes.NewReader(r.body))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("%s: %d: %s", r.path, rec.Code, rec.Body)
	}
	return rec.Body.Bytes(), nil
}
