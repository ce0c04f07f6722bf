package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The floor answers each of the load's reviews with the real handler's
// bytes, and both servers report their handler times for the reviews
// since the last read, then forget them.
func TestFloorAnswersAsTheWebhook(t *testing.T) {
	h, err := newHandler()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	floor, err := answerTable(h)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := reviews()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		want, err := answer(h, r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := answer(floor, r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the floor answered %s, the webhook %s", r.path, got, want)
		}
	}
	rec := httptest.NewRecorder()
	floor.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, rs[0].path, strings.NewReader(`{}`)))
	if rec.Code != http.StatusBadRequest {
		t.Errorf("a review not in the table: %d, want %d", rec.Code, http.StatusBadRequest)
	}

	srv := httptest.NewServer(&timed{next: floor})
	defer srv.Close()
	for _, r := range rs {
		if err := send(srv.Client(), srv.URL, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := handlerTimes(srv.Client(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "(4 reviews)") {
		t.Errorf("handler times %q, want the 4 reviews sent", got)
	}
	if got, err = handlerTimes(srv.Client(), srv.URL); err != nil || !strings.HasSuffix(got, "(0 reviews)") {
		t.Errorf("handler times read again: %q, %v; want none", got, err)
	}
}
