package network

import (
	"fmt"
	"github.com/winkube/winkube/pkg/rules"
	"path"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// kubeProxyConfiguration is the part of a KubeProxyConfiguration file
// the model reads.
type kubeProxyConfiguration struct {
	Mode             string          `json:"mode"`
	HostnameOverride string          `json:"hostnameOverride"`
	FeatureGates     map[string]bool `json:"featureGates"`
	Winkernel        struct {
		NetworkName string `json:"networkName"`
		SourceVip   string `json:"sourceVip"`
		EnableDSR   bool   `json:"enableDSR"`
	} `json:"winkernel"`
}

// applyConfigFile: with --config kube-proxy takes its settings from the
// file and ignores the other flags, except --hostname-override. The file
// is found in the ConfigMap volume mounted where it points.
func applyConfigFile(f proxyFlags, d proxyDaemon, cms []*corev1.ConfigMap) (proxyFlags, []rules.Finding) {
	file, ok := f.get("config")
	if !ok || file == "" {
		return f, nil
	}
	data, where, found := configFileData(file, d, cms)
	if !found {
		return f, []rules.Finding{rules.New("TS-1", "", fmt.Sprintf("kube-proxy (DaemonSet %s) reads --config %s, which is in no ConfigMap volume the model can see; the model uses its flags instead", d.ds.Name, file))}
	}
	var c kubeProxyConfiguration
	if err := yaml.Unmarshal([]byte(data), &c); err != nil {
		return f, []rules.Finding{rules.New("TS-1", "", fmt.Sprintf("kube-proxy (DaemonSet %s) --config %s (%s): %v; kube-proxy exits", d.ds.Name, file, where, err))}
	}
	out := proxyFlags{values: map[string]string{}, env: f.env}
	set := func(k, v string) {
		if v != "" {
			out.values[k] = v
		}
	}
	set("proxy-mode", c.Mode)
	set("hostname-override", c.HostnameOverride)
	set("network-name", c.Winkernel.NetworkName)
	set("source-vip", c.Winkernel.SourceVip)
	set("feature-gates", gatesString(c.FeatureGates))
	if c.Winkernel.EnableDSR {
		out.values["enable-dsr"] = "true"
	}
	if v, ok := f.get("hostname-override"); ok {
		out.values["hostname-override"] = v
	}
	return out, nil
}

// configFileData finds the file in a ConfigMap volume: a mount whose path
// the file is under, and the ConfigMap key (or item path) of its name.
func configFileData(file string, d proxyDaemon, cms []*corev1.ConfigMap) (data, where string, ok bool) {
	file = strings.ReplaceAll(file, `\`, "/")
	for _, m := range d.c.VolumeMounts {
		dir := strings.TrimSuffix(strings.ReplaceAll(m.MountPath, `\`, "/"), "/")
		if !strings.HasSuffix(path.Dir(file), dir) {
			continue
		}
		cm := volumeConfigMap(d, m.Name, cms)
		if cm == nil {
			continue
		}
		key := keyFor(d, m.Name, path.Base(file))
		if v, found := cm.Data[key]; found {
			return v, fmt.Sprintf("ConfigMap %s/%s key %s", cm.Namespace, cm.Name, key), true
		}
	}
	return "", "", false
}

func volumeConfigMap(d proxyDaemon, volume string, cms []*corev1.ConfigMap) *corev1.ConfigMap {
	for _, v := range d.ds.Spec.Template.Spec.Volumes {
		if v.Name == volume && v.ConfigMap != nil {
			return findConfigMap(cms, v.ConfigMap.Name, d.ds.Namespace)
		}
	}
	return nil
}

// keyFor maps a file name back to its ConfigMap key through the volume's
// items, if it lists any.
func keyFor(d proxyDaemon, volume, name string) string {
	for _, v := range d.ds.Spec.Template.Spec.Volumes {
		if v.Name != volume || v.ConfigMap == nil {
			continue
		}
		for _, it := range v.ConfigMap.Items {
			if it.Path == name {
				return it.Key
			}
		}
	}
	return name
}

// gatesString writes gates back in --feature-gates form, sorted.
func gatesString(g map[string]bool) string {
	var parts []string
	for k, v := range g {
		parts = append(parts, k+"="+strconv.FormatBool(v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
