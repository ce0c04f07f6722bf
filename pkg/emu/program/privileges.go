package program

import "strings"

// Privileges are what the runtime grants a Linux container's processes
// beyond their user, from the container's securityContext.
type Privileges struct {
	// NoNewPrivs is the no_new_privs bit the kubelet asks for when
	// allowPrivilegeEscalation is false: a setuid program then runs as
	// its caller.
	NoNewPrivs bool
	// Privileged is securityContext.privileged: every capability.
	Privileged bool
	// Add and Drop are securityContext.capabilities, as written (NET_ADMIN,
	// ALL).
	Add, Drop []string
}

// defaultCaps are the capabilities containerd gives a container that
// asks for none (its default spec, as Docker's).
var defaultCaps = map[string]bool{
	"CHOWN": true, "DAC_OVERRIDE": true, "FSETID": true, "FOWNER": true,
	"MKNOD": true, "NET_RAW": true, "SETGID": true, "SETUID": true,
	"SETFCAP": true, "SETPCAP": true, "NET_BIND_SERVICE": true,
	"SYS_CHROOT": true, "KILL": true, "AUDIT_WRITE": true,
}

// HasCap reports whether the container's processes hold a capability
// (NET_ADMIN, with or without CAP_) in their effective set. containerd
// applies add ALL, then drop ALL, then the single adds and drops. A
// process that is not root holds none: the runtime grants no ambient
// capabilities, so execve as a non-zero uid clears the effective set.
func (s *Sys) HasCap(name string) bool {
	if s.Windows || s.User.UID != 0 {
		return false
	}
	pr := s.Privileges
	if pr.Privileged {
		return true
	}
	name = capName(name)
	has := defaultCaps[name]
	if hasCapName(pr.Add, "ALL") {
		has = true
	}
	if hasCapName(pr.Drop, "ALL") {
		has = false
	}
	if hasCapName(pr.Add, name) {
		has = true
	}
	if hasCapName(pr.Drop, name) {
		has = false
	}
	return has
}

// SetuidUID is the effective uid of a program whose file is setuid and
// owned by owner: owner, unless no_new_privs keeps the caller's uid.
func (s *Sys) SetuidUID(owner int64) int64 {
	if s.Privileges.NoNewPrivs {
		return s.User.UID
	}
	return owner
}

func capName(c string) string {
	return strings.TrimPrefix(strings.ToUpper(c), "CAP_")
}

func hasCapName(list []string, name string) bool {
	for _, c := range list {
		if capName(c) == name {
			return true
		}
	}
	return false
}
