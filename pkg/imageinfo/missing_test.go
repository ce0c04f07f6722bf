package imageinfo

import (
	"errors"
	"testing"
)

// rule: IMG-3: the base OS repositories publish only release tags (no
// latest); unknown hosts under .invalid and upstream's invalid test
// registry do not resolve; Docker Hub's library namespace holds only the
// official images. Every other image is assumed to exist.
func TestLookupMissing(t *testing.T) {
	cases := []struct {
		ref  string
		want error
	}{
		{"mcr.microsoft.com/windows/servercore", ErrTagNotFound},
		{"mcr.microsoft.com/windows/nanoserver:latest", ErrTagNotFound},
		{"mcr.microsoft.com/windows/server:nosuchtag", ErrTagNotFound},
		{"invalid.registry.k8s.io/invalid/alpine:3.1", ErrNoSuchHost},
		{"registry.invalid:5000/team/app", ErrNoSuchHost},
		{"mcr.microsoft.com/windows/servercore:ltsc2019", nil},
		{"mcr.microsoft.com/windows/servercore:10.0.17763.5329-amd64", nil},
		{"mcr.microsoft.com/windows/nanoserver:1809-KB5034127", nil},
		{"mcr.microsoft.com/windows/servercore@sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", nil},
		{"mcr.microsoft.com/windows/servercore/iis", nil},
		{"nginx:does-not-matter", nil},
		{"webserver:404", ErrNoRepository},
		{"docker.io/library/redis:7", nil},
		{"docker.io/someone/webserver:404", nil},
		{"example.com/unknown/app:1", nil},
	}
	for _, tc := range cases {
		got := Lookup(tc.ref).Missing
		if tc.want == nil && got != nil || tc.want != nil && !errors.Is(got, tc.want) {
			t.Errorf("Lookup(%s).Missing = %v, want %v", tc.ref, got, tc.want)
		}
	}
}

// rule: IMG-3: .NET's multi-platform version tags offered Nano Server
// entries up to 7.0 and are Linux-only since 8.0; tags naming an OS are
// that OS.
func TestDotnetSharedTags(t *testing.T) {
	cases := []struct {
		ref     string
		windows bool
	}{
		{"mcr.microsoft.com/dotnet/aspnet:6.0", true},
		{"mcr.microsoft.com/dotnet/runtime:7.0.20", true},
		{"mcr.microsoft.com/dotnet/aspnet:8.0", false},
		{"mcr.microsoft.com/dotnet/sdk:9.0.100", false},
		{"mcr.microsoft.com/dotnet/aspnet:6.0-alpine", false},
		{"mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022", true},
	}
	for _, tc := range cases {
		img := Lookup(tc.ref)
		if img.HasOS("windows") != tc.windows || !img.Known {
			t.Errorf("Lookup(%s): windows=%v known=%v (%v), want windows=%v known", tc.ref, img.HasOS("windows"), img.Known, img.Platforms, tc.windows)
		}
	}
}
