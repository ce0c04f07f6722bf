package program

import (
	"errors"
	"sort"
	"strings"
	"sync"
)

// ErrGroupExists is returned by LocalGroups.Add for a name already taken.
var ErrGroupExists = errors.New("the specified local group already exists")

// ErrNoGroup is returned by LocalGroups.Delete for a name not there.
var ErrNoGroup = errors.New("the specified local group does not exist")

// LocalGroups are a Windows machine's local groups (net localgroup). A
// container has its own; HostProcess containers share their node's, so a
// group one of them adds is one the node can log a later container on
// with. Names match without case, as Windows matches them.
type LocalGroups struct {
	mu    sync.Mutex
	names []string
}

// builtinGroups are the local groups of a Windows Server container image.
var builtinGroups = []string{"Administrators", "Backup Operators", "Guests", "IIS_IUSRS", "Performance Log Users", "Remote Desktop Users", "Users"}

// NewLocalGroups is a machine's groups as Windows Server installs them.
// The list is shared until a change: Add and Delete never write into the
// array they were given (its capacity is its length), and thousands of
// containers never change theirs.
func NewLocalGroups() *LocalGroups {
	return &LocalGroups{names: builtinGroups[:len(builtinGroups):len(builtinGroups)]}
}

// Add creates a group.
func (g *LocalGroups) Add(name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.find(name) >= 0 {
		return ErrGroupExists
	}
	g.names = append(g.names, name)
	return nil
}

// Delete removes a group.
func (g *LocalGroups) Delete(name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := g.find(name)
	if i < 0 {
		return ErrNoGroup
	}
	g.names = append(g.names[:i:i], g.names[i+1:]...) // a new array: see NewLocalGroups
	return nil
}

// Has reports whether a group exists.
func (g *LocalGroups) Has(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.find(name) >= 0
}

// Names are the groups, sorted as net localgroup lists them.
func (g *LocalGroups) Names() []string {
	g.mu.Lock()
	out := append([]string(nil), g.names...)
	g.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}

func (g *LocalGroups) find(name string) int {
	for i, n := range g.names {
		if strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}
