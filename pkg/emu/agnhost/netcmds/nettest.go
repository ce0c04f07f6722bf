package netcmds

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/spf13/pflag"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
)

// nettest serves the peer-counting state of agnhost's nettest: /write
// counts a POSTed {"Source": ...}, /read returns the state as indented
// JSON, /status says pass, running or fail. Looking peers up through the
// API (its other half) is not emulated: it reports that it contacts none.
type nettestState struct {
	mu sync.Mutex

	Hostname             string
	Sent                 map[string]int
	Received             map[string]int
	Errors               []string
	Log                  []string
	StillContactingPeers bool
}

// NettestSetup declares the flags of its subcommand and returns its body.
func NettestSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	port := fs.Int("port", 8080, "Port number to serve at.")
	peers := fs.Int("peers", 8, "Must find at least this many peers for the test to pass.")
	service := fs.String("service", "nettest", "Service to find other network test pods in.")
	fs.String("namespace", "default", "Namespace of this pod. TODO: kubernetes should make this discoverable.")
	fs.Int("delay-shutdown", 0, "Number of seconds to delay shutdown when receiving SIGTERM.")
	return func(ctx context.Context, a *kit.App, _ []string) int {
		if *service == "" {
			a.Log.Printf("Must provide -service flag.")
			return 1
		}
		s := &nettestState{Hostname: a.P.Sys.Hostname}
		mux := http.NewServeMux()
		mux.HandleFunc("/read", s.read)
		mux.HandleFunc("/write", s.write)
		mux.HandleFunc("/status", func(w http.ResponseWriter, _ *http.Request) { s.status(w, *peers) })
		return serveOn(a, ctx, *port, mux, nil)
	}
}

func (s *nettestState) read(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		s.Errors = append(s.Errors, err.Error())
	}
	w.Write(b)
}

func (s *nettestState) write(w http.ResponseWriter, r *http.Request) {
	defer r.Body.Close()
	var post struct{ Source, Dest string }
	err := json.NewDecoder(r.Body).Decode(&post)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.Errors = append(s.Errors, err.Error())
	}
	if post.Source == "" {
		s.Errors = append(s.Errors, fmt.Sprintf("%v: Got request with no source", s.Hostname))
	} else {
		if s.Received == nil {
			s.Received = map[string]int{}
		}
		s.Received[post.Source]++
	}
	json.NewEncoder(w).Encode(struct{ Hostname string }{s.Hostname})
}

func (s *nettestState) status(w http.ResponseWriter, peers int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(s.Sent) >= peers && len(s.Received) >= peers:
		fmt.Fprint(w, "pass")
	case s.StillContactingPeers:
		fmt.Fprint(w, "running")
	default:
		fmt.Fprint(w, "fail")
	}
}
