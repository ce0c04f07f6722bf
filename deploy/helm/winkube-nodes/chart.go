// Package winkubenodes embeds the winkube-nodes Helm chart, so that
// `winkube nodes install` applies what `helm install` would: the chart is
// the one description of the in-cluster agent. (.helmignore keeps this
// file out of the chart.)
package winkubenodes

import "embed"

// Files are the chart's files, at their paths in the chart.
//
//go:embed Chart.yaml values.yaml values.schema.json all:templates
var Files embed.FS
