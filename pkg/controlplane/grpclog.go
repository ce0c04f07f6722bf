package controlplane

import (
	"io"

	"google.golang.org/grpc/grpclog"
)

// grpc's default logger writes to stderr, the user's terminal: embedded
// etcd's gateway client logs a warning there when a start is interrupted
// mid-handshake. etcd reports what matters in its own log file.
func init() {
	grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, io.Discard))
}
