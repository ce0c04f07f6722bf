package logmonitor

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

// sleepClock is the test clock with the file monitor's one-second looks
// left out: only the script's Start-Sleep moves time, so the run is the
// same every time.
type sleepClock struct{ *wintest.Clock }

func (c sleepClock) After(d time.Duration) <-chan time.Time {
	if d < 5*time.Second {
		return nil
	}
	return c.Clock.After(d)
}

// TestExample runs examples/logmonitor.yaml's container: its ConfigMap's
// configuration is valid, its script fully emulated, and `kubectl logs`
// would show the events, the file's lines and the script's output.
func TestExample(t *testing.T) {
	data, err := os.ReadFile("../../../examples/logmonitor.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(data), "\n---\n")
	var cm corev1.ConfigMap
	var pod corev1.Pod
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &cm); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &pod); err != nil {
		t.Fatal(err)
	}
	cmd := pod.Spec.Containers[0].Command
	if program.Name(cmd[0]) != "logmonitor" {
		t.Fatalf("the example's entrypoint is %q", cmd[0])
	}
	if what := pwsh.UnsupportedCommand(cmd[1:]); what != "" {
		t.Fatalf("the example's script uses %s", what)
	}

	sys := newSys(t, map[string]string{`C:\LogMonitor\LogMonitorConfig.json`: cm.Data["LogMonitorConfig.json"]})
	clock := wintest.NewClock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock.Deadline, clock.Stop = clock.Now().Add(25*time.Second), cancel
	sys.Clock = sleepClock{clock}
	var out bytes.Buffer
	Main(ctx, &program.Proc{Args: cmd, Dir: `C:\`, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Sys: sys})
	for _, want := range []string{
		`{"Source": "EventLog","LogEntry": {"EventSource": "DemoApp","Time": "2024-03-05T14:07:10.000Z","Channel": "Application","Level": "Information","EventId": 1000,"Message": "tick 2"}}` + "\r\n",
		`{"Source":"Process","LogEntry":{"Logline":"loop 3"},"SchemaVersion":"1.0.0"}` + "\n",
		`{"Source": "File","LogEntry": {"Logline": "line 1","FileName": "app.log"},"SchemaVersion":"1.0.0"}` + "\r\n",
		`{"Source": "File","LogEntry": {"Logline": "line 3","FileName": "app.log"},"SchemaVersion":"1.0.0"}` + "\r\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the example's logs lack %s; they are\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "ERROR") || strings.Contains(out.String(), "WARNING") {
		t.Errorf("the example's configuration draws complaints:\n%s", out.String())
	}
}
