package registry

import (
	"encoding/base64"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
)

func TestCredentialMatching(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	payload := []byte(`{"auths":{
		"https://index.docker.io/v1/": {"auth":"` + b64("hub:1") + `"},
		"*.example.com": {"username":"glob","password":"2"},
		"registry.example.com/team": {"username":"team","password":"3"},
		"registry.example.com:5000": {"username":"port","password":"4"},
		"broken.example.com": {"auth":"not base64!"}
	}}`)
	cases := []struct {
		repo string
		want []string // usernames, in order, before anonymous
	}{
		{"docker.io/library/nginx", []string{"hub"}},
		{"index.docker.io/library/nginx", []string{"hub"}},
		{"registry-1.docker.io/me/app", []string{"hub"}},
		{"registry.example.com/team/app", []string{"team", "glob"}},
		{"registry.example.com/other/app", []string{"glob"}},
		{"registry.example.com/teamx/app", []string{"glob"}},
		{"registry.example.com:5000/app", []string{"port"}},
		{"a.b.example.com/app", nil},
		{"broken.example.com/app", []string{"glob"}}, // the broken entry is skipped
		{"quay.io/app", nil},
	}
	for _, c := range cases {
		auths := authenticators([][]byte{payload}, c.repo)
		var got []string
		for _, a := range auths[:len(auths)-1] {
			cfg, err := a.Authorization()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, cfg.Username)
		}
		if auths[len(auths)-1] != authn.Anonymous {
			t.Errorf("%s: last authenticator is not anonymous", c.repo)
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: credentials %v, want %v", c.repo, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: credentials %v, want %v", c.repo, got, c.want)
			}
		}
	}
	if a := authenticators([][]byte{[]byte("not json")}, "docker.io/x/y"); len(a) != 1 {
		t.Errorf("a payload that is not JSON gave %d authenticators, want anonymous only", len(a))
	}
}
