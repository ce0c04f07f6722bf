package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

// The process environment (about_Environment_Variables): names without
// case, the first spelling kept; an empty value removes the variable;
// $env:, the env: drive and [Environment] see the same variables; a
// program the script starts inherits them.
func TestEnvironment(t *testing.T) {
	runAll(t, []tc{
		{script: "$env:FOO = 'bar'; $env:foo; $env:Foo = 'baz'; (Get-ChildItem env: | ? Name -eq 'FOO').Value", out: lines("bar", "baz")},
		{script: "$env:FOO = 'x'; $env:FOO = ''; Test-Path env:FOO; $env:FOO -eq $null", out: lines("False", "True")},
		{script: "$env:Path += ';C:\\tools'; $env:PATH.Split(';')[-1]; ($env:PATH -split ';').Count", out: lines(`C:\tools`, "3")},
		{script: "[Environment]::GetEnvironmentVariable('NOPE') -eq $null; [Environment]::GetEnvironmentVariable('COMPUTERNAME', 'Process')", out: lines("True", "WIN-POD")},
		{script: "[Environment]::SetEnvironmentVariable('A', '1', 'Process'); $env:A; Remove-Item env:A; [Environment]::GetEnvironmentVariable('A') -eq $null", out: lines("1", "True")},
		{script: "\"user=$env:USERNAME\"; \"${env:COMPUTERNAME}x\"", out: lines("user=ContainerUser", "WIN-PODx")},
	})
}

func TestChildEnvironment(t *testing.T) {
	sys := pwshtest.Sys()
	sys.Programs["printenv"] = func(_ context.Context, p *program.Proc) int {
		for _, kv := range p.Env {
			if strings.HasPrefix(kv, "APP_") {
				p.Stdout.Write([]byte(kv + "\r\n"))
			}
		}
		return 0
	}
	r := pwshtest.Run(sys, "$env:APP_ONE = '1'; $env:APP_TWO = 'two words'; printenv; $env:APP_ONE = $null; printenv")
	if r.Out != lines("APP_ONE=1", "APP_TWO=two words", "APP_TWO=two words") || r.Err != "" {
		t.Errorf("a child's environment: %q %q", r.Out, r.Err)
	}
}
