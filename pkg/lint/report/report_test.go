package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/rules"
)

// A clean run still writes a complete document in every format.
func TestEmptyResult(t *testing.T) {
	r := &lint.Result{Objects: 3}
	for _, name := range Formats {
		w, err := ForFormat(name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := w(&b, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := b.String()
		switch name {
		case "text":
			if out != "3 objects checked: 0 errors, 0 warnings, 0 infos\n" {
				t.Errorf("text: %q", out)
			}
		case "json":
			if !strings.Contains(out, `"findings": []`) {
				t.Errorf("json findings is not []: %s", out)
			}
		case "sarif":
			var log map[string]any
			if err := json.Unmarshal(b.Bytes(), &log); err != nil || !strings.Contains(out, `"results": []`) {
				t.Errorf("sarif (%v): %s", err, out)
			}
		case "junit":
			var s struct {
				Tests int `xml:"tests,attr"`
			}
			if err := xml.Unmarshal(b.Bytes(), &s); err != nil || s.Tests != 1 {
				t.Errorf("junit (%v): %s", err, out)
			}
		}
	}
	if _, err := ForFormat("yaml"); err == nil {
		t.Error("unknown format accepted")
	}
}

// Rendered objects have no line; SARIF still needs startLine >= 1.
func TestSARIFLineForRenderedObjects(t *testing.T) {
	r := &lint.Result{Findings: []lint.Finding{{Finding: rules.Finding{Rule: "SCH-5", Severity: rules.SeverityError, Message: "m", Fix: "f"}, File: "./chart/templates/x.yaml", Kind: "Deployment", Name: "x"}}}
	var b bytes.Buffer
	if err := SARIF(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"startLine": 1`) || !strings.Contains(b.String(), `"uri": "chart/templates/x.yaml"`) {
		t.Errorf("sarif: %s", b.String())
	}
}

// Objects of kinds Kubernetes does not define are named after the
// summary, not silently counted as checked.
func TestTextNamesUncheckedKinds(t *testing.T) {
	r := &lint.Result{Objects: 4, Unchecked: map[string]int{"Certificate cert-manager.io/v1": 2, "Deploymnet apps/v1": 1}}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "4 objects checked: 0 errors, 0 warnings, 0 infos\n" +
		"3 objects are of kinds Kubernetes does not define, which no rule looks into: Certificate cert-manager.io/v1 (2), Deploymnet apps/v1\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
}
