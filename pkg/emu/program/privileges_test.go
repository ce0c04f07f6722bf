package program

import "testing"

// CAP_NET_ADMIN is what ip link add needs: privileged containers hold it,
// others only when it is added; drops and ALL apply as containerd applies
// them, and a non-root process holds no capability at all.
func TestHasCap(t *testing.T) {
	cases := []struct {
		name string
		uid  int64
		pr   Privileges
		cap  string
		want bool
	}{
		{"default set lacks NET_ADMIN", 0, Privileges{}, "NET_ADMIN", false},
		{"default set has CHOWN", 0, Privileges{}, "CHOWN", true},
		{"privileged", 0, Privileges{Privileged: true}, "NET_ADMIN", true},
		{"added", 0, Privileges{Add: []string{"NET_ADMIN"}}, "CAP_NET_ADMIN", true},
		{"added with prefix, lower case", 0, Privileges{Add: []string{"cap_net_admin"}}, "NET_ADMIN", true},
		{"add ALL", 0, Privileges{Add: []string{"ALL"}}, "NET_ADMIN", true},
		{"add ALL drop one", 0, Privileges{Add: []string{"ALL"}, Drop: []string{"NET_ADMIN"}}, "NET_ADMIN", false},
		{"drop ALL add one", 0, Privileges{Add: []string{"NET_ADMIN"}, Drop: []string{"ALL"}}, "NET_ADMIN", true},
		{"drop ALL", 0, Privileges{Drop: []string{"ALL"}}, "CHOWN", false},
		{"non-root privileged", 1000, Privileges{Privileged: true}, "NET_ADMIN", false},
	}
	for _, c := range cases {
		s := &Sys{User: User{UID: c.uid}, Privileges: c.pr}
		if got := s.HasCap(c.cap); got != c.want {
			t.Errorf("%s: HasCap(%s) = %v, want %v", c.name, c.cap, got, c.want)
		}
	}
	if (&Sys{Windows: true, Privileges: Privileges{Privileged: true}}).HasCap("NET_ADMIN") {
		t.Error("a Windows container holds a Linux capability")
	}
}

// A setuid-root program runs as root unless no_new_privs is set.
func TestSetuidUID(t *testing.T) {
	s := &Sys{User: User{UID: 1000}}
	if got := s.SetuidUID(0); got != 0 {
		t.Errorf("without no_new_privs: %d, want 0", got)
	}
	s.Privileges.NoNewPrivs = true
	if got := s.SetuidUID(0); got != 1000 {
		t.Errorf("with no_new_privs: %d, want 1000", got)
	}
}

// Added links keep their ifindex; names are unique, lo and eth0 included.
func TestNetnsLinks(t *testing.T) {
	ns := &Netns{}
	if !ns.AddLink("a") || !ns.AddLink("b") || ns.AddLink("a") || ns.AddLink("eth0") {
		t.Fatal("AddLink accepted a duplicate or refused a new name")
	}
	if !ns.DeleteLink("a") || ns.DeleteLink("a") {
		t.Fatal("DeleteLink")
	}
	ns.AddLink("c")
	got := ns.Added()
	if len(got) != 2 || got[0] != (Link{"b", 4}) || got[1] != (Link{"c", 5}) {
		t.Errorf("links %v", got)
	}
}
