package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// result is what one setup measured. Times are seconds; CPU maps are per
// process (see procOrder) in percent of one core or in CPU seconds; memory
// maps are MiB.
type result struct {
	ClusterReady float64            `json:"clusterReadySeconds"`
	NodesReady   float64            `json:"nodesReadySeconds"`
	PodsRunning  float64            `json:"podsRunningSeconds"`
	PodsDeleted  float64            `json:"podsDeletedSeconds"`
	IdleNodesCPU map[string]float64 `json:"idleCPUPercentNodes"`
	IdlePodsCPU  map[string]float64 `json:"idleCPUPercentNodesAndPods"`
	CreateCPU    map[string]float64 `json:"cpuSecondsPodsRunning"`
	DeleteCPU    map[string]float64 `json:"cpuSecondsPodsDeleted"`
	RSS          map[string]float64 `json:"rssMiBNodesAndPods"`
	PeakRSS      map[string]float64 `json:"peakRSSMiB"`
	// CreateWrites and DeleteWrites are kube-apiserver's mutating
	// requests per pod by kind, until the pods were Running and deleted.
	CreateWrites map[string]float64 `json:"apiWritesPerPodRunning"`
	DeleteWrites map[string]float64 `json:"apiWritesPerPodDeleted"`
}

// procOrder is the order of the per-process rows. In the kwok setup the
// winkube process holds etcd, the add-on services and an agent without
// nodes; the node and pod work is kwok's.
var procOrder = []string{"winkube", "kwok", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// unit formats one kind of value.
type unit struct {
	suffix string
	digits int
}

var (
	seconds = unit{" s", 1}
	percent = unit{" %", 1}
	cpuSecs = unit{" s", 1}
	mib     = unit{" MiB", 0}
	perPod  = unit{"", 2}
)

func (u unit) format(v float64) string {
	return fmt.Sprintf("%.*f%s", u.digits, v, u.suffix)
}

// row is one line of the table; a nil value prints as "-". A row without
// a unit is a section heading.
type row struct {
	label string
	a, b  *float64
	unit  *unit
}

func val(v float64) *float64 { return &v }

// measured reports whether r holds a run's figures (a skipped kwok run
// leaves it empty; a measured cluster is never ready in 0 s).
func (r result) measured() bool { return r.ClusterReady > 0 }

// rows lays out both results; a setup that was not measured prints "-".
// The ratio is winkube's value over kwok's: below 1 winkube is faster or
// smaller.
func rows(nodes, pods int, wk, kw result) []row {
	times := func(r result, v float64) *float64 {
		if !r.measured() {
			return nil
		}
		return val(v)
	}
	out := []row{
		{label: "cluster ready (winkube up)", a: times(wk, wk.ClusterReady), b: times(kw, kw.ClusterReady), unit: &seconds},
		{label: fmt.Sprintf("%d nodes Ready", nodes), a: times(wk, wk.NodesReady), b: times(kw, kw.NodesReady), unit: &seconds},
		{label: fmt.Sprintf("%d pods Running", pods), a: times(wk, wk.PodsRunning), b: times(kw, kw.PodsRunning), unit: &seconds},
		{label: fmt.Sprintf("%d pods deleted", pods), a: times(wk, wk.PodsDeleted), b: times(kw, kw.PodsDeleted), unit: &seconds},
	}
	out = append(out, procRows(fmt.Sprintf("idle CPU, %d nodes (%% of a core)", nodes), percent, wk.IdleNodesCPU, kw.IdleNodesCPU)...)
	out = append(out, procRows(fmt.Sprintf("idle CPU, %d nodes + %d pods (%% of a core)", nodes, pods), percent, wk.IdlePodsCPU, kw.IdlePodsCPU)...)
	out = append(out, procRows("CPU time until all pods Running", cpuSecs, wk.CreateCPU, kw.CreateCPU)...)
	out = append(out, procRows("CPU time until all pods deleted", cpuSecs, wk.DeleteCPU, kw.DeleteCPU)...)
	out = append(out, procRows(fmt.Sprintf("RSS, %d nodes + %d pods", nodes, pods), mib, wk.RSS, kw.RSS)...)
	out = append(out, procRows("peak RSS", mib, wk.PeakRSS, kw.PeakRSS)...)
	out = append(out, writeRows("API writes per pod until all pods Running", wk.CreateWrites, kw.CreateWrites)...)
	out = append(out, writeRows("API writes per pod until all pods deleted", wk.DeleteWrites, kw.DeleteWrites)...)
	return out
}

// procRows is a heading, one row per process either setup ran, and the
// total of all processes.
func procRows(heading string, u unit, a, b map[string]float64) []row {
	out := []row{{label: heading}}
	for _, name := range procOrder {
		va, okA := a[name]
		vb, okB := b[name]
		if !okA && !okB {
			continue
		}
		r := row{label: "  " + name, unit: &u}
		if okA {
			r.a = val(va)
		}
		if okB {
			r.b = val(vb)
		}
		out = append(out, r)
	}
	total := row{label: "  total", unit: &u}
	if len(a) > 0 {
		total.a = val(sum(a))
	}
	if len(b) > 0 {
		total.b = val(sum(b))
	}
	return append(out, total)
}

func sum(m map[string]float64) float64 {
	var s float64
	for _, v := range m {
		s += v
	}
	return s
}

// writeTable prints the rows with the labels left-aligned and the values
// right-aligned, so the decimal points line up.
func writeTable(w io.Writer, rs []row) error {
	cells := [][]string{{"metric", "winkube", "kwok", "winkube/kwok"}}
	for _, r := range rs {
		if r.unit == nil {
			cells = append(cells, []string{r.label, "", "", ""})
			continue
		}
		cells = append(cells, []string{r.label, cell(r.a, *r.unit), cell(r.b, *r.unit), ratio(r.a, r.b)})
	}
	widths := make([]int, 4)
	for _, c := range cells {
		for i, s := range c {
			widths[i] = max(widths[i], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	for _, c := range cells {
		line := fmt.Sprintf("%-*s", widths[0], c[0])
		for i := 1; i < len(c); i++ {
			line += fmt.Sprintf("  %*s", widths[i], c[i])
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func cell(v *float64, u unit) string {
	if v == nil {
		return "-"
	}
	return u.format(*v)
}

// ratio is a/b, or "-" when either is missing or b is too small to divide by.
func ratio(a, b *float64) string {
	if a == nil || b == nil || *b < 1e-9 {
		return "-"
	}
	return fmt.Sprintf("%.2f", *a / *b)
}
