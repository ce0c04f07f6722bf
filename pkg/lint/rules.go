package lint

import "strings"

// RulesURL is where every rule ID is explained; SARIF's helpUri points at
// the rule's anchor in it.
const RulesURL = "https://github.com/winkube/winkube/blob/main/docs/rules.md"

// ruleDescriptions are the one-line descriptions reporters show for the
// rules this linter can raise (SARIF tool.driver.rules, JUnit test names).
var ruleDescriptions = map[string]string{
	"API-1":  "spec.os.name must be linux or windows",
	"API-2":  "pod-level Linux security fields cannot be set for a windows pod",
	"API-3":  "container Linux security fields cannot be set for a windows pod",
	"API-4":  "windowsOptions cannot be set for a linux pod",
	"API-5":  "windowsOptions must be valid (GMSA credential spec, runAsUserName)",
	"API-6":  "HostProcess containers: all or none, hostNetwork required, values must agree",
	"API-8":  "the cluster's Kubernetes version does not enforce the pod OS field rules",
	"LIM-1":  "Windows and Linux containers cannot share one pod",
	"LIM-2":  "hostNetwork is unsupported for Windows pods that are not HostProcess",
	"LIM-3":  "dnsPolicy ClusterFirstWithHostNet is unsupported on Windows",
	"LIM-4":  "emptyDir medium Memory is unsupported on Windows",
	"LIM-5":  "raw block volumeDevices are unsupported on Windows",
	"LIM-6":  "mountPropagation is unsupported on Windows",
	"LIM-7":  "single-file subPath mappings need containerd on Windows",
	"LIM-8":  "hugepages are unsupported on Windows",
	"LIM-9":  "NFS volumes, host-mount projection and defaultMode are unsupported on Windows",
	"LIM-10": "sessionAffinityConfig.clientIP.timeoutSeconds is not honoured on Windows",
	"LIM-11": "too many backend pods for one Service on Windows nodes",
	"LIM-12": "externalTrafficPolicy Local needs DSR on Windows nodes",
	"LIM-13": "IPv6 is unsupported on overlay networks",
	"LIM-14": "terminationGracePeriodSeconds is cut to 5 seconds by Docker on Windows",
	"LIM-15": "privileged containers do not exist on Windows",
	"LIM-17": "ICMP to remote networks fails from Windows pods",
	"LIM-18": "Secrets are stored in plain text on Windows nodes",
	"LIM-19": "Windows has no OOM killer; set memory requests equal to limits",
	"LIM-20": "Linux-only security settings do nothing on Windows",
	"SCH-1":  "no node of the target cluster matches the pod's selectors",
	"SCH-2":  "spec.os does not steer the scheduler",
	"SCH-3":  "Windows nodes are tainted; Windows pods need the toleration",
	"SCH-4":  "RuntimeClass scheduling is merged into the pod at admission",
	"SCH-5":  "a pod without an OS selector can land on the wrong OS",
	"IMG-2":  "the Windows image build must be compatible with the node build",
	"IMG-4":  "the image has no manifest for the node's platform",
	"KP-5":   "the Windows build of some nodes lacks the Service feature",
	"VER-2":  "the target Kubernetes version predates a Windows feature the workload uses",
	"KP-7":   "NodePort on Windows Server 2022 overlay nodes breaks unless externalTrafficPolicy is Local",
}

// RuleDescription returns the rule's one-line description.
func RuleDescription(id string) string {
	if d, ok := ruleDescriptions[id]; ok {
		return d
	}
	return id
}

// RuleHelpURI is the link to the rule's explanation.
func RuleHelpURI(id string) string {
	return RulesURL + "#" + strings.ToLower(id)
}
