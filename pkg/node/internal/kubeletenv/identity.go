package kubeletenv

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/securitycontext"
)

// Identity is who the container's first process runs as.
type Identity struct {
	UID, GID int64
	// Groups are the supplementary groups as getgroups(2) reports them:
	// the primary gid, the image's /etc/group memberships of the user,
	// fsGroup and supplementalGroups, unique and ascending (the kernel
	// sorts the list on setgroups).
	Groups     []int64
	Name       string   // the passwd name of UID; "" when it has none
	GroupName  string   // the group name of GID; "" when it has none
	GroupNames []string // the names of Groups, "" where unknown
	Home       string   // the HOME runc adds: the passwd home, else "/"
	// Account is the Windows account (ContainerAdministrator,
	// ContainerUser, or runAsUserName); "" on Linux.
	Account string
}

// Errors containerd reports when the image has no such user or group
// (oci.WithUser resolving against the image's /etc/passwd, /etc/group).
var (
	errNoUsers  = errors.New("no users found")
	errNoGroups = errors.New("no groups found")
)

// ContainerIdentity resolves the user the way the kubelet and containerd
// do together. The kubelet always sends a user: runAsUser, else the
// image's user (only its user part: getUserFromImage in containerd drops
// ":group", pkg/kubelet/kuberuntime/security_context.go), else 0; it adds
// runAsGroup, fsGroup and supplementalGroups. containerd resolves names
// and the primary gid against the image's files (gid 0 when the uid has no
// entry) and adds the user's /etc/group memberships unless
// supplementalGroupsPolicy is Strict.
func ContainerIdentity(pod *corev1.Pod, container *corev1.Container, img Image, windows bool) (Identity, error) {
	sc := securitycontext.DetermineEffectiveSecurityContext(pod, container)
	if windows {
		return windowsIdentity(sc, img), nil
	}
	users, groups := usersIn(orBusybox(img.Passwd, BusyboxPasswd)), groupsIn(orBusybox(img.Group, BusyboxGroup))
	userPart := imageUserPart(img.User)
	if sc.RunAsUser != nil {
		userPart = strconv.FormatInt(*sc.RunAsUser, 10)
	}
	id, name, err := resolveUser(userPart, sc.RunAsGroup, users, groups)
	if err != nil {
		return Identity{}, err
	}
	set := map[int64]bool{id.GID: true}
	if !strictGroups(pod) {
		for _, g := range groups {
			if name != "" && g.name != name && contains(g.members, name) {
				set[g.gid] = true
			}
		}
	}
	if psc := pod.Spec.SecurityContext; psc != nil {
		if psc.FSGroup != nil {
			set[*psc.FSGroup] = true
		}
		for _, g := range psc.SupplementalGroups {
			set[g] = true
		}
	}
	for g := range set {
		id.Groups = append(id.Groups, g)
	}
	sort.Slice(id.Groups, func(i, j int) bool { return id.Groups[i] < id.Groups[j] })
	for _, g := range id.Groups {
		e, _ := groupByGID(groups, g)
		id.GroupNames = append(id.GroupNames, e.name)
	}
	return id, nil
}

// resolveUser is containerd's oci.WithUser for "user" or "user:group";
// it returns the identity without groups and the user's name.
func resolveUser(userPart string, runAsGroup *int64, users []passwdEntry, groups []groupEntry) (Identity, string, error) {
	var id Identity
	var entry passwdEntry
	var found bool
	if uid, err := strconv.ParseInt(userPart, 10, 64); err == nil {
		id.UID = uid
		entry, found = userByUID(users, uid)
		if found {
			id.GID = entry.gid
		}
	} else {
		if entry, found = userByName(users, userPart); !found {
			return Identity{}, "", errNoUsers
		}
		id.UID, id.GID = entry.uid, entry.gid
	}
	if runAsGroup != nil {
		id.GID = *runAsGroup
	}
	id.Home = "/"
	if found {
		id.Name, id.Home = entry.name, entry.home
	}
	if g, ok := groupByGID(groups, id.GID); ok {
		id.GroupName = g.name
	}
	return id, entry.name, nil
}

// imageUserPart is the user the kubelet takes from the image config: the
// part before ':' (numeric or a name), "0" when the image sets none.
func imageUserPart(user string) string {
	user, _, _ = strings.Cut(user, ":")
	if user == "" {
		return "0"
	}
	return user
}

func strictGroups(pod *corev1.Pod) bool {
	psc := pod.Spec.SecurityContext
	return psc != nil && psc.SupplementalGroupsPolicy != nil && *psc.SupplementalGroupsPolicy == corev1.SupplementalGroupsPolicyStrict
}

// windowsIdentity: runAsUserName (container over pod), else the image's
// user, else ContainerAdministrator (Server Core's default; Nano Server
// images set ContainerUser in their config).
func windowsIdentity(sc *corev1.SecurityContext, img Image) Identity {
	account := img.User
	if sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.RunAsUserName != nil && *sc.WindowsOptions.RunAsUserName != "" {
		account = *sc.WindowsOptions.RunAsUserName
	}
	if account == "" {
		account = "ContainerAdministrator"
	}
	return Identity{Name: account, Account: account, Home: `C:\Users\` + windowsUserDir(account)}
}

// windowsUserDir is the profile directory name of an account: the part
// after a DOMAIN\ prefix.
func windowsUserDir(account string) string {
	if i := strings.LastIndexByte(account, '\\'); i >= 0 {
		return account[i+1:]
	}
	return account
}

func orBusybox(data, def []byte) []byte {
	if data == nil {
		return def
	}
	return data
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
