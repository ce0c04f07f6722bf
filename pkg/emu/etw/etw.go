// Package etw is Event Tracing for Windows inside one container: the
// providers its programs register, and the real-time sessions that
// enable them (LogMonitor's ETW source is one). As in ETW, a provider
// writes an event only when some session has enabled it for the event's
// level and keywords: IsEnabled is the cheap check a provider makes
// before it builds an event, so a container nobody traces costs nothing.
// Sessions receive events on the writer's goroutine, as the real ones
// receive them from a buffer without polling.
package etw

import (
	"strings"
	"sync"
	"time"
)

// DecodingSource is how a consumer decodes a provider's events
// (TRACE_EVENT_INFO.DecodingSource): a manifest (XMLFile), a MOF class
// (Wbem), WPP or TraceLogging.
type DecodingSource int

const (
	DecodingXMLFile DecodingSource = iota
	DecodingWbem
	DecodingWPP
	DecodingTlg
)

// Provider is a registered event provider: its name as logman lists it
// and its GUID in registry form ({7E8AD27F-B271-...}).
type Provider struct {
	Name     string
	GUID     string
	Decoding DecodingSource
}

// Property is one field of an event's payload, in the order of its
// template; Value is its text as TDH formats it.
type Property struct{ Name, Value string }

// Event is one event a provider writes.
type Event struct {
	Provider Provider
	Time     time.Time
	ID       int
	// EventGUID is a MOF event's class GUID (Wbem providers).
	EventGUID string
	Level     int // 1 Critical .. 5 Verbose; 0 always passes
	Keyword   uint64
	ProcessID int
	ThreadID  int
	Data      []Property
}

// Enable is a session's enabling of one provider (EnableTraceEx2): the
// most verbose level it wants and the keywords any of which an event
// must carry (0: all).
type Enable struct {
	GUID     string
	Level    int
	Keywords uint64
}

// passes is ETW's filter: level 0 or up to the enabled level, and a
// keyword in common unless either side has none.
func (e Enable) passes(level int, keyword uint64) bool {
	return (level == 0 || level <= e.Level) && (e.Keywords == 0 || keyword == 0 || keyword&e.Keywords != 0)
}

// Session is a real-time trace session.
type Session struct {
	t       *Tracing
	enables []Enable
	fn      func(Event)
}

// Close stops the session.
func (s *Session) Close() {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	delete(s.t.sessions, s)
}

// Tracing is a container's ETW: registered providers and sessions.
type Tracing struct {
	mu        sync.Mutex
	providers map[string]Provider // by upper-case GUID
	sessions  map[*Session]struct{}
}

// New is a container's ETW with no providers and no sessions.
func New() *Tracing {
	return &Tracing{providers: map[string]Provider{}, sessions: map[*Session]struct{}{}}
}

// NormalGUID is a GUID as StringFromCLSID writes it: upper case, in
// braces.
func NormalGUID(g string) string {
	g = strings.ToUpper(strings.TrimSpace(g))
	if !strings.HasPrefix(g, "{") {
		g = "{" + g + "}"
	}
	return g
}

// Register registers a provider (EventRegister); registering again is
// harmless.
func (t *Tracing) Register(p Provider) {
	p.GUID = NormalGUID(p.GUID)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.providers[p.GUID] = p
}

// Lookup finds a registered provider by name, without case, as
// TdhEnumerateProviders lets a consumer do.
func (t *Tracing) Lookup(name string) (Provider, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.providers {
		if strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	return Provider{}, false
}

// Start starts a session enabling providers by GUID; fn receives each
// event that passes the session's filters.
func (t *Tracing) Start(enables []Enable, fn func(Event)) *Session {
	s := &Session{t: t, fn: fn}
	for _, e := range enables {
		e.GUID = NormalGUID(e.GUID)
		s.enables = append(s.enables, e)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sessions[s] = struct{}{}
	return s
}

// IsEnabled reports whether any session wants an event of the provider
// at that level and keyword (EventProviderEnabled).
func (t *Tracing) IsEnabled(guid string, level int, keyword uint64) bool {
	guid = NormalGUID(guid)
	t.mu.Lock()
	defer t.mu.Unlock()
	for s := range t.sessions {
		for _, e := range s.enables {
			if e.GUID == guid && e.passes(level, keyword) {
				return true
			}
		}
	}
	return false
}

// Write delivers an event to the sessions that enabled its provider
// for its level and keyword.
func (t *Tracing) Write(ev Event) {
	ev.Provider.GUID = NormalGUID(ev.Provider.GUID)
	t.mu.Lock()
	var to []func(Event)
	for s := range t.sessions {
		for _, e := range s.enables {
			if e.GUID == ev.Provider.GUID && e.passes(ev.Level, ev.Keyword) {
				to = append(to, s.fn)
				break
			}
		}
	}
	t.mu.Unlock()
	for _, fn := range to {
		fn(ev)
	}
}
