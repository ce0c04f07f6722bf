package node

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
)

// program is what the emulation can tell of a container's process from its
// command, arguments and image: how long it runs, how it exits and what it
// prints. No process runs on an emulated node, so only simple commands are
// understood; for the rest, known is false and why says what was beyond
// reach.
type program struct {
	known bool
	// idle is a shell or interpreter started with no script: with stdin
	// closed, as the kubelet leaves it, it exits 0 at once.
	idle     bool
	forever  bool    // runs until stopped (a server, pause, a loop)
	seconds  float64 // run time when it ends by itself
	exitCode int32
	output   []outLine
	why      string
}

// outLine is a line a program prints, after seconds of its run.
type outLine struct {
	after float64
	text  string
}

// unknownProgram is a program the emulation cannot read.
func unknownProgram(format string, args ...any) program {
	return program{why: fmt.Sprintf(format, args...)}
}

// containerProgram interprets a container's command line. As on a real
// runtime, command replaces the image's ENTRYPOINT and drops its CMD; args
// replaces CMD (pkg/kubelet/kuberuntime/kuberuntime_container.go with the
// image config).
func containerProgram(pod *corev1.Pod, c corev1.Container) program {
	argv := append(append([]string(nil), c.Command...), c.Args...)
	if len(c.Command) == 0 {
		def, ok := imageinfo.DefaultCommand(c.Image)
		if !ok {
			return unknownProgram("the default command of image %s is not in winkube's catalog", c.Image)
		}
		args := def.Cmd
		if len(c.Args) > 0 {
			args = c.Args
		}
		argv = append(append([]string(nil), def.Entrypoint...), args...)
	}
	if len(argv) == 0 {
		return unknownProgram("image %s has no default command", c.Image)
	}
	env := containerEnv(pod, c)
	for i, a := range argv {
		argv[i] = expandRefs(a, env)
	}
	return interpret(argv, env)
}

// serverPrograms run until they are stopped.
var serverPrograms = map[string]bool{
	"pause": true, "nginx": true, "httpd-foreground": true, "httpd": true, "redis-server": true,
	"memcached": true, "mongod": true, "rabbitmq-server": true, "traefik": true, "coredns": true,
	"flanneld": true, "servicemonitor": true,
}

// agnhostServers are the agnhost subcommands (test/images/agnhost) that
// serve until stopped.
var agnhostServers = map[string]bool{
	"pause": true, "netexec": true, "serve-hostname": true, "webhook": true, "porter": true,
	"nettest": true, "test-webserver": true, "fake-gitserver": true, "guestbook": true,
	"crd-conversion-webhook": true, "liveness": true, "grpc-health-checking": true, "tcp-reset": true,
}

// interpret reads one command line.
func interpret(argv []string, env envMap) program {
	name := programName(argv[0])
	switch {
	case name == "docker-entrypoint.sh" || name == "entrypoint.sh" || name == "tini" || name == "dumb-init":
		rest := argv[1:]
		if len(rest) > 0 && rest[0] == "--" {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return unknownProgram("%s runs nothing the emulation knows", argv[0])
		}
		return interpret(rest, env)
	case name == "agnhost":
		if len(argv) > 1 && agnhostServers[argv[1]] {
			return program{known: true, forever: true}
		}
		return unknownProgram("agnhost %s is not emulated", strings.Join(argv[1:], " "))
	case serverPrograms[name]:
		return program{known: true, forever: true}
	case len(argv) == 1 && isInterpreter(name):
		return program{known: true, idle: true}
	case name == "sh" || name == "bash" || name == "ash" || name == "dash":
		if script, ok := flagValue(argv, "-c"); ok {
			return runScript(shDialect, script, env)
		}
	case name == "cmd":
		if script, ok := flagRest(argv, "/c"); ok {
			return runScript(cmdDialect, script, env)
		}
	case name == "powershell" || name == "pwsh":
		if script, ok := flagRest(argv, "-command", "-c"); ok {
			return runScript(psDialect, script, env)
		}
	default:
		return runSteps(shDialect, []step{{words: argv}}, env)
	}
	return unknownProgram("%s is beyond what the emulation can read", quoteArgv(argv))
}

// programName is the lower-case file name of a program without .exe.
func programName(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	return strings.TrimSuffix(strings.ToLower(path.Base(p)), ".exe")
}

func isInterpreter(name string) bool {
	switch name {
	case "sh", "bash", "ash", "dash", "cmd", "powershell", "pwsh", "python", "python3", "node":
		return true
	}
	return false
}

// flagValue is the argument after flag (a shell's -c script).
func flagValue(argv []string, flag string) (string, bool) {
	for i, a := range argv[1:] {
		if a == flag && i+2 < len(argv) {
			return argv[i+2], true
		}
	}
	return "", false
}

// flagRest joins everything after the first of flags (case-insensitive), as
// cmd /c and powershell -Command take the rest of their command line.
func flagRest(argv []string, flags ...string) (string, bool) {
	for i, a := range argv[1:] {
		for _, f := range flags {
			if strings.EqualFold(a, f) && i+2 <= len(argv)-1 {
				return strings.Join(argv[i+2:], " "), true
			}
		}
	}
	return "", false
}

func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = strconv.Quote(a)
	}
	return "[" + strings.Join(q, " ") + "]"
}

// envMap is a container's environment as far as the node can know it:
// values nil are set from a source the emulation does not read.
type envMap struct {
	names  []string
	values map[string]*string
}

func (e *envMap) set(name string, v *string) {
	if _, ok := e.values[name]; !ok {
		e.names = append(e.names, name)
	}
	e.values[name] = v
}

// containerEnv is the environment the kubelet gives a container: the
// hostname, then env in order (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables).
// envFrom and the service variables are not modelled.
func containerEnv(pod *corev1.Pod, c corev1.Container) envMap {
	env := envMap{values: map[string]*string{}}
	host := pod.Spec.Hostname
	if host == "" {
		host = pod.Name
	}
	env.set("HOSTNAME", &host)
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil {
			fv, ok := fieldValue(pod, e.ValueFrom)
			if !ok {
				env.set(e.Name, nil)
				continue
			}
			v = fv
		} else {
			v = expandRefs(v, env)
		}
		env.set(e.Name, &v)
	}
	return env
}

// fieldValue resolves the downward-API fields the pod object holds.
func fieldValue(pod *corev1.Pod, src *corev1.EnvVarSource) (string, bool) {
	if src.FieldRef == nil {
		return "", false
	}
	switch src.FieldRef.FieldPath {
	case "metadata.name":
		return pod.Name, true
	case "metadata.namespace":
		return pod.Namespace, true
	case "metadata.uid":
		return string(pod.UID), true
	case "spec.nodeName":
		return pod.Spec.NodeName, true
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, true
	case "status.podIP":
		return pod.Status.PodIP, pod.Status.PodIP != ""
	case "status.hostIP":
		return pod.Status.HostIP, pod.Status.HostIP != ""
	}
	return "", false
}

// expandRefs replaces $(VAR) with the variable's value, as the kubelet
// does in command, args and env values; $$ escapes, unknown names stay
// as written (third_party/forked/golang/expansion).
func expandRefs(s string, env envMap) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case s[i+1] == '$':
			b.WriteByte('$')
			i++
		case s[i+1] == '(':
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				b.WriteByte('$')
				continue
			}
			name := s[i+2 : i+end]
			if v, ok := env.values[name]; ok && v != nil {
				b.WriteString(*v)
			} else {
				b.WriteString(s[i : i+end+1])
			}
			i += end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}
