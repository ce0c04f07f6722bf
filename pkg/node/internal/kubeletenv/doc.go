// Package kubeletenv computes what the kubelet (v1.36.3) and the container
// runtime (containerd + runc on Linux, containerd + hcsshim on Windows) give
// a container before its first process starts: the environment, argv, the
// working directory, the user, the mounts, the contents of configMap,
// secret, downwardAPI and projected volumes in the atomic-writer layout,
// /etc/hosts, /etc/resolv.conf, /etc/hostname and the cgroup v2 files the
// resize tests read.
//
// Everything here is computed from the pod spec, the node's settings and
// API objects read through Objects; nothing touches the host. Where
// upstream exports a standalone helper it is called (envvars.FromServices,
// the forked expansion package, fieldpath, resource helpers, the volume
// plugins' MakePayload/CollectData, the kubelet's DNS Configurer); the rest
// is re-written from the upstream file named in each comment.
//
// The node glue turns the results into a filesystem: this package imports
// neither vfs nor pkg/node.
package kubeletenv
