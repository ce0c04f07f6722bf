package sh

import (
	"context"
	"testing"
)

// The scripts upstream's Job e2e tests run (test/e2e/framework/job):
// expr arithmetic on the completion index and [[ -r ]] marker files.
func TestJobScripts(t *testing.T) {
	failOdd := `
			if [ $(expr ${JOB_COMPLETION_INDEX} % 2) -ne 0 ]; then
				exit 1
			else
				exit 0
			fi
			`
	failOnce := `
			if [[ -r /data/foo-$JOB_COMPLETION_INDEX ]]
			then
				exit 0
			else
				touch /data/foo-$JOB_COMPLETION_INDEX
				exit 42
			fi
		`
	tests := []struct {
		script, index string
		want          int
	}{
		{failOdd, "0", 0}, {failOdd, "1", 1}, {failOdd, "2", 0},
		{failOnce, "3", 42}, {failOnce, "3", 0},
	}
	b := newBox()
	if err := b.fs.MkdirAll("/data", 0o777); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		p, _, errb := b.proc("", "/bin/sh", "-c", tt.script)
		p.Env = append(p.Env, "JOB_COMPLETION_INDEX="+tt.index)
		if code := Main(context.Background(), p); code != tt.want {
			t.Errorf("index %s: exit %d, want %d (%s)", tt.index, code, tt.want, errb.String())
		}
	}
}
