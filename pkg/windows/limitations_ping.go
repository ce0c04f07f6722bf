package windows

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkPing: LIM-17. ICMP to remote networks fails from Windows pods, so a
// probe or command that pings gives false failures.
func checkPing(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		cands := map[*field.Path][]string{ref.path().Child("command"): ref.c.Command}
		for name, p := range map[string]*corev1.Probe{"livenessProbe": ref.c.LivenessProbe, "readinessProbe": ref.c.ReadinessProbe, "startupProbe": ref.c.StartupProbe} {
			if p != nil && p.Exec != nil {
				cands[ref.path().Child(name, "exec", "command")] = p.Exec.Command
			}
		}
		for p, cmd := range cands {
			if usesPing(cmd) {
				out = append(out, Violation{
					Rule: "LIM-17", Path: p.String(), Severity: SeverityWarning,
					Message: "ICMP (ping) to addresses outside the node's network fails from Windows pods",
					Fix:     "check connectivity with TCP instead, e.g. curl or Test-NetConnection -Port",
				})
			}
		}
	}
	sortViolations(out)
	return out
}

// usesPing reports whether a command pings a remote address (directly or in
// a shell line). A ping of the pod itself (localhost, loopback, the pod IP
// from the downward API) never leaves the pod: it is the usual keep-alive
// or sleep of Windows images, not outbound ICMP.
func usesPing(cmd []string) bool {
	words := strings.Fields(strings.ToLower(strings.Join(cmd, " ")))
	for i, word := range words {
		if isPingWord(word) && !pingsSelf(words[i+1:]) {
			return true
		}
	}
	return false
}

func isPingWord(word string) bool {
	word = strings.TrimSuffix(strings.Trim(word, `"'`), ".exe")
	return word == "ping" || strings.HasSuffix(word, `\ping`) || strings.HasSuffix(word, "/ping")
}

// pingsSelf reports whether the arguments of one ping, up to the next shell
// separator, name the pod's own address.
func pingsSelf(args []string) bool {
	for _, a := range args {
		if a == "&&" || a == "||" || a == "|" || a == "&" || a == ";" {
			return false
		}
		end := strings.ContainsAny(a, ";|&")
		a = strings.Trim(a, `"';|&`)
		if selfAddress(a) {
			return true
		}
		if end {
			return false
		}
	}
	return false
}

// selfAddress: names that resolve to the pod itself. POD_IP is the name the
// Kubernetes docs give the downward-API variable for status.podIP.
func selfAddress(a string) bool {
	switch a {
	case "localhost", "::1", "[::1]", "$(pod_ip)", "$env:pod_ip", "${env:pod_ip}", "%pod_ip%", "$pod_ip", "${pod_ip}":
		return true
	}
	return strings.HasPrefix(a, "127.") && strings.Count(a, ".") == 3
}
