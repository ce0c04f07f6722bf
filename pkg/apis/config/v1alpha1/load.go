package v1alpha1

import (
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
// errors), applies defaults and validates.
func Decode(data []byte) (*Cluster, error) {
	c, err := Parse(data)
	if err != nil {
		return nil, err
	}
	if errs := Validate(c); len(errs) > 0 {
		return nil, &ValidationError{Errs: errs}
	}
	return c, nil
}

// Parse strictly decodes YAML or JSON and applies defaults; it does not
// validate.
func Parse(data []byte) (*Cluster, error) {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	if strings.TrimSpace(string(js)) == "null" {
		return nil, errors.New("the file is empty; write at least apiVersion: " + APIVersion + " and kind: " + Kind)
	}
	c := &Cluster{}
	strict, err := sigsjson.UnmarshalStrict(js, c, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	if len(strict) > 0 {
		return nil, errors.Join(strict...)
	}
	SetDefaults(c)
	return c, nil
}

// ValidationError lists every problem of a config, one per line.
type ValidationError struct{ Errs field.ErrorList }

func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem(s):", len(e.Errs))
	for _, err := range e.Errs {
		b.WriteString("\n  - " + err.Error())
	}
	return b.String()
}
