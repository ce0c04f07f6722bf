package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
)

// The notes under the table and the JSON: what was measured, how.

// writeNotes says under the table what the columns measured.
func writeNotes(w io.Writer, o *options, cp sizing) {
	fmt.Fprintf(w, "\nwinkube: `winkube up` with the nodes; nodes Ready as up reports it (agent start to all Ready).\n")
	fmt.Fprintf(w, "pods:    %s.\n", describeWorkload(o))
	if o.skipKwok {
		fmt.Fprintf(w, "kwok:    not measured (KWOK=0).\n")
		fmt.Fprintf(w, "control plane: %s\n", cp.describe())
		return
	}
	version, err := exec.Command(o.kwok, "--version").Output()
	if err != nil {
		version = []byte("kwok (version unknown)")
	}
	extra := ""
	if len(o.kwokArgs) > 0 {
		extra = " and " + strings.Join(o.kwokArgs, " ")
	}
	fmt.Fprintf(w, "kwok:    %s with kwokctl's default stages%s, on `winkube up` without emulated nodes;\n", strings.TrimSpace(string(version)), extra)
	fmt.Fprintf(w, "         nodes Ready from kwok's start, the nodes created at 200 requests/s like the agent's.\n")
	fmt.Fprintf(w, "control plane (both): %s\n", cp.describe())
	fmt.Fprintf(w, "ratio: winkube / kwok; below 1 winkube is faster or smaller. CPU in %% of one core.\n")
}

// describeWorkload says where the pods ran and what they ran.
func describeWorkload(o *options) string {
	s := "spread over every pool, one Deployment each"
	if o.pool != "" {
		s = "all on " + o.pool + ", one Deployment"
	}
	if o.image != "" {
		s += ", image " + o.image
	}
	if len(o.command) > 0 {
		s += fmt.Sprintf(", command %q", o.command)
	}
	return s
}

// describePods is the pods per pool, for the first progress line.
func describePods(ps []pool) string {
	var parts []string
	for _, p := range ps {
		if p.pods > 0 {
			parts = append(parts, fmt.Sprintf("%d on %s", p.pods, p.name))
		}
	}
	return strings.Join(parts, ", ")
}

// describeFlags lists the sized control-plane flags, or says there are none.
func describeFlags(cpFlags map[string]map[string]string) string {
	if len(cpFlags) == 0 {
		return "upstream defaults (winkube sizes nothing up to 100 nodes)"
	}
	var parts []string
	for _, comp := range slices.Sorted(maps.Keys(cpFlags)) {
		var flags []string
		for _, name := range slices.Sorted(maps.Keys(cpFlags[comp])) {
			flags = append(flags, "--"+name+"="+cpFlags[comp][name])
		}
		parts = append(parts, comp+" "+strings.Join(flags, " "))
	}
	return strings.Join(parts, "; ")
}

func writeJSON(o *options, wk, kw result, cp sizing) error {
	out := map[string]any{
		"nodes":             o.nodes,
		"pods":              o.pods,
		"pool":              o.pool,
		"image":             o.image,
		"command":           o.command,
		"cpus":              runtime.NumCPU(),
		"controlPlaneFlags": cp.flags,
		"controlPlaneGOGC":  cp.gogc,
		"winkube":           wk,
	}
	if kw.measured() {
		out["kwok"] = kw
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.jsonOut, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing JSON (JSON=%s): %w", o.jsonOut, err)
	}
	return nil
}
