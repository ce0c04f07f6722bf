package rules

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md")

var docPath = filepath.Join("..", "..", "docs", "rules.md")

// TestDoc keeps docs/rules.md, the reference users read and SARIF's helpUri
// links to, in step with the table; -update rewrites it.
func TestDoc(t *testing.T) {
	want := markdown()
	if *update {
		if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(docPath)
	if err != nil || string(got) != want {
		t.Errorf("%s is out of date (run go test ./pkg/rules -run TestDoc -update): %v", docPath, err)
	}
}

func markdown() string {
	var b strings.Builder
	b.WriteString(`# The winkube rule book

Everything winkube checks, emulates or generates follows a rule, and every rule
has an ID: a family prefix and a number, such as ` + "`IMG-2`" + ` or ` + "`KLT-4`" + `. The IDs
appear in the findings of ` + "`winkube lint`" + `, in the verdicts of ` + "`winkube net`" + `, in the
checks of ` + "`winkube doctor`" + ` and ` + "`winkube plan`" + `, in the events and messages of the
emulated nodes that ` + "`winkube up`" + ` starts, in the answers and warnings of
` + "`winkube webhook`" + `, and in SARIF output, whose ` + "`helpUri`" + `
points at the rule's entry below. Each entry lists the commands that act on the
rule; a rule without commands is background that other rules refer to.

A test that proves a rule names its ID in a comment (` + "`// rule: KLT-5`" + `), so
the rules the tests cover can be listed with

    grep -rhoE '(` + familyIDs() + `)-[0-9]+' --include='*_test.go' . | sort -u

This page is generated from the package ` + "`pkg/rules`" + ` by
` + "`go test ./pkg/rules -run TestDoc -update`" + `; edit the package, not this page.
`)
	b.WriteString("\n## Families\n\n")
	for _, f := range families {
		fmt.Fprintf(&b, "- [%s](#%s) — %s\n", f.ID, familyAnchor(f), f.Name)
	}
	for _, f := range families {
		fmt.Fprintf(&b, "\n## %s — %s\n\n%s\n", f.ID, f.Name, f.Text)
		for _, r := range All() {
			if r.Family != f.ID {
				continue
			}
			// The heading is the bare ID so that GitHub's anchor for it is
			// the lower-cased ID, the fragment RuleHelpURI in pkg/lint uses.
			fmt.Fprintf(&b, "\n### %s\n\n**%s**\n\n%s\n", r.ID, r.Title, r.Text)
			if len(r.Commands) > 0 {
				cmds := make([]string, len(r.Commands))
				for i, c := range r.Commands {
					cmds[i] = "`winkube " + c + "`"
				}
				fmt.Fprintf(&b, "\nUsed by: %s.\n", strings.Join(cmds, ", "))
			}
			writeVerdict(&b, r.ID)
		}
	}
	return b.String()
}

func familyAnchor(f Family) string {
	return githubAnchor(f.ID + " — " + f.Name)
}

// githubAnchor approximates how GitHub turns a heading into its anchor:
// lower case, spaces to hyphens, punctuation other than hyphens dropped.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestAnchors checks that every rule has a heading whose GitHub anchor is
// its lower-cased ID, the fragment SARIF helpUri links use.
func TestAnchors(t *testing.T) {
	anchors := map[string]bool{}
	for _, line := range strings.Split(markdown(), "\n") {
		if h, ok := strings.CutPrefix(line, "### "); ok {
			anchors[githubAnchor(h)] = true
		}
	}
	for _, r := range All() {
		if !anchors[strings.ToLower(r.ID)] {
			t.Errorf("docs/rules.md has no heading with anchor #%s", strings.ToLower(r.ID))
		}
	}
}

var idPattern = regexp.MustCompile(`\b(API|LIM|STO|SCH|IMG|KLT|NET|KP|DNS|PLAN|TS|VER|GMSA)-[0-9]+\b`)

// TestEveryIDInCodeIsDocumented walks the non-test Go files under pkg/ and
// fails for a rule ID the rule book does not explain, so a message can never
// cite a rule users cannot look up.
func TestEveryIDInCodeIsDocumented(t *testing.T) {
	missing := map[string][]string{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, id := range idPattern.FindAllString(string(data), -1) {
			if _, ok := Get(id); !ok {
				missing[id] = append(missing[id], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(missing))
	for id := range missing {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return Less(ids[i], ids[j]) })
	for _, id := range ids {
		t.Errorf("%s is used in %s but has no entry in pkg/rules", id, strings.Join(missing[id], ", "))
	}
}

// TestTable checks the table's own shape: IDs unique, numbered under the
// right family, in order, each with a title and text, and commands known.
func TestTable(t *testing.T) {
	known := map[string]bool{Lint: true, Net: true, Doctor: true, Plan: true, Up: true, Describe: true, Webhook: true, Image: true, GMSA: true}
	seen := map[string]bool{}
	var prev Rule
	for _, r := range All() {
		family, _, ok := Split(r.ID)
		switch {
		case !ok || family != r.Family:
			t.Errorf("%s: malformed ID or filed under family %s", r.ID, r.Family)
		case seen[r.ID]:
			t.Errorf("%s: listed twice", r.ID)
		case prev.Family == r.Family && !Less(prev.ID, r.ID):
			t.Errorf("%s: listed after %s", r.ID, prev.ID)
		case r.Title == "" || r.Text == "":
			t.Errorf("%s: needs a title and a text", r.ID)
		}
		for _, c := range r.Commands {
			if !known[c] {
				t.Errorf("%s: unknown command %q", r.ID, c)
			}
		}
		seen[r.ID] = true
		prev = r
	}
	if _, ok := Get("LIM-17"); !ok {
		t.Error(`Get("LIM-17") found nothing`)
	}
	if _, ok := Get("LIM-99"); ok {
		t.Error(`Get("LIM-99") found a rule`)
	}
}

// familyIDs is the families' prefixes as a regular expression's
// alternatives, so the grep line lists every family there is.
func familyIDs() string {
	ids := make([]string, len(families))
	for i, f := range families {
		ids[i] = f.ID
	}
	return strings.Join(ids, "|")
}

// writeVerdict prints what every finding of the rule carries: its
// severity, fix and related rules, and those of its cases.
func writeVerdict(b *strings.Builder, id string) {
	rv, ok := verdicts[id]
	if !ok {
		return
	}
	v := VerdictOf(id, "")
	fmt.Fprintf(b, "\nFindings: %s.", v.Severity)
	if v.Fix != "" {
		fmt.Fprintf(b, " Fix: %s.", v.Fix)
	}
	if len(v.See) > 0 {
		fmt.Fprintf(b, " See also %s.", strings.Join(v.See, ", "))
	}
	b.WriteString("\n")
	for _, c := range rv.Cases {
		cv := VerdictOf(id, c.Name)
		fmt.Fprintf(b, "- `%s` (%s): %s.", c.Name, cv.Severity, c.Text)
		if c.Fix != "" {
			fmt.Fprintf(b, " Fix: %s.", c.Fix)
		}
		b.WriteString("\n")
	}
}
