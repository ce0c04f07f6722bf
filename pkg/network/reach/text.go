package reach

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText prints a result for people: the walk, then the verdict.
func (r *Result) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s → %s%s\n", r.Source, r.Target, r.portText())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, h := range r.Hops {
		fmt.Fprintf(tw, "  %s\t%s\n", h.At, h.What)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	verdict := "UNREACHABLE"
	if r.Reachable {
		verdict = "REACHABLE"
	}
	_, err := fmt.Fprintf(w, "%s: %s%s\n", verdict, r.Reason, rulesText(r.Rules))
	return err
}

func (r *Result) portText() string {
	switch {
	case r.Protocol == ICMP:
		return " (icmp)"
	case r.Port > 0:
		return fmt.Sprintf(" (%d/%s)", r.Port, r.Protocol)
	}
	return " (" + r.Protocol + ")"
}

func rulesText(rules []string) string {
	if len(rules) == 0 {
		return ""
	}
	return " [" + strings.Join(rules, ", ") + "]"
}

// WriteText prints the matrix as a table, one row per flow.
func (m *Matrix) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Namespace %s: Windows pod %s, Linux pod %s, Service %s\n\n",
		m.Namespace, orNone(m.WindowsPod), orNone(m.LinuxPod), orNone(m.Service))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FLOW\tFROM WINDOWS POD\tFROM LINUX POD")
	for _, f := range m.Flows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, cell(f.Windows), cell(f.Linux))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nWhy each ✗ (winkube net check SOURCE TARGET shows the whole path):")
	for _, f := range m.Flows {
		for _, r := range []*Result{f.Windows, f.Linux} {
			if r != nil && !r.Reachable {
				fmt.Fprintf(w, "  %s, %s → %s: %s\n", f.Name, r.Source, r.Target, r.Reason)
			}
		}
	}
	return nil
}

func cell(r *Result) string {
	switch {
	case r == nil:
		return "-"
	case r.Reachable:
		return "✓"
	}
	return "✗" + rulesText(r.Rules)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
