package doctor

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/rules"
)

// checkPing: TS-3, a Windows pod that pings: outbound ICMP to other
// networks fails on Windows (LIM-17), so a ping probe or script reports a
// healthy network as down. A ping that stays on the node (localhost,
// 127.0.0.0/8, ::1) leaves nothing and is fine. One finding per workload
// and command, however many replicas run it.
func checkPing(a *audit) []Finding {
	groups := newPodGroups()
	for _, p := range a.s.Pods {
		if !a.isWindowsPod(p) {
			continue
		}
		for _, t := range texts(&p.Spec) {
			if !strings.HasSuffix(t.where, "probe") && !strings.HasSuffix(t.where, "command") {
				continue
			}
			if tool, ok := pingsOffNode(t.text); ok {
				groups.add(p, t, tool)
			}
		}
	}
	var out []Finding
	for _, g := range groups.list {
		out = append(out, Finding{
			Finding:  rules.New("TS-3", "", fmt.Sprintf("%s uses %s: ICMP from Windows pods to addresses outside the cluster network fails even when TCP and UDP work", g.subject("Windows pod"), g.cause)),
			Objects:  g.objects(),
			Evidence: g.evidence(),
		})
	}
	return out
}

// pingsOffNode finds a ping (ping, ping.exe, Test-Connection) in a command
// line whose target may leave the node, and returns the tool as written.
// Targets are the arguments up to the next shell separator that are not
// flags or bare numbers (flag values such as -n 1); a ping whose every
// target is the node itself does not count, one without a readable target
// does.
func pingsOffNode(text string) (string, bool) {
	tokens := shellTokens(text)
	for i, tok := range tokens {
		if !isPingTool(tok) {
			continue
		}
		var targets []string
		for _, arg := range tokens[i+1:] {
			if isShellSeparator(arg) {
				break
			}
			if strings.HasPrefix(arg, "-") || strings.HasPrefix(arg, "/") {
				continue
			}
			if _, err := strconv.Atoi(arg); err == nil {
				continue
			}
			targets = append(targets, strings.Trim(arg, `"'`))
		}
		if len(targets) == 0 || !allLoopback(targets) {
			return tok, true
		}
	}
	return "", false
}

// shellTokens splits a command line on blanks and around ; & | > < so a
// ping's arguments end where its command does.
func shellTokens(text string) []string {
	r := strings.NewReplacer(";", " ; ", "&", " & ", "|", " | ", ">", " > ", "<", " < ")
	return strings.Fields(r.Replace(text))
}

func isShellSeparator(tok string) bool {
	return strings.ContainsAny(tok, ";&|<>")
}

// isPingTool matches ping, ping.exe and Test-Connection, also with a path
// (C:\Windows\System32\PING.EXE).
func isPingTool(tok string) bool {
	name := strings.ToLower(path.Base(strings.ReplaceAll(strings.Trim(tok, `"'`), `\`, "/")))
	return name == "ping" || name == "ping.exe" || name == "test-connection"
}

// allLoopback reports whether every target is the node itself.
func allLoopback(targets []string) bool {
	for _, t := range targets {
		t = strings.ToLower(t)
		if t != "localhost" && t != "::1" && !strings.HasPrefix(t, "127.") {
			return false
		}
	}
	return true
}
