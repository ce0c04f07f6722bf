// Package eventlog is the Windows event log of one container: its logs
// (Application, System, Security, Setup and the custom logs New-EventLog
// makes), the sources registered in them, and their entries. Every
// process of the container shares it, as they share the EventLog service
// of a real container; a restarted container starts with empty logs, as
// a new container's writable layer does.
//
// Readers follow new entries by subscribing: Write calls the subscribers
// (outside the store's lock), so a follower such as LogMonitor holds no
// goroutine and never polls.
package eventlog

import (
	"errors"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"
)

// Type is an entry's type (EventLogEntryType), its level in the
// Windows Event Log's terms.
type Type int

const (
	Error        Type = 1
	Warning      Type = 2
	Information  Type = 4
	SuccessAudit Type = 8
	FailureAudit Type = 16
)

// String is the type's .NET name (Get-EventLog's EntryType column).
func (t Type) String() string {
	switch t {
	case Error:
		return "Error"
	case Warning:
		return "Warning"
	case SuccessAudit:
		return "SuccessAudit"
	case FailureAudit:
		return "FailureAudit"
	}
	return "Information"
}

// Level is the entry's level as the Windows Event Log (Get-WinEvent,
// wevtutil, EvtSubscribe) sees a classic event: 2 Error, 3 Warning, 4
// Information; audits have level 0.
func (t Type) Level() int {
	switch t {
	case Error:
		return 2
	case Warning:
		return 3
	case SuccessAudit, FailureAudit:
		return 0
	}
	return 4
}

// LevelName is the level's display name (LevelDisplayName).
func (t Type) LevelName() string {
	switch t.Level() {
	case 2:
		return "Error"
	case 3:
		return "Warning"
	case 0:
		return "Information"
	}
	return "Information"
}

// ParseType reads a type's name without case (Error, Warning,
// Information, SuccessAudit, FailureAudit).
func ParseType(s string) (Type, bool) {
	for _, t := range []Type{Error, Warning, Information, SuccessAudit, FailureAudit} {
		if strings.EqualFold(s, t.String()) {
			return t, true
		}
	}
	return 0, false
}

// Entry is one event.
type Entry struct {
	Log      string // the log's name as created (Application)
	Index    int    // the record number, from 1 in each log
	Time     time.Time
	Type     Type
	EventID  int
	Source   string
	Message  string
	Category int
	// User is the SID of the account that wrote the entry ("" when the
	// writer did not give one, as Write-EventLog does not).
	User string
}

// The standard logs of Windows Server, with the sources its container
// images have registered in them (a subset: those scripts and tools
// use).
var standard = []struct {
	name    string
	sources []string
}{
	{"Application", []string{"Application", "Application Error", "Application Hang", "Windows Error Reporting", "MsiInstaller", "Wininit", "Winlogon", "WMI", "VSS", "ESENT", ".NET Runtime", "Desktop Window Manager"}},
	{"Security", []string{"Security", "Microsoft-Windows-Security-Auditing"}},
	{"System", []string{"System", "Service Control Manager", "EventLog", "Microsoft-Windows-Kernel-General", "Microsoft-Windows-Kernel-Boot", "Tcpip", "W3SVC", "WAS", "IIS-W3SVC-WP"}},
	{"Windows PowerShell", []string{"PowerShell"}},
}

// Info is what Get-EventLog -List says of a log.
type Info struct {
	Name       string
	MaxKB      int
	RetainDays int
	Overflow   string // OverwriteAsNeeded, OverwriteOlder
	Entries    int
}

// DefaultMaxKB is a new log's maximum size in kilobytes (Limit-EventLog's
// default, MaximumKilobytes).
const DefaultMaxKB = 512

// Store is a container's event log.
type Store struct {
	now func() time.Time

	mu   sync.Mutex
	logs []*log
	// sources are the registered sources by lower-case name; nil while
	// they are the standard ones (most containers never register one, and
	// a copy each costs a pod more than the rest of its event log).
	sources map[string]*source
	subs    map[*Subscription]struct{}
}

// standardSources are the sources of the standard logs, shared read-only
// by every Store until it changes its own.
var standardSources = func() map[string]*source {
	m := map[string]*source{}
	for _, l := range standard {
		for _, src := range l.sources {
			m[strings.ToLower(src)] = &source{name: src, log: l.name}
		}
	}
	return m
}()

// source is the registered source of a name (any case), or nil.
func (s *Store) source(name string) *source {
	if s.sources == nil {
		return standardSources[strings.ToLower(name)]
	}
	return s.sources[strings.ToLower(name)]
}

// ownSources is the Store's own copy of its sources, to change.
func (s *Store) ownSources() map[string]*source {
	if s.sources == nil {
		s.sources = maps.Clone(standardSources)
	}
	return s.sources
}

type log struct {
	name    string
	entries []Entry
	next    int // the index of the next entry
	custom  bool
}

type source struct {
	name, log string
	// eventcreate: registered by eventcreate.exe, the only sources it
	// writes with.
	eventcreate bool
}

// New is a container's event log with the standard logs, empty; now
// stamps entries (the container's clock).
func New(now func() time.Time) *Store {
	s := &Store{now: now, subs: map[*Subscription]struct{}{}}
	for _, l := range standard {
		s.logs = append(s.logs, &log{name: l.name, next: 1})
	}
	return s
}

// Errors of the store; callers word them as their program does.
var (
	ErrNoLog        = errors.New("the event log does not exist")
	ErrNoSource     = errors.New("the source does not exist")
	ErrSourceExists = errors.New("the source is already registered")
	ErrLogExists    = errors.New("a log of that name exists")
)

func (s *Store) find(name string) *log {
	for _, l := range s.logs {
		if strings.EqualFold(l.name, name) {
			return l
		}
	}
	return nil
}

// LogName is the log's name as created and whether it exists.
func (s *Store) LogName(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.find(name); l != nil {
		return l.name, true
	}
	return "", false
}

// Logs are the logs' names in alphabetical order, as Get-EventLog -List
// and wevtutil el give them.
func (s *Store) Logs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.logs))
	for k, l := range s.logs {
		out[k] = l.name
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}

// List describes the logs in alphabetical order: the standard ones as
// Windows Server sizes them, custom ones as New-EventLog makes them (512
// KB, kept 7 days).
func (s *Store) List() []Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Info
	for _, l := range s.logs {
		info := Info{Name: l.name, MaxKB: 20480, Overflow: "OverwriteAsNeeded", Entries: len(l.entries)}
		switch {
		case l.custom:
			info.MaxKB, info.RetainDays, info.Overflow = DefaultMaxKB, 7, "OverwriteOlder"
		case l.name == "Windows PowerShell":
			info.MaxKB = 15360
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}

// Count is the number of entries a log holds.
func (s *Store) Count(logName string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.find(logName); l != nil {
		return len(l.entries)
	}
	return 0
}

// SourceLog is the log a source is registered in ("" when it is not).
func (s *Store) SourceLog(src string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.source(src); r != nil {
		return r.log
	}
	return ""
}

// SourceName is a registered source's name as registered.
func (s *Store) SourceName(src string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.source(src); r != nil {
		return r.name
	}
	return src
}

// EventCreateSource reports whether eventcreate registered the source.
func (s *Store) EventCreateSource(src string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.source(src)
	return r != nil && r.eventcreate
}

// CreateSource registers a source in a log, making the log when there
// is none (New-EventLog, EventLog.CreateEventSource). A source name is
// unique across logs: ErrSourceExists when it is taken.
func (s *Store) CreateSource(src, logName string) error {
	return s.createSource(src, logName, false)
}

// CreateEventCreateSource is CreateSource for eventcreate.exe, which
// writes only with the sources it registered itself.
func (s *Store) CreateEventCreateSource(src, logName string) error {
	return s.createSource(src, logName, true)
}

func (s *Store) createSource(src, logName string, ec bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.source(src) != nil {
		return ErrSourceExists
	}
	sources := s.ownSources()
	l := s.find(logName)
	if l == nil {
		// A source's name is also taken as a log's: Windows refuses a
		// log named as an existing source.
		l = &log{name: logName, next: 1, custom: true}
		s.logs = append(s.logs, l)
		sources[strings.ToLower(logName)] = &source{name: logName, log: logName}
	}
	sources[strings.ToLower(src)] = &source{name: src, log: l.name, eventcreate: ec}
	return nil
}

// DeleteSource unregisters a source (Remove-EventLog -Source).
func (s *Store) DeleteSource(src string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.source(src) == nil {
		return ErrNoSource
	}
	delete(s.ownSources(), strings.ToLower(src))
	return nil
}

// DeleteLog removes a log with its entries and sources (Remove-EventLog
// -LogName).
func (s *Store) DeleteLog(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, l := range s.logs {
		if strings.EqualFold(l.name, name) {
			s.logs = append(s.logs[:k:k], s.logs[k+1:]...)
			sources := s.ownSources()
			for key, r := range sources {
				if r.log == l.name {
					delete(sources, key)
				}
			}
			return nil
		}
	}
	return ErrNoLog
}

// Clear empties a log (Clear-EventLog, wevtutil cl); its record numbers
// go on from where they were, as Windows' do.
func (s *Store) Clear(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.find(name)
	if l == nil {
		return ErrNoLog
	}
	l.entries = nil
	return nil
}

// Write appends an entry to the log its source is registered in
// (ErrNoSource when it is not registered) and tells the subscribers. The
// entry's Log, Index and Time are set here.
func (s *Store) Write(e Entry) (Entry, error) {
	s.mu.Lock()
	r := s.source(e.Source)
	if r == nil {
		s.mu.Unlock()
		return e, ErrNoSource
	}
	l := s.find(r.log)
	if l == nil {
		s.mu.Unlock()
		return e, ErrNoLog
	}
	e.Log, e.Source, e.Index, e.Time = l.name, r.name, l.next, s.now()
	if e.Type == 0 {
		e.Type = Information
	}
	l.next++
	l.entries = append(l.entries, e)
	subs := make([]*Subscription, 0, len(s.subs))
	for sub := range s.subs {
		if sub.wants(l.name) {
			subs = append(subs, sub)
		}
	}
	s.mu.Unlock()
	for _, sub := range subs {
		sub.deliver(e)
	}
	return e, nil
}

// Entries are a log's entries, oldest first (nil, false when there is
// no such log).
func (s *Store) Entries(logName string) ([]Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.find(logName)
	if l == nil {
		return nil, false
	}
	return append([]Entry(nil), l.entries...), true
}

// Subscription follows new entries of some logs.
type Subscription struct {
	s    *Store
	logs []string // lower-case; nil: all
	mu   sync.Mutex
	fn   func(Entry)
	last map[string]int // the last index delivered per log
}

func (sub *Subscription) wants(log string) bool {
	if sub.logs == nil {
		return true
	}
	for _, l := range sub.logs {
		if l == strings.ToLower(log) {
			return true
		}
	}
	return false
}

// deliver calls fn once per entry, in each log's order, even when two
// writers race.
func (sub *Subscription) deliver(e Entry) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.fn == nil || e.Index <= sub.last[e.Log] {
		return
	}
	sub.last[e.Log] = e.Index
	sub.fn(e)
}

// Subscribe calls fn for every entry written from now on to one of the
// logs (all logs when none is named), on the writer's goroutine; with
// oldest, it first calls it for the entries the logs hold
// (EvtSubscribeStartAtOldestRecord). fn must not write to the store.
// Names of logs that do not exist are kept: a log made later is
// followed.
func (s *Store) Subscribe(logs []string, oldest bool, fn func(Entry)) *Subscription {
	sub := &Subscription{s: s, fn: fn, last: map[string]int{}}
	for _, l := range logs {
		sub.logs = append(sub.logs, strings.ToLower(l))
	}
	sub.mu.Lock()
	defer sub.mu.Unlock()
	s.mu.Lock()
	var backlog []Entry
	for _, l := range s.logs {
		if !sub.wants(l.name) {
			continue
		}
		if oldest {
			backlog = append(backlog, l.entries...)
		}
		sub.last[l.name] = l.next - 1
	}
	s.subs[sub] = struct{}{}
	s.mu.Unlock()
	sort.SliceStable(backlog, func(i, j int) bool { return backlog[i].Time.Before(backlog[j].Time) })
	for _, e := range backlog {
		fn(e)
	}
	return sub
}

// Close ends the subscription: fn is not called after Close returns.
func (sub *Subscription) Close() {
	sub.s.mu.Lock()
	delete(sub.s.subs, sub)
	sub.s.mu.Unlock()
	sub.mu.Lock()
	sub.fn = nil
	sub.mu.Unlock()
}
