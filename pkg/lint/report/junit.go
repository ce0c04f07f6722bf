package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"

	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/rules"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit writes one test suite per file and one test case per finding.
// Errors are failures; warnings and infos are passing cases that carry the
// finding in system-out, so CI shows them without failing the build. Input
// errors are failures of a suite named after the file.
func JUnit(w io.Writer, r *lint.Result) error {
	byFile := map[string]*junitSuite{}
	suite := func(file string) *junitSuite {
		if s, ok := byFile[file]; ok {
			return s
		}
		s := &junitSuite{Name: file}
		byFile[file] = s
		return s
	}
	for _, f := range r.Findings {
		s := suite(f.File)
		c := junitCase{Name: fmt.Sprintf("%s %s", f.Rule, f.Object()), Classname: f.File}
		text := fmt.Sprintf("%s: %s %s: %s (fix: %s)", location(f), f.Severity, f.Rule, f.Message, f.Fix)
		if f.Severity == rules.SeverityError {
			c.Failure = &junitFailure{Message: f.Message, Type: f.Rule, Text: text}
			s.Failures++
		} else {
			c.SystemOut = text
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
	}
	for _, e := range r.Errors {
		s := suite("input")
		s.Cases = append(s.Cases, junitCase{Name: e.Error(), Classname: "input", Failure: &junitFailure{Message: e.Error(), Type: "input"}})
		s.Tests++
		s.Failures++
	}
	if len(byFile) == 0 {
		// A clean run still shows one passing case, so CI lists the check.
		s := suite("winkube lint")
		s.Cases = append(s.Cases, junitCase{Name: fmt.Sprintf("%d objects checked", r.Objects), Classname: "winkube lint"})
		s.Tests++
	}
	out := junitSuites{Name: "winkube lint"}
	names := make([]string, 0, len(byFile))
	for n := range byFile {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := byFile[n]
		out.Suites = append(out.Suites, *s)
		out.Tests += s.Tests
		out.Failures += s.Failures
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
