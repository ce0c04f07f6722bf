package windows

import (
	"fmt"
	"sort"
	"strings"
)

// Describe renders the host as findings name nodes: "win2019-1 (windows
// 10.0.17763)", "linux-1 (linux)".
func (h Host) Describe() string {
	if h.OS == "windows" && !h.Build.IsZero() {
		return fmt.Sprintf("%s (windows %s)", h.Name, h.Build.Label())
	}
	return fmt.Sprintf("%s (%s)", h.Name, h.OS)
}

// DescribeHosts names the first four hosts, sorted, and counts the rest.
func DescribeHosts(hosts []Host) string {
	const shown = 4
	names := make([]string, 0, shown)
	for i, h := range hosts {
		if i == shown {
			break
		}
		names = append(names, h.Describe())
	}
	sort.Strings(names)
	s := strings.Join(names, ", ")
	if len(hosts) > shown {
		s += fmt.Sprintf(" and %d more", len(hosts)-shown)
	}
	return s
}

// HandlerRefusal is KLT-11 for RuntimeClass class over the hosts its
// pods can land on: when the runtime of some of them has no runtime for
// handler, the finding's message and fix (some says not all of the
// judged hosts refuse it); ok is false when none does. Hosts of an
// unknown runtime are not judged. lint and the webhook say it in these
// words, and the node's FailedCreatePodSandBox quotes the same
// HandlerError.
func HandlerRefusal(hosts []Host, class, handler string) (message, fix string, some, ok bool) {
	var refused []Host
	var why string
	judged := 0
	for _, h := range hosts {
		if h.Runtime == "" {
			continue
		}
		judged++
		if msg := HandlerError(h.Runtime, h.OS, handler); msg != "" {
			refused, why = append(refused, h), msg
		}
	}
	if len(refused) == 0 {
		return "", "", false, false
	}
	share := "every node it selects"
	if len(refused) < judged {
		share, some = fmt.Sprintf("%d of the %d nodes it selects", len(refused), judged), true
	}
	message = fmt.Sprintf("the runtime of %s (%s) has no runtime for handler %q, so the sandbox of every pod using RuntimeClass %s fails there: %s",
		share, DescribeHosts(refused), handler, class, why)
	fix = fmt.Sprintf("set handler to %q (the runtime's default) or configure the handler in the nodes' runtime", RuntimeHandlers(refused[0].Runtime, refused[0].OS)[0])
	return message, fix, some, true
}
