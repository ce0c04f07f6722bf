// Package doctor audits a live cluster with Windows nodes through the API
// only: one check per troubleshooting rule (TS-1..TS-14) wherever the API
// shows the symptom, the network model's findings (pkg/network: KP-1, KP-2,
// KP-8, NET-2, ...), KP-7 per Service, the windows-gmsa webhook's verdicts
// on pods that name a GMSA spec (GMSA-1..3), and the placement failures lint predicts, found live
// (SCH-5, IMG-2, IMG-4). What only the node's shell can show (MAC spoofing,
// HNS state, SourceVip.json) comes out as an info finding with the
// PowerShell command to run and what to look for.
//
// The flow is Read (the only I/O) → Check (pure) → a Report that the
// writers in report.go print as text or JSON.
package doctor

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/rules"
)

// Object names one API object a finding is about.
type Object struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String renders "Kind namespace/name" or "Kind name".
func (o Object) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// Finding is the rule book's verdict (rule, severity, message, fix) on
// objects of a live cluster, with what shows it. Severities are the rule
// book's, so --fail-on means the same in lint and doctor.
type Finding struct {
	rules.Finding
	Objects []Object `json:"objects"`
	// Evidence is what the API shows: an event message, a flag, a status.
	Evidence string `json:"evidence,omitempty"`
	// Command is, for checks the API cannot answer, the PowerShell to run
	// on the node (or its Hyper-V host).
	Command string `json:"command,omitempty"`
}

// MarshalJSON keeps the field order doctor's JSON report has always had
// (the verdict, where, then see-also); the case is the rule book's.
func (f Finding) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Rule     string         `json:"rule"`
		Severity rules.Severity `json:"severity"`
		Message  string         `json:"message"`
		Fix      string         `json:"fix"`
		Objects  []Object       `json:"objects"`
		Evidence string         `json:"evidence,omitempty"`
		Command  string         `json:"command,omitempty"`
		See      []string       `json:"see,omitempty"`
	}{f.Rule, f.Severity, f.Message, f.Fix, f.Objects, f.Evidence, f.Command, f.See})
}

// Summary counts what was checked and what was found.
type Summary struct {
	Nodes        int `json:"nodes"`
	WindowsNodes int `json:"windowsNodes"`
	Pods         int `json:"pods"`
	DaemonSets   int `json:"daemonSets"`
	Errors       int `json:"errors"`
	Warnings     int `json:"warnings"`
	Infos        int `json:"infos"`
}

// Report is one doctor run.
type Report struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
}

// Fails reports whether a finding is at least as severe as threshold
// (rules.ParseSeverity reads --fail-on).
func (r *Report) Fails(threshold rules.Severity) bool {
	for _, f := range r.Findings {
		if f.Severity >= threshold {
			return true
		}
	}
	return false
}

// Run reads the cluster and checks it.
func Run(ctx context.Context, c kubernetes.Interface) (*Report, error) {
	s, err := Read(ctx, c)
	if err != nil {
		return nil, err
	}
	return Check(s), nil
}

// checks run in this order; each is pure over the state.
var checks = []func(*audit) []Finding{
	checkNodes,
	checkNodeAgents,
	checkNetworkModel,
	checkServices,
	checkGMSA,
	checkSandboxes,
	checkDaemonSets,
	checkPodPlacement,
	checkDNSNames,
	checkPing,
	checkHostNetworkProbes,
	checkNodeShell,
}

// Check runs every check on a state read from the API.
func Check(s *State) *Report {
	a := newAudit(s)
	var fs []Finding
	for _, c := range checks {
		fs = append(fs, c(a)...)
	}
	sortFindings(fs)
	r := &Report{Findings: fs, Summary: a.summary()}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	for _, f := range fs {
		switch f.Severity {
		case rules.SeverityError:
			r.Summary.Errors++
		case rules.SeverityWarning:
			r.Summary.Warnings++
		default:
			r.Summary.Infos++
		}
	}
	return r
}

// sortFindings: most severe first, then by rule, object and message, so
// the output is stable.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Rule != b.Rule {
			return ruleLess(a.Rule, b.Rule)
		}
		if oa, ob := firstObject(a), firstObject(b); oa != ob {
			return oa < ob
		}
		return a.Message < b.Message
	})
}

func firstObject(f Finding) string {
	if len(f.Objects) == 0 {
		return ""
	}
	return f.Objects[0].String()
}

// ruleLess sorts "TS-2" before "TS-10".
func ruleLess(a, b string) bool {
	pa, na, _ := strings.Cut(a, "-")
	pb, nb, _ := strings.Cut(b, "-")
	if pa != pb {
		return pa < pb
	}
	if len(na) != len(nb) {
		return len(na) < len(nb)
	}
	return na < nb
}
