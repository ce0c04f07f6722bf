package doctor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats are the names -o accepts.
var Formats = []string{"text", "json"}

// Write prints r in format (text or json).
func Write(w io.Writer, r *Report, format string) error {
	switch strings.ToLower(format) {
	case "", "text":
		return Text(w, r)
	case "json":
		return JSON(w, r)
	}
	return fmt.Errorf("unknown output format %q: want text or json", format)
}

// JSON writes {"findings":[...],"summary":{...}}, lint's shape; findings
// is [] when empty.
func JSON(w io.Writer, r *Report) error {
	out := *r
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Text writes one block per finding, then a summary line:
//
//	error TS-5 Node win2019-1, DaemonSet kube-system/kube-proxy-windows: message
//	  evidence: container kube-proxy args: --proxy-mode=kernelspace
//	  fix: add --hostname-override=$(NODE_NAME) ...
func Text(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		var objs []string
		for _, o := range f.Objects {
			objs = append(objs, o.String())
		}
		if len(objs) == 0 {
			objs = []string{"cluster"}
		}
		fmt.Fprintf(bw, "%s %s %s: %s\n", f.Severity, f.Rule, strings.Join(objs, ", "), f.Message)
		if f.Evidence != "" {
			fmt.Fprintf(bw, "  evidence: %s\n", f.Evidence)
		}
		if f.Command != "" {
			fmt.Fprintf(bw, "  run:\n    %s\n", strings.ReplaceAll(f.Command, "\n", "\n    "))
		}
		fmt.Fprintf(bw, "  fix: %s\n", f.Fix)
		if len(f.See) > 0 {
			fmt.Fprintf(bw, "  see: %s\n", strings.Join(f.See, ", "))
		}
	}
	s := r.Summary
	fmt.Fprintf(bw, "%d nodes (%d Windows), %d pods, %d DaemonSets checked: %d errors, %d warnings, %d infos\n",
		s.Nodes, s.WindowsNodes, s.Pods, s.DaemonSets, s.Errors, s.Warnings, s.Infos)
	return bw.Flush()
}
