package doctor_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/winkube/winkube/pkg/doctor"
	"github.com/winkube/winkube/pkg/rules"
)

// runDoctor does what `winkube doctor -o output --fail-on failOn` does with
// the test cluster, without the command (pkg/cmd/winkube/doctor tests the
// flags): it returns the exit status and the report.
func runDoctor(t *testing.T, output, failOn string) (int, string) {
	t.Helper()
	threshold, err := rules.ParseSeverity(failOn)
	if err != nil {
		t.Fatal(err)
	}
	r, err := doctor.Run(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := doctor.Write(&out, r, output); err != nil {
		t.Fatal(err)
	}
	if r.Fails(threshold) {
		return 1, out.String()
	}
	return 0, out.String()
}
