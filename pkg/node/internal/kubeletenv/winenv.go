package kubeletenv

import (
	"sort"
	"strconv"
	"strings"

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
	var names []string
	vals := map[string]string{}
	spelled := map[string]string{}
	set := func(kv string) {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return
		}
		key := strings.ToUpper(name)
		if _, seen := vals[key]; !seen {
			names = append(names, key)
			spelled[key] = name
		}
		vals[key] = val
	}
	for _, kv := range windowsDefaults(img.NanoServer, hostname, account, cpus) {
		set(kv)
	}
	for _, kv := range img.Env {
		set(kv)
	}
	for _, kv := range kubelet {
		set(kv)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, key := range names {
		out = append(out, spelled[key]+"="+vals[key])
	}
	return out
}

// windowsDefaults are the per-process variables of a container account.
// Server Core has PowerShell, WMI and the 32-bit program folders; Nano
// Server has none of them.
func windowsDefaults(nano bool, hostname, account string, cpus int) []string {
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
		`COMPUTERNAME=` + ComputerName(hostname),
		`ComSpec=C:\Windows\system32\cmd.exe`,
		`DriverData=C:\Windows\System32\Drivers\DriverData`,
		`LOCALAPPDATA=` + local,
		`NUMBER_OF_PROCESSORS=` + strconv.Itoa(cpus),
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
