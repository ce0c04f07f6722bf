package agnhost

import (
	"os"
	"strings"
)

// FileSystemRights bits (System.Security.AccessControl) that
// filePermissions.ps1 tests, and the rights of the ACEs below.
const (
	rightReadData        = 0x0001
	rightWriteData       = 0x0002
	rightAppendData      = 0x0004
	rightWriteEA         = 0x0010
	rightExecute         = 0x0020
	rightReadAttributes  = 0x0080
	rightWriteAttributes = 0x0100

	// rightsFullControl and rightsReadAndExecute are the enum's
	// FullControl and ReadAndExecute values.
	rightsFullControl    = 0x1F01FF
	rightsReadAndExecute = 0x1200A9
)

// ace is one access rule of a file's ACL as Get-Acl lists it.
type ace struct {
	identity string
	rights   int
	allow    bool
}

// fileACL is what Get-Acl returns for a file: owner, group and rules.
type fileACL struct {
	owner, group string
	access       []ace
}

// volumeFileACL is the ACL a file in a container's volume has on a
// Windows node: inherited from the kubelet's directories, owned by the
// Administrators with SYSTEM as its group, full control for both and
// read-and-execute for Users. Upstream's e2e tests expect exactly the
// mask this yields (0775) from the script.
var volumeFileACL = fileACL{
	owner: `BUILTIN\Administrators`,
	group: `NT AUTHORITY\SYSTEM`,
	access: []ace{
		{identity: `BUILTIN\Administrators`, rights: rightsFullControl, allow: true},
		{identity: `NT AUTHORITY\SYSTEM`, rights: rightsFullControl, allow: true},
		{identity: `BUILTIN\Users`, rights: rightsReadAndExecute, allow: true},
	},
}

// aclMode is agnhost mounttest's filePermissions.ps1: the allow rules of
// the owner, the group and any "users" identity turned into Unix-like
// permission bits (the last matching rule wins), which the tool then
// parses as an octal number into an os.FileMode.
func aclMode(acl fileACL) os.FileMode {
	var user, group, other os.FileMode
	for _, r := range acl.access {
		if !r.allow {
			continue
		}
		mask := ruleMask(r.rights)
		if r.identity == acl.owner {
			user = mask
		}
		if r.identity == acl.group {
			group = mask
		}
		if strings.Contains(strings.ToLower(r.identity), "users") {
			other = mask
		}
	}
	return user<<6 | group<<3 | other
}

func ruleMask(rights int) os.FileMode {
	const (
		read  = rightReadData | rightReadAttributes
		write = rightWriteData | rightAppendData | rightWriteAttributes | rightWriteEA
		exec  = rightReadData | rightExecute
	)
	var mask os.FileMode
	if rights&read == read {
		mask |= 4
	}
	if rights&write == write {
		mask |= 2
	}
	if rights&exec == exec {
		mask |= 1
	}
	return mask
}
