// Package kubeconfig puts a winkube cluster into the user's kubeconfig and
// takes it out again, as kind does: one cluster, user and context named
// winkube-<name>, made current on up and removed on down. Every other entry
// of the file is left as it was.
package kubeconfig

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ContextName is the cluster, user and context name of cluster name.
func ContextName(name string) string { return "winkube-" + name }

// Path is the file a merge writes: the first file of $KUBECONFIG (as kind
// and kubectl config set-context do), else ~/.kube/config.
func Path() (string, error) {
	for _, p := range filepath.SplitList(os.Getenv("KUBECONFIG")) {
		if p != "" {
			return p, nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", fmt.Errorf("finding ~/.kube/config (set $KUBECONFIG, or pass --kubeconfig-merge=false): %w", err)
	}
	return filepath.Join(home, ".kube", "config"), nil
}

// ForCluster is the admin kubeconfig at adminPath with its one cluster,
// user and context renamed to ContextName(name).
func ForCluster(adminPath, name string) (*clientcmdapi.Config, error) {
	admin, err := clientcmd.LoadFromFile(adminPath)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's kubeconfig: %w", err)
	}
	ctx, ok := admin.Contexts[admin.CurrentContext]
	if !ok {
		return nil, fmt.Errorf("the cluster's kubeconfig %s has no current context", adminPath)
	}
	cluster, user := admin.Clusters[ctx.Cluster], admin.AuthInfos[ctx.AuthInfo]
	if cluster == nil || user == nil {
		return nil, fmt.Errorf("the cluster's kubeconfig %s lacks the cluster or user of its context", adminPath)
	}
	id := ContextName(name)
	out := clientcmdapi.NewConfig()
	out.Clusters[id] = cluster.DeepCopy()
	out.AuthInfos[id] = user.DeepCopy()
	out.Contexts[id] = &clientcmdapi.Context{Cluster: id, AuthInfo: id}
	out.CurrentContext = id
	return out, nil
}

// Merge writes the cluster of ForCluster into the kubeconfig at path (the
// file is created if missing) and makes its context current.
func Merge(path, adminPath, name string) error {
	add, err := ForCluster(adminPath, name)
	if err != nil {
		return err
	}
	id := ContextName(name)
	return update(path, func(cfg *clientcmdapi.Config) bool {
		cfg.Clusters[id] = add.Clusters[id]
		cfg.AuthInfos[id] = add.AuthInfos[id]
		cfg.Contexts[id] = add.Contexts[id]
		cfg.CurrentContext = id
		return true
	})
}

// Remove takes cluster name's entries out of the kubeconfig at path. With
// a CA (the data dir's), it removes them only when their cluster entry
// trusts that CA: a cluster of the same name in another data dir keeps its
// entries. It reports whether it removed anything; a missing file is
// nothing to remove.
func Remove(path, name string, ca []byte) (bool, error) {
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return false, nil
	}
	id := ContextName(name)
	removed := false
	err := update(path, func(cfg *clientcmdapi.Config) bool {
		cluster := cfg.Clusters[id]
		if cluster == nil && cfg.Contexts[id] == nil && cfg.AuthInfos[id] == nil {
			return false
		}
		if cluster != nil && ca != nil && !bytes.Equal(bytes.TrimSpace(cluster.CertificateAuthorityData), bytes.TrimSpace(ca)) {
			return false
		}
		delete(cfg.Clusters, id)
		delete(cfg.AuthInfos, id)
		delete(cfg.Contexts, id)
		if cfg.CurrentContext == id {
			cfg.CurrentContext = ""
		}
		removed = true
		return true
	})
	return removed, err
}

// CA is the certificate authority of the admin kubeconfig at adminPath,
// or nil when it cannot be read.
func CA(adminPath string) []byte {
	cfg, err := clientcmd.LoadFromFile(adminPath)
	if err != nil {
		return nil
	}
	if ctx, ok := cfg.Contexts[cfg.CurrentContext]; ok {
		if c := cfg.Clusters[ctx.Cluster]; c != nil {
			return c.CertificateAuthorityData
		}
	}
	return nil
}
