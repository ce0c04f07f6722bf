package windows

import (
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ServiceLogs implements LIM-21: a Windows container whose program is a
// Windows service watched by ServiceMonitor.exe (IIS's and ASP.NET's
// entrypoint) logs to the event log and to files, which ServiceMonitor
// does not forward, so `kubectl logs` shows none of it unless
// LogMonitor.exe wraps the command (seed 003). entrypoint gives an
// image's default entrypoint for a container without a command; nil, or
// an image it does not know, leaves such a container unchecked.
func ServiceLogs(spec *corev1.PodSpec, path *field.Path, entrypoint func(image string) (entrypoint, cmd []string, ok bool)) []Violation {
	var out []Violation
	check := func(c *corev1.Container, p *field.Path) {
		argv := append(append([]string(nil), c.Command...), c.Args...)
		if len(c.Command) == 0 {
			if entrypoint == nil {
				return
			}
			ep, cmd, ok := entrypoint(c.Image)
			if !ok {
				return
			}
			if len(c.Args) == 0 {
				argv = cmd // the kubelet runs the image's ENTRYPOINT and CMD
			}
			argv = append(append([]string(nil), ep...), argv...)
		}
		if len(argv) == 0 || !isProgram(argv[0], "ServiceMonitor.exe") || runsProgram(argv, "LogMonitor.exe") {
			return
		}
		out = append(out, Violation{Rule: "LIM-21", Path: p.Child("image").String(), Severity: SeverityInfo,
			Message: "the container runs a Windows service through " + argv[0] + ", which passes none of the service's event log or log file entries to STDOUT, so `kubectl logs` shows none of what the service logs",
			Fix:     "copy LogMonitor.exe and a LogMonitorConfig.json with the service's event log channels and log directory into the image (or mount the config) and make the entrypoint LogMonitor.exe followed by the current command"})
	}
	for i := range spec.Containers {
		check(&spec.Containers[i], path.Child("containers").Index(i))
	}
	return out
}

// isProgram reports whether a Windows command word names the program by
// its file name, without case and with or without .exe.
func isProgram(arg, exe string) bool {
	base := strings.ToLower(path.Base(strings.ReplaceAll(arg, `\`, "/")))
	exe = strings.ToLower(exe)
	return base == exe || base+".exe" == exe
}

func runsProgram(argv []string, exe string) bool {
	for _, a := range argv {
		if isProgram(a, exe) {
			return true
		}
	}
	return false
}
