package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteJSON writes the plan as indented JSON.
func (p *Plan) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// WriteText writes the plan for a person: address spaces, releases, pause
// images, nodes and every check's verdict.
func (p *Plan) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	f := p.Flannel
	backend := f.Backend
	if f.VNI != 0 {
		backend += fmt.Sprintf(" VNI %d port %d", f.VNI, f.Port)
	}
	fmt.Fprintf(tw, "Plan for cluster %s: Kubernetes %s, network mode %s, flannel %s\n\n", p.Name, p.KubernetesVersion, p.Mode, backend)
	fmt.Fprintln(tw, "Address spaces (PLAN-1)")
	for _, s := range p.AddressSpaces {
		size := ""
		if s.Addresses > 0 {
			size = fmt.Sprintf("%d addresses", s.Addresses)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", s.Name, s.Field, s.Value, size)
	}
	cp := p.Capacity
	fmt.Fprintf(tw, "\nCluster subnet capacity (PLAN-1): %d node subnets of /%d with %d pod addresses each;\n", cp.NodeSubnets, cp.NodeMaskSize, cp.PodsPerSubnet)
	fmt.Fprintf(tw, "  %d nodes need %d addresses (nodes + nodes × maxPods), %d available\n", cp.Nodes, cp.Required, cp.Available)
	fmt.Fprintf(tw, "\nWindows Server releases supported by Kubernetes 1.%d (VER-1): %s\n", p.Minor, orNone(strings.Join(p.SupportedReleases, ", ")))
	fmt.Fprintln(tw, "\nPause images (IMG-5)")
	for _, pi := range p.PauseImages {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", pi.Build, pi.Release, pi.Image)
	}
	fmt.Fprintln(tw, "\nWindows nodes\n  NAME\tPOOL\tBUILD\tMANAGEMENT IP\tINTERFACE")
	for _, n := range p.WindowsNodes {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", n.Name, n.Pool, n.Build, n.ManagementIP, n.InterfaceName)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return p.writeVerdicts(w)
}

func (p *Plan) writeVerdicts(w io.Writer) error {
	var b strings.Builder
	b.WriteString("\nChecks\n")
	failed := 0
	for _, v := range p.Verdicts {
		status := "pass"
		if !v.Pass {
			status = "FAIL"
			failed++
		}
		fmt.Fprintf(&b, "  %s  %-7s %s\n", status, v.Rule, v.Check)
		for _, prob := range v.Problems {
			fmt.Fprintf(&b, "        %s\n", prob)
		}
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "\nNote: %s\n", n)
	}
	fmt.Fprintf(&b, "\n%d of %d checks failed\n", failed, len(p.Verdicts))
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
