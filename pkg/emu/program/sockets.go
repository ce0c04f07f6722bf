package program

import (
	"context"
	"net"
)

// Sockets are the Unix-domain sockets a container's processes bind and
// connect to by path, as AF_UNIX sockets on Linux and on Windows (which
// has them since 1803): the way a CSI driver, its node-driver-registrar
// and the kubelet meet, through the hostPath directories their pods
// mount. Paths are the container's own (/csi/csi.sock,
// C:\csi\csi.sock, or C:\var\lib\kubelet\... in a HostProcess
// container); the implementation resolves them through the container's
// mounts, so two containers that mount the same node directory reach the
// same socket. Errors are *net.OpError wrapping the syscall errnos
// (ENOENT, ECONNREFUSED, EADDRINUSE) as Go's net package returns them.
type Sockets interface {
	// Listen binds a socket at path; closing the listener unbinds it
	// and removes its name, as Go's UnixListener does.
	Listen(path string) (net.Listener, error)
	// Dial connects to the socket bound at path.
	Dial(ctx context.Context, path string) (net.Conn, error)
	// Remove removes the name of a socket (os.Remove of a stale
	// socket file); a listener still bound there is no longer reached.
	Remove(path string) error
	// Exists reports whether a socket has the name path (os.Lstat).
	Exists(path string) bool
}
