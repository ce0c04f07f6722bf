package activedirectory

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/winkube/winkube/pkg/windows"
)

// Domain is an Active Directory domain as a GMSA credential spec's
// DomainJoinConfig names it. winkube emulates one domain per cluster: its
// Windows nodes are "joined" to it, and its one domain controller answers
// the containers that run with a gMSA of it.
type Domain struct {
	DNSName     string // contoso.com
	NetBIOSName string // CONTOSO
	// GUID and SID are the domain's (Get-ADDomain's ObjectGUID and
	// DomainSID); an emulated domain derives them from its DNS name.
	GUID string
	SID  string
}

// NewDomain is the emulated domain of dnsName; netBIOSName "" is the
// default windows.NetBIOSNameOf(dnsName).
func NewDomain(dnsName, netBIOSName string) Domain {
	if netBIOSName == "" {
		netBIOSName = windows.NetBIOSNameOf(dnsName)
	}
	sum := sha256.Sum256([]byte(strings.ToLower(dnsName)))
	g := sum[:16]
	guid := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", g[0:4], g[4:6], g[6:8], g[8:10], g[10:16])
	// A domain SID is S-1-5-21 and three 32-bit sub-authorities.
	sid := fmt.Sprintf("S-1-5-21-%d-%d-%d", binary.BigEndian.Uint32(sum[16:20]), binary.BigEndian.Uint32(sum[20:24]), binary.BigEndian.Uint32(sum[24:28]))
	return Domain{DNSName: strings.ToLower(dnsName), NetBIOSName: netBIOSName, GUID: guid, SID: sid}
}

// DomainController is the fully qualified name of the emulated domain's
// domain controller, as nltest prints it after \\ and klist after Kdc
// Called.
func (d Domain) DomainController() string { return "dc01." + d.DNSName }

// Realm is the domain's Kerberos realm: its DNS name in upper case.
func (d Domain) Realm() string { return strings.ToUpper(d.DNSName) }

// Names reports whether name is the domain's DNS or NetBIOS name (Windows
// compares them without case).
func (d Domain) Names(name string) bool {
	name = strings.TrimSuffix(name, ".")
	return name != "" && (strings.EqualFold(name, d.DNSName) || strings.EqualFold(name, d.NetBIOSName))
}
