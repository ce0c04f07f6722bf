package network

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// proxyFlags are the kube-proxy flags the model reads.
type proxyFlags struct {
	values map[string]string // flag name (without dashes) → value
	env    map[string]string // the container's resolved environment
}

func (f proxyFlags) get(name string) (string, bool) {
	v, ok := f.values[name]
	return v, ok
}

// flags that take a value; any other flag is boolean when it has no "=".
var valueFlags = map[string]bool{
	"proxy-mode": true, "network-name": true, "feature-gates": true, "source-vip": true,
	"hostname-override": true, "config": true, "kubeconfig": true, "v": true,
	"bind-address": true, "cluster-cidr": true, "master": true, "healthz-bind-address": true,
	"metrics-bind-address": true, "log-file": true, "root-hns-endpoint-name": true,
}

// sigWindowsToolsArgs are the flags the sig-windows-tools flannel
// HostProcess kube-proxy image passes from its start.ps1 when the
// DaemonSet gives no command: the node name from NODE_NAME, WinOverlay on
// and a source VIP the script reserves with host-local.
var sigWindowsToolsArgs = []string{
	"--hostname-override=$env:NODE_NAME", "--feature-gates=WinOverlay=true",
	"--proxy-mode=kernelspace", "--source-vip=$vip",
}

// readFlags collects the container's kube-proxy flags, with environment
// references expanded from the container's env on node.
func readFlags(c *corev1.Container, node *corev1.Node) proxyFlags {
	words := append(append([]string{}, c.Command...), c.Args...)
	if len(words) == 0 && strings.Contains(c.Image, "sigwindowstools/kube-proxy") {
		words = sigWindowsToolsArgs
	}
	env := containerEnv(c, node)
	var tokens []string
	for _, w := range words {
		tokens = append(tokens, splitWords(w)...)
	}
	f := proxyFlags{values: map[string]string{}, env: env}
	for i := 0; i < len(tokens); i++ {
		t := cleanToken(tokens[i])
		if !strings.HasPrefix(t, "--") {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(t, "--"), "=")
		switch {
		case hasVal:
		case valueFlags[name] && i+1 < len(tokens):
			i++
			val = cleanToken(tokens[i])
		default:
			val = "true"
		}
		f.values[name] = expand(val, env)
	}
	return f
}

// containerEnv resolves the container's env: literal values and the
// fieldRefs a DaemonSet pod on node would get (spec.nodeName; status.podIP
// and status.hostIP are the node address on a host-network pod).
func containerEnv(c *corev1.Container, node *corev1.Node) map[string]string {
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = expand(e.Value, env)
		case e.ValueFrom.FieldRef != nil:
			if v, ok := fieldValue(e.ValueFrom.FieldRef.FieldPath, node); ok {
				env[e.Name] = v
			}
		}
	}
	return env
}

func fieldValue(path string, node *corev1.Node) (string, bool) {
	switch path {
	case "spec.nodeName":
		return node.Name, true
	case "status.hostIP", "status.podIP":
		if ip := internalIP(node); ip.IsValid() {
			return ip.String(), true
		}
	}
	return "", false
}

// expand replaces $(VAR) (Kubernetes), $env:VAR (PowerShell), ${VAR} and
// $VAR references that env defines; unknown references stay as written.
func expand(s string, env map[string]string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		name, n := refAt(s[i:])
		if v, ok := env[name]; ok && n > 0 {
			b.WriteString(v)
			i += n - 1
			continue
		}
		b.WriteByte('$')
	}
	return b.String()
}

// refAt reads a variable reference at the start of s ("$..."): its name
// and length.
func refAt(s string) (string, int) {
	switch {
	case strings.HasPrefix(s, "$("):
		if end := strings.IndexByte(s, ')'); end > 0 {
			return s[2:end], end + 1
		}
	case strings.HasPrefix(s, "${"):
		if end := strings.IndexByte(s, '}'); end > 0 {
			return s[2:end], end + 1
		}
	case strings.HasPrefix(strings.ToLower(s), "$env:"):
		n := identLen(s[5:])
		return s[5 : 5+n], 5 + n
	}
	n := identLen(s[1:])
	return s[1 : 1+n], 1 + n
}

func identLen(s string) int {
	n := 0
	for n < len(s) && (s[n] == '_' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return n
}

// splitWords splits a shell or PowerShell command line into words,
// keeping quoted parts together.
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote == 0 && (ch == '"' || ch == '\''):
			quote = ch
		case quote == 0 && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '`'):
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(ch)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// cleanToken drops what scripts put around a flag: quotes and a trailing
// comma (PowerShell arrays) or semicolon.
func cleanToken(t string) string {
	t = strings.TrimRight(t, ",;")
	return strings.Trim(t, `"'`)
}
