package pwsh

import (
	"context"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

// Scripts as container images run them (a setup step, a config
// reader, a log sweep): many constructs together, each line of output
// what Windows PowerShell 5.1 prints for it.
func TestRealisticScripts(t *testing.T) {
	for _, c := range []struct {
		name, script, out string
	}{
		{"setup with retries", `$ErrorActionPreference = 'Stop'
$logDir = 'C:\logs'
if (-not (Test-Path $logDir)) { New-Item -ItemType Directory -Path $logDir | Out-Null }
$config = @{ Name = 'svc'; Port = 8080; Retries = 3 }
foreach ($k in $config.Keys | Sort-Object) { Add-Content -Path "$logDir\config.log" -Value ("{0}={1}" -f $k, $config[$k]) }
$attempt = 0
do {
    $attempt++
    Write-Output "attempt $attempt of $($config.Retries)"
} while ($attempt -lt $config.Retries)
Get-Content "$logDir\config.log"
[pscustomobject]@{ Service = $config.Name; Attempts = $attempt; Log = (Get-Item "$logDir\config.log").Length }`,
			"attempt 1 of 3\r\nattempt 2 of 3\r\nattempt 3 of 3\r\nName=svc\r\nPort=8080\r\nRetries=3\r\n" +
				"\r\nService Attempts Log\r\n------- -------- ---\r\nsvc            3  32\r\n\r\n\r\n"},
		{"ini reader", `function Get-Settings($path) {
    $result = @{}
    foreach ($line in Get-Content $path) {
        if ($line -match '^\s*#' -or $line.Trim() -eq '') { continue }
        $key, $value = $line -split '=', 2
        $result[$key.Trim()] = $value.Trim()
    }
    return $result
}
Set-Content C:\app.ini "# comment", "name = web", "", "threads=4", "url = http://x/?a=b"
$s = Get-Settings C:\app.ini
$s.Count; $s.name; [int]$s.threads * 2; $s.url`,
			"3\r\nweb\r\n8\r\nhttp://x/?a=b\r\n"},
		{"log sweep", `$files = 'a.log', 'b.txt', 'c.log'
New-Item C:\in -ItemType Directory -Force | Out-Null
foreach ($f in $files) { Set-Content "C:\in\$f" -Value $f.ToUpper() }
$logs = Get-ChildItem C:\in -Filter *.log
"found $($logs.Count) logs: $(($logs | % Name) -join ', ')"
$total = 0
$logs | ForEach-Object { $total += (Get-Content $_.FullName -Raw).Length }
"bytes: $total"
try {
    Get-Content C:\in\missing.log -ErrorAction Stop
} catch [System.IO.IOException] {
    'not this one'
} catch [System.Management.Automation.ItemNotFoundException] {
    "missing: $($_.CategoryInfo.TargetName)"
} finally {
    'done'
}`,
			"found 2 logs: a.log, c.log\r\nbytes: 14\r\nmissing: C:\\in\\missing.log\r\ndone\r\n"},
		{"environment report", `$env:APP_MODE = 'test'
$vars = Get-ChildItem env: | Where-Object { $_.Name -like 'APP_*' -or $_.Name -eq 'USERNAME' } | Sort-Object Name
foreach ($v in $vars) { '{0,-10} {1}' -f $v.Name, $v.Value }
"$([Environment]::MachineName) runs PowerShell $($PSVersionTable.PSVersion.Major).$($PSVersionTable.PSVersion.Minor)"`,
			"APP_MODE   test\r\nUSERNAME   ContainerUser\r\nWIN-POD runs PowerShell 5.1\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := ps(t, newSys(), "-NoProfile", "-Command", c.script)
			if out != c.out || errOut != "" || code != 0 {
				t.Errorf("got (%d) %q\n%s\nwant\n%s", code, errOut, out, c.out)
			}
		})
	}
}

// A catch that names other exception types lets the error through;
// finally still runs.
func TestTypedCatchMisses(t *testing.T) {
	out, errOut, code := ps(t, newSys(), "-Command", "try { throw 'x' } catch [System.IO.IOException] { 'io' } finally { 'finally' }; 'not reached'")
	if out != "finally\r\n" || !strings.HasPrefix(errOut, "x\r\n") || code != 1 {
		t.Errorf("got (%d) %q %q", code, out, errOut)
	}
}

// An entry-point script as Windows images ship them (a site's startup
// script run with -File and its arguments): a param block with types,
// defaults and validation, a pipeline function with begin/process/end,
// a switch on the environment, $PSScriptRoot and a trap that sets the
// exit code. Both editions print the same.
func TestEntryPointScript(t *testing.T) {
	const script = `[CmdletBinding()]
param(
    [Parameter(Mandatory = $true)]
    [ValidateSet('Development', 'Staging', 'Production')]
    [string]$Environment,

    [ValidateRange(1, 65535)]
    [int]$Port = 80,

    [string[]]$Features = @('logging'),

    [switch]$SkipWarmup
)

trap {
    Write-Output "startup failed: $($_.Exception.Message)"
    exit 2
}

function Write-Config {
    param([Parameter(ValueFromPipeline = $true)][string]$Line)
    begin   { $count = 0 }
    process { Add-Content -Path "$PSScriptRoot\app.config" -Value $Line; $count++ }
    end     { "wrote $count lines" }
}

$level = switch ($Environment) {
    'Development' { 'Debug' }
    'Staging'     { 'Information' }
    default       { 'Warning' }
}
"port=$Port", "level=$level", "features=$($Features -join ';')" | Write-Config
if (-not $SkipWarmup) { 'warming up' }
Get-Content "$PSScriptRoot\app.config"
if ($Port -eq 8443) { throw 'port 8443 is reserved' }
"ready on $Port"
`
	for _, exe := range []string{"powershell.exe", "pwsh"} {
		for _, c := range []struct {
			args []string
			out  string
			code int
		}{
			{[]string{"-Environment", "staging", "-Port", "8080", "-SkipWarmup"},
				"wrote 3 lines\r\nport=8080\r\nlevel=Information\r\nfeatures=logging\r\nready on 8080\r\n", 0},
			{[]string{"Production", "-Features", "a,b"},
				"wrote 3 lines\r\nwarming up\r\nport=80\r\nlevel=Warning\r\nfeatures=a,b\r\nready on 80\r\n", 0},
			{[]string{"-Env", "Development", "8443"},
				"wrote 3 lines\r\nwarming up\r\nport=8443\r\nlevel=Debug\r\nfeatures=logging\r\nstartup failed: port 8443 is reserved\r\n", 2},
		} {
			sys := newSys()
			sys.FS.(*wintest.FS).Put(`C:\site\start.ps1`, script)
			out, errOut, code := wintest.Run(context.Background(), sys, Main, "", append([]string{exe, "-NoProfile", "-File", `C:\site\start.ps1`}, c.args...)...)
			if out != c.out || errOut != "" || code != c.code {
				t.Errorf("%s %v: got (%d) %q\n%s\nwant (%d)\n%s", exe, c.args, code, errOut, out, c.code, c.out)
			}
		}
		sys := newSys()
		sys.FS.(*wintest.FS).Put(`C:\site\start.ps1`, script)
		_, errOut, code := wintest.Run(context.Background(), sys, Main, "", exe, "-File", `C:\site\start.ps1`, "-Environment", "Test")
		if code != 1 || !strings.Contains(errOut, `The argument "Test" does not belong to the set "Development,Staging,Production"`) {
			t.Errorf("%s: a value outside the set: (%d) %q", exe, code, errOut)
		}
	}
}

// pwsh's pipeline chains follow a program's exit code
// (about_Pipeline_Chain_Operators).
func TestPipelineChainsWithPrograms(t *testing.T) {
	out, errOut, code := wintest.Run(context.Background(), newSys(), Main, "", "pwsh", "-Command", "fail && 'not run' || \"failed with $LASTEXITCODE\"; hostname && 'after hostname'")
	if out != "failed with 3\r\nWIN-POD\r\nafter hostname\r\n" || errOut != "" || code != 0 {
		t.Errorf("got (%d) %q %q", code, out, errOut)
	}
}
