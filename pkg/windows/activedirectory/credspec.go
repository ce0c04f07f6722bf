// Package activedirectory is the rule book's account of the Active
// Directory side of group Managed Service Accounts: the credential spec a
// pod names (its JSON and where the kubelet reads it) and the domain it
// names, which winkube emulates one of per cluster. (pkg/gmsa is the
// GMSACredentialSpec CRD and its webhook.) Like pkg/windows it is pure:
// no I/O.
package activedirectory

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// CredentialSpec is a GMSA credential spec, the JSON a GMSACredentialSpec
// holds under `credspec` and the windows-gmsa webhook inlines into
// gmsaCredentialSpec (New-CredentialSpec's file format).
type CredentialSpec struct {
	CmsPlugins            []string              `json:"CmsPlugins,omitempty"`
	DomainJoinConfig      DomainJoinConfig      `json:"DomainJoinConfig"`
	ActiveDirectoryConfig ActiveDirectoryConfig `json:"ActiveDirectoryConfig,omitempty"`
}

// DomainJoinConfig names the gMSA's domain and account.
type DomainJoinConfig struct {
	DnsName            string `json:"DnsName,omitempty"` //nolint:revive // the format's spelling
	DnsTreeName        string `json:"DnsTreeName,omitempty"`
	Guid               string `json:"Guid,omitempty"`
	MachineAccountName string `json:"MachineAccountName,omitempty"`
	NetBiosName        string `json:"NetBiosName,omitempty"`
	Sid                string `json:"Sid,omitempty"`
}

// ActiveDirectoryConfig lists the gMSAs and, for hosts outside the
// domain, the ccg.exe plugin that fetches the gMSA's password.
type ActiveDirectoryConfig struct {
	GroupManagedServiceAccounts []GroupManagedServiceAccount `json:"GroupManagedServiceAccounts,omitempty"`
	HostAccountConfig           *HostAccountConfig           `json:"HostAccountConfig,omitempty"`
}

// GroupManagedServiceAccount is one gMSA with a scope (the domain's DNS or
// NetBIOS name).
type GroupManagedServiceAccount struct {
	Name  string `json:"Name,omitempty"`
	Scope string `json:"Scope,omitempty"`
}

// HostAccountConfig is the ccg.exe plugin of a non-domain-joined host.
type HostAccountConfig struct {
	PortableCcgVersion string `json:"PortableCcgVersion,omitempty"`
	PluginGUID         string `json:"PluginGUID,omitempty"`
	PluginInput        string `json:"PluginInput,omitempty"`
}

// ParseCredentialSpec reads a gmsaCredentialSpec; the error names what is
// missing.
func ParseCredentialSpec(s string) (CredentialSpec, error) {
	var cs CredentialSpec
	if err := json.Unmarshal([]byte(s), &cs); err != nil {
		return cs, fmt.Errorf("gmsaCredentialSpec is not a credential spec: %w", err)
	}
	if cs.DomainJoinConfig.DnsName == "" {
		return cs, fmt.Errorf("gmsaCredentialSpec has no DomainJoinConfig.DnsName")
	}
	if cs.DomainJoinConfig.MachineAccountName == "" {
		return cs, fmt.Errorf("gmsaCredentialSpec has no DomainJoinConfig.MachineAccountName")
	}
	return cs, nil
}

// CredentialSpecOf is the credential spec a container runs with: its
// own windowsOptions.gmsaCredentialSpec, else the pod's, as the kubelet
// merges them (the container's setting wins). Empty: none.
func CredentialSpecOf(pod *corev1.PodSpec, c *corev1.Container) string {
	if c != nil && c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil && c.SecurityContext.WindowsOptions.GMSACredentialSpec != nil {
		return *c.SecurityContext.WindowsOptions.GMSACredentialSpec
	}
	if pod != nil && pod.SecurityContext != nil && pod.SecurityContext.WindowsOptions != nil && pod.SecurityContext.WindowsOptions.GMSACredentialSpec != nil {
		return *pod.SecurityContext.WindowsOptions.GMSACredentialSpec
	}
	return ""
}
