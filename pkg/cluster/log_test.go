package cluster

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// client-go's errors about requests the node agent cancels when `up`
// stops go to winkube.log, not to the user's terminal.
func TestKlogErrorsGoToTheLogFileOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "winkube.log")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	logToFile(path)
	klog.ErrorS(errors.New("context canceled"), "Unexpected error when reading response body")
	klog.Flush()
	os.Stderr = stderr
	w.Close()
	printed, _ := io.ReadAll(r)
	if len(printed) > 0 {
		t.Errorf("stderr got %q, want nothing", printed)
	}
	logged, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logged), "Unexpected error when reading response body") {
		t.Errorf("winkube.log = %q, want the error", logged)
	}
}
