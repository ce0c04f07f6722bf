package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Backoff between polls: quick at first (etcd and the apiserver come up in
// seconds), then settling at maxPause. A poll here waits for a start, so
// its pause is time the cluster is ready and nobody knows: at 1 s it cost
// a cold start half a second on average; a GET on loopback every 200 ms
// costs next to nothing.
const (
	firstPause = 50 * time.Millisecond
	maxPause   = 200 * time.Millisecond
)

// errAborted is returned by poll when abort closes.
var errAborted = errors.New("aborted")

// poll calls check with growing pauses until it returns nil, ctx ends or
// abort closes. The error says what the last check saw.
func poll(ctx context.Context, abort <-chan struct{}, check func(context.Context) error) error {
	pause := firstPause
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-abort:
			return errAborted
		case <-time.After(pause):
		}
		pause = min(pause*3/2, maxPause)
	}
}

// healthClient trusts only the cluster CA and presents the admin
// certificate, so /readyz answers before RBAC lets anonymous users in.
func healthClient(creds *credentials) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(creds.caPEM) {
		return nil, errors.New("parse cluster CA certificate")
	}
	cert, err := tls.X509KeyPair(creds.admin.CertPEM, creds.admin.KeyPEM)
	if err != nil {
		return nil, fmt.Errorf("load admin certificate: %w", err)
	}
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}},
			// Fresh connections per poll would each cost a TLS handshake.
			MaxIdleConnsPerHost: 1,
		},
	}, nil
}

// httpOK returns a check that GETs url and wants 200.
func httpOK(client *http.Client, url string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s: %s", url, resp.Status, body)
		}
		return nil
	}
}
