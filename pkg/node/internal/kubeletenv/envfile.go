package kubeletenv

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// fileKey is the EnvFiles branch of makeEnvironmentVariables: the value of
// one key of an env file in a pod volume. A file that does not parse
// gives the kubelet's terse "couldn't parse env file"; a missing key is an
// error unless optional.
func (r *resolver) fileKey(ref *corev1.FileKeySelector) (string, bool, error) {
	reader, ok := r.objs.(VolumeFileReader)
	if !ok || !podHasVolume(r.pod, ref.VolumeName) {
		return "", false, fmt.Errorf("cannot find the volume %q referenced by FileKeyRef", ref.VolumeName)
	}
	data, err := reader.ReadVolumeFile(r.ctx, ref.VolumeName, ref.Path)
	if err != nil {
		return "", false, fmt.Errorf("couldn't parse env file")
	}
	val, err := envFileValue(string(data), ref.Key)
	if err != nil {
		return "", false, fmt.Errorf("couldn't parse env file")
	}
	if val == "" {
		if isTrue(ref.Optional) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("environment variable key %q not found in file %q", ref.Key, ref.Path)
	}
	return val, true, nil
}

func podHasVolume(pod *corev1.Pod, name string) bool {
	for _, v := range pod.Spec.Volumes {
		if v.Name == name {
			return true
		}
	}
	return false
}

// envFileValue follows the format pkg/kubelet/util/env/env_util.go
// accepts: NAME='value' lines (the value may span lines until the closing
// quote), blank lines and # comments; whitespace before '=' is an error,
// whitespace after it makes the value empty. The first match wins.
func envFileValue(text, key string) (string, error) {
	lines := strings.Split(text, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r") // as bufio.ScanLines
	}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimLeft(lines[i], " \t")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		eq := strings.IndexByte(line, '=')
		if eq <= 0 || strings.TrimRight(line[:eq], " \t") != line[:eq] {
			return "", fmt.Errorf("line %d: bad name", i+1)
		}
		name, rest := line[:eq], line[eq+1:]
		if trimmed := strings.TrimLeft(rest, " \t"); trimmed != rest {
			if name == key {
				return "", nil
			}
			continue
		}
		if !strings.HasPrefix(rest, "'") {
			return "", fmt.Errorf("line %d: value not quoted", i+1)
		}
		val, next, err := quotedValue(lines, i, rest[1:])
		if err != nil {
			return "", err
		}
		if name == key {
			return val, nil
		}
		i = next
	}
	return "", nil
}

// quotedValue reads a single-quoted value starting on line i; it returns
// the value and the index of the line holding the closing quote.
func quotedValue(lines []string, i int, rest string) (string, int, error) {
	var b strings.Builder
	for {
		if end := strings.IndexByte(rest, '\''); end >= 0 {
			b.WriteString(rest[:end])
			after := strings.TrimLeft(rest[end+1:], " \t")
			if after != "" && !strings.HasPrefix(after, "#") {
				return "", i, fmt.Errorf("line %d: content after quote", i+1)
			}
			return b.String(), i, nil
		}
		b.WriteString(rest)
		b.WriteString("\n")
		i++
		if i >= len(lines) {
			return "", i, fmt.Errorf("unclosed quote")
		}
		rest = lines[i]
	}
}
