package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// shutdownGrace is how long Serve lets requests in flight finish; the API
// server's own webhook timeout is a few seconds.
const shutdownGrace = 5 * time.Second

// Serve serves h over HTTPS with cert on addr (e.g. 127.0.0.1:8443, or
// :8443 inside a pod) until ctx ends, then shuts down gracefully and
// returns nil; it returns the error if the listener fails.
func Serve(ctx context.Context, addr string, cert tls.Certificate, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("webhook listen on %s: %w", addr, err)
	}
	return ServeListener(ctx, ln, cert, h)
}

// ServeListener is Serve on a listener the caller opened (tests listen on
// 127.0.0.1:0 and read the port); it closes ln.
func ServeListener(ctx context.Context, ln net.Listener, cert tls.Certificate, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       90 * time.Second,
	}
	done := make(chan error, 1)
	go func() { done <- srv.ServeTLS(ln, "", "") }()
	select {
	case err := <-done:
		return fmt.Errorf("webhook server on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if serveErr := <-done; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	if err != nil {
		return fmt.Errorf("webhook server on %s: shutting down: %w", ln.Addr(), err)
	}
	return nil
}
