package controlplane

import (
	"context"
	"fmt"
	"net/url"
	"os"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
)

// etcd's raft log sizing for a single member (see startEtcd).
const (
	etcdSnapshotCount  = 5000
	etcdCatchUpEntries = 1000
	etcdTickMs         = 20
)

// startEtcd runs etcd inside this process (no child: it has no global flags
// to collide) with TLS and client-certificate auth on loopback, so other local
// users cannot read the cluster's secrets from it. It returns once etcd
// serves.
func startEtcd(ctx context.Context, l *layout) (*embed.Etcd, error) {
	logPath := l.logFile("etcd")
	if err := os.WriteFile(logPath, nil, 0o644); err != nil { // one run per log, like the children
		return nil, fmt.Errorf("open etcd log: %w", err)
	}
	tls := transport.TLSInfo{
		CertFile:       l.pki("etcd-serving.crt"),
		KeyFile:        l.pki("etcd-serving.key"),
		TrustedCAFile:  l.pki("ca.crt"),
		ClientCertAuth: true,
	}
	client := url.URL{Scheme: "https", Host: l.hostPort(etcdClient)}
	peer := url.URL{Scheme: "https", Host: l.hostPort(etcdPeer)}

	cfg := embed.NewConfig()
	cfg.Name = clusterName
	cfg.Dir = l.path("etcd")
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	// The client port serves gRPC alone (etcd's --listen-client-http-urls),
	// and its HTTP endpoints get a port of their own. On one TLS port etcd
	// serves both through net/http, gRPC included: grpc-go's ServeHTTP on
	// Go's HTTP/2 server instead of grpc-go's own transport (whose
	// performance, grpc-go warns, may differ). kube-apiserver speaks only
	// gRPC to etcd. Applying 5,000 objects, this process spent a fifth
	// less CPU per object without that path.
	cfg.ListenClientHttpUrls = []url.URL{{Scheme: "https", Host: l.hostPort(etcdHTTP)}}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ClientTLSInfo, cfg.PeerTLSInfo = tls, tls
	cfg.LogOutputs = []string{logPath}
	// etcd's own main sets this from a flag default; left zero, etcd logs every
	// request as slow and fills the log with hundreds of lines per start.
	cfg.WarningUnaryRequestDuration = embed.DefaultWarningUnaryRequestDuration
	// etcd keeps the raft entries since its last snapshot in memory, plus
	// SnapshotCatchUpEntries more for a slow follower. This member has no
	// followers, and its snapshots cost little (the data lives in bbolt),
	// so it keeps fewer: at 1,000 nodes, whose pod updates run to a few KB
	// each, the defaults (10,000 and 5,000) held tens of MB.
	cfg.SnapshotCount = etcdSnapshotCount
	cfg.SnapshotCatchUpEntries = etcdCatchUpEntries
	// A member alone elects itself after what remains of its randomised
	// election timeout once etcd fast-forwards the ticks: half the
	// timeout on average, 300-500 ms of every start at the default 1 s.
	// Ticks and elections otherwise pace heartbeats between peers, which
	// this member has none of. The timeout also enters etcd's request
	// timeout (5 s plus two of it), which becomes 5.4 s instead of 7.
	cfg.TickMs, cfg.ElectionMs = etcdTickMs, 10*etcdTickMs

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("start etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcd failed while starting: %w (see %s)", err, logPath)
	case <-ctx.Done():
		e.Close()
		return nil, fmt.Errorf("wait for etcd: %w", ctx.Err())
	}
}
