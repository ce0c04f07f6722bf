package v1alpha1

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Load reads, decodes, defaults and validates a config file. An empty path
// gives the default cluster.
func Load(path string) (*Cluster, error) {
	if path == "" {
		return DefaultCluster(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading cluster config: %w", err)
	}
	c, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("cluster config %s: %w", path, err)
	}
	return c, nil
}

// Read reads, decodes and defaults a config file without validating it,
// for callers that report input errors and rule checks apart (winkube
// plan). An empty path gives the default cluster.
func Read(path string) (*Cluster, error) {
	if path == "" {
		return DefaultCluster(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading cluster config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("cluster config %s: %w", path, err)
	}
	return c, nil
}

// Decode strictly decodes YAML or JSON (unknown and duplicate fields are
// errors), applies defaults and validates. Unknown fields and validation
// problems are reported together, in one ValidationError.
func Decode(data []byte) (*Cluster, error) {
	c, strict, err := parse(data)
	if err != nil {
		return nil, err
	}
	if errs := Validate(c); len(errs) > 0 || len(strict) > 0 {
		return nil, &ValidationError{Unknown: strict, Errs: errs}
	}
	return c, nil
}

// Parse strictly decodes YAML or JSON and applies defaults; it does not
// validate.
func Parse(data []byte) (*Cluster, error) {
	c, strict, err := parse(data)
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		return nil, &ValidationError{Unknown: strict}
	}
	return c, nil
}

// parse decodes and defaults data, returning the unknown and duplicate
// fields apart so that Decode can report them with the validation.
func parse(data []byte) (*Cluster, []error, error) {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid YAML: %w", err)
	}
	if strings.TrimSpace(string(js)) == "null" {
		return nil, nil, errors.New("the file is empty; write at least apiVersion: " + APIVersion + " and kind: " + Kind)
	}
	if err := checkKind(js); err != nil {
		return nil, nil, err
	}
	c := &Cluster{}
	strict, err := sigsjson.UnmarshalStrict(js, c, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, nil, fmt.Errorf("decoding: %w", err)
	}
	SetDefaults(c)
	return c, strict, nil
}

// checkKind refuses a file that is some other object (a Deployment given
// to --config by mistake) in one line, instead of listing its fields as
// unknown ones of a Cluster.
func checkKind(js []byte) error {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(js, &tm); err != nil {
		return fmt.Errorf("decoding: want a mapping with apiVersion: %s and kind: %s: %w", APIVersion, Kind, err)
	}
	if tm.Kind == "" || tm.Kind == Kind {
		return nil
	}
	what := tm.Kind
	if tm.APIVersion != "" {
		what += " (" + tm.APIVersion + ")"
	}
	return fmt.Errorf("it is a %s, not a winkube cluster config: want apiVersion: %s and kind: %s", what, APIVersion, Kind)
}

// ValidationError lists every problem of a config, one per line: unknown
// or duplicate fields first, then what validation found.
type ValidationError struct {
	Unknown []error
	Errs    field.ErrorList
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem(s):", len(e.Unknown)+len(e.Errs))
	for _, err := range e.Unknown {
		b.WriteString("\n  - " + err.Error())
	}
	for _, err := range e.Errs {
		b.WriteString("\n  - " + err.Error())
	}
	return b.String()
}
