package vnet

import (
	"io"
	"net"
	"net/http"
	"sync"
)

// ServeHTTP serves one connection a listener callback was handed (Serve)
// with s, and returns when the client is done: servers of the emulated
// network hold no goroutine while nobody is connected. A conn that is not
// a net.Conn is closed.
func ServeHTTP(rwc io.ReadWriteCloser, s *http.Server) {
	c, ok := rwc.(net.Conn)
	if !ok {
		rwc.Close()
		return
	}
	_ = s.Serve(&oneConn{c: c, done: make(chan struct{})})
}

// oneConn is a listener that yields one connection, then waits for it to
// close, so Serve returns when the client is done.
type oneConn struct {
	c    net.Conn
	done chan struct{}
	used bool
}

func (l *oneConn) Accept() (net.Conn, error) {
	if !l.used {
		l.used = true
		return &closeNotify{Conn: l.c, done: l.done}, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConn) Close() error   { return nil }
func (l *oneConn) Addr() net.Addr { return l.c.LocalAddr() }

type closeNotify struct {
	net.Conn
	done chan struct{}
	once sync.Once
}

func (c *closeNotify) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { close(c.done) })
	return err
}
