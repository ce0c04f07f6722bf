package kubeletenv

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// WindowsProcessEnv builds a Windows container process's environment: the
// variables Windows gives every process of the account (as `set` shows
// them in a Server Core or Nano Server container), then the image's Env,
// then the kubelet's (containerd's buildWindowsSpec passes image env
// followed by the CRI envs; hcsshim hands them to the guest, which merges
// them into the user's default block). Names match without case; a later
// value wins and keeps the earlier spelling of the name. The result is
// sorted without case, the order Windows keeps environment blocks in.
func WindowsProcessEnv(kubelet []string, img Image, hostname, account string, cpus int) []string {
	all := make([]string, 0, 40+len(img.Env)+len(kubelet))
	all = appendWindowsDefaults(all, img.NanoServer, hostname, account, cpus)
	all = append(all, img.Env...)
	all = append(all, kubelet...)
	all = slices.DeleteFunc(all, func(kv string) bool { return envName(kv) == "" })
	// A stable sort keeps each name's settings in the order they were
	// made, so the first of a run has the name's spelling and the last
	// its value. The strings are kept as they are where they can be: a
	// container holds its environment for as long as it runs.
	slices.SortStableFunc(all, func(a, b string) int { return compareFold(envName(a), envName(b)) })
	out := all[:0]
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && compareFold(envName(all[j]), envName(all[i])) == 0 {
			j++
		}
		first, last := all[i], all[j-1]
		if name := envName(first); name != envName(last) {
			last = name + "=" + last[len(envName(last))+1:]
		}
		out = append(out, last)
		i = j
	}
	return slices.Clone(out) // without the room for duplicates
}

// envName is the name of a NAME=value setting; "" when it has none.
func envName(kv string) string {
	name, _, ok := strings.Cut(kv, "=")
	if !ok {
		return ""
	}
	return name
}

// compareFold orders names as Windows orders an environment block:
// without case, upper-cased (so "_" sorts after the letters).
func compareFold(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if ca, cb := upperASCII(a[i]), upperASCII(b[i]); ca != cb {
			return int(ca) - int(cb)
		}
	}
	return len(a) - len(b)
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// appendWindowsDefaults appends the per-process variables of a container
// account.
func appendWindowsDefaults(env []string, nano bool, hostname, account string, cpus int) []string {
	env = append(env, accountDefaults(nano, account)...)
	return append(env, `COMPUTERNAME=`+ComputerName(hostname), `NUMBER_OF_PROCESSORS=`+strconv.Itoa(cpus))
}

// sharedDefaults are accountDefaults of the two built-in accounts, made
// once: nearly every Windows container runs as one of them, and each
// keeps its environment for as long as it runs.
var sharedDefaults sync.Map // accountKey -> []string

type accountKey struct {
	nano    bool
	account string
}

// accountDefaults are the variables of a container account that do not
// depend on the container. Server Core has PowerShell, WMI and the 32-bit
// program folders; Nano Server has none of them.
func accountDefaults(nano bool, account string) []string {
	shared := account == "ContainerUser" || account == "ContainerAdministrator"
	key := accountKey{nano, account}
	if shared {
		if env, ok := sharedDefaults.Load(key); ok {
			return env.([]string)
		}
	}
	profile := `C:\Users\` + windowsUserDir(account)
	local := profile + `\AppData\Local`
	path := `C:\Windows\system32;C:\Windows;C:\Windows\System32\Wbem;C:\Windows\System32\WindowsPowerShell\v1.0\;C:\Windows\System32\OpenSSH\;` + local + `\Microsoft\WindowsApps`
	pathext := ".COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC"
	if nano {
		path = `C:\Windows\system32;C:\Windows;` + local + `\Microsoft\WindowsApps`
		pathext = ".COM;.EXE;.BAT;.CMD"
	}
	env := []string{
		`ALLUSERSPROFILE=C:\ProgramData`,
		`APPDATA=` + profile + `\AppData\Roaming`,
		`CommonProgramFiles=C:\Program Files\Common Files`,
		`CommonProgramW6432=C:\Program Files\Common Files`,
		`ComSpec=C:\Windows\system32\cmd.exe`,
		`DriverData=C:\Windows\System32\Drivers\DriverData`,
		`LOCALAPPDATA=` + local,
		`OS=Windows_NT`,
		`Path=` + path,
		`PATHEXT=` + pathext,
		`PROCESSOR_ARCHITECTURE=AMD64`,
		`ProgramData=C:\ProgramData`,
		`ProgramFiles=C:\Program Files`,
		`ProgramW6432=C:\Program Files`,
		`PROMPT=$P$G`,
		`PUBLIC=C:\Users\Public`,
		`SystemDrive=C:`,
		`SystemRoot=C:\Windows`,
		`TEMP=` + local + `\Temp`,
		`TMP=` + local + `\Temp`,
		`USERDOMAIN=User Manager`,
		`USERNAME=` + windowsUserDir(account),
		`USERPROFILE=` + profile,
		`windir=C:\Windows`,
	}
	if !nano {
		env = append(env,
			`CommonProgramFiles(x86)=C:\Program Files (x86)\Common Files`,
			`ProgramFiles(x86)=C:\Program Files (x86)`,
			`PSModulePath=C:\Program Files\WindowsPowerShell\Modules;C:\Windows\system32\WindowsPowerShell\v1.0\Modules`,
		)
	}
	if shared {
		sharedDefaults.Store(key, env)
	}
	return env
}

// cpuCount is NUMBER_OF_PROCESSORS: a process-isolated container sees the
// node's processors; the node's allocatable CPU rounded up stands in.
func cpuCount(node Node) int {
	q, ok := node.Allocatable[corev1.ResourceCPU]
	if !ok {
		return 1
	}
	n := int((q.MilliValue() + 999) / 1000)
	if n < 1 {
		n = 1
	}
	return n
}
