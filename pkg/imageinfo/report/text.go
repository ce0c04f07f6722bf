package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/winkube/winkube/pkg/imageinfo"
)

// WriteJSON writes the reports as an indented JSON array.
func WriteJSON(w io.Writer, reports []Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(reports)
}

// WriteText writes one block per image: its platforms and, with a cluster,
// the node groups that run it.
func WriteText(w io.Writer, reports []Report, withCluster bool) error {
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := writeImage(w, r, withCluster); err != nil {
			return err
		}
	}
	return nil
}

// table writes aligned rows; each table is aligned on its own.
func table(w io.Writer, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, row := range rows {
		fmt.Fprintln(tw, "  "+strings.Join(row, "\t"))
	}
	return tw.Flush()
}

func writeImage(w io.Writer, r Report, withCluster bool) error {
	kind := "image index"
	if !r.Index {
		kind = "single-platform image"
	}
	fmt.Fprintf(w, "%s (%s, from %s)\n", r.Image, kind, r.Source)
	if r.Error != "" {
		fmt.Fprintf(w, "  registry error: %s\n", r.Error)
	}
	if r.Missing != "" {
		fmt.Fprintf(w, "  cannot be pulled: %s; every node fails the pull (ErrImagePull, IMG-3)\n", r.Missing)
		return nil
	}
	if r.Source == imageinfo.SourceUnknown {
		fmt.Fprintf(w, "  unknown: neither the registry nor the built-in catalog knows this image; %s is only a guess.\n", platformList(r))
		fmt.Fprintf(w, "  To read it from its registry: winkube image --resolve-images registry (with --registry-mirror,\n")
		fmt.Fprintf(w, "  --insecure-registry or --pull-secret-file as the registry needs) %s\n", r.Image)
		fmt.Fprintf(w, "  Offline: winkube image import a docker save or OCI layout of it, or its `docker manifest inspect -v` JSON\n")
		return nil
	}
	rows := [][]string{{"PLATFORM", "OS.VERSION", "RELEASE", "OS.FEATURES"}}
	for _, p := range r.Platforms {
		rows = append(rows, []string{p.OS + "/" + p.Architecture, dash(p.OSVersion), dash(releaseOrAny(p)), dash(strings.Join(p.OSFeatures, ","))})
	}
	if err := table(w, rows); err != nil || !withCluster {
		return err
	}
	if len(r.Pools) == 0 {
		fmt.Fprintf(w, "  the cluster has no nodes\n")
		return nil
	}
	rows = [][]string{{"POOL", "NODES", "PLATFORM", "RUNS"}}
	for _, p := range r.Pools {
		runs := "yes: " + p.Entry
		if !p.Runs {
			runs = "no: " + p.Reason
		}
		rows = append(rows, []string{p.Pool, fmt.Sprint(len(p.Nodes)), p.Platform + " (" + p.Runtime + ")", runs})
	}
	return table(w, rows)
}

func releaseOrAny(p PlatformReport) string {
	if strings.EqualFold(p.OS, "windows") && p.OSVersion == "" {
		return "any build"
	}
	return p.Release
}

func platformList(r Report) string {
	var names []string
	for _, p := range r.Platforms {
		names = append(names, p.OS+"/"+p.Architecture)
	}
	return strings.Join(names, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
