package images

import (
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// Store is what a node's emulated runtime holds: the images it pulled.
type Store struct {
	mu   sync.Mutex
	refs map[string]bool
}

// NewStore is a runtime that holds no image yet.
func NewStore() *Store { return &Store{refs: map[string]bool{}} }

// Has reports whether the runtime holds ref.
func (s *Store) Has(ref string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refs[ref]
}

// Add records that the runtime holds ref.
func (s *Store) Add(ref string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refs[ref] = true
}

// List is node.status.images, in a stable order so that unchanged status
// posts stay identical.
func (s *Store) List() []corev1.ContainerImage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []corev1.ContainerImage
	for ref := range s.refs {
		out = append(out, corev1.ContainerImage{Names: []string{ref}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Names[0] < out[j].Names[0] })
	return out
}
