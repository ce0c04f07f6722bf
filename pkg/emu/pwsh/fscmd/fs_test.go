package fscmd_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

// container is a Windows container with C:\data\a.txt (three lines)
// and C:\data\sub\b.log.
func container() *program.Sys {
	sys := pwshtest.Sys()
	pwshtest.Put(sys, `C:\data\a.txt`, "one\r\ntwo\r\nthree\r\n")
	pwshtest.Put(sys, `C:\data\sub\b.log`, "xyz")
	return sys
}

func lines(l ...string) string { return strings.Join(l, "\r\n") + "\r\n" }

type tc struct {
	script, out, err, errHas string
	code                     int
}

func runAll(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			r := pwshtest.Run(container(), c.script)
			errOK := r.Err == c.err
			if c.errHas != "" {
				errOK = strings.Contains(r.Err, c.errHas)
			}
			if r.Out != c.out || !errOK || r.Code != c.code {
				t.Errorf("got out %q\nerr %q code %d\nwant out %q\nerr %q%q code %d", r.Out, r.Err, r.Code, c.out, c.err, c.errHas, c.code)
			}
		})
	}
}

// errRecord is a cmdlet's error as Windows PowerShell 5.1 prints it for
// a script of one line.
func errRecord(cmd, msg, script, category, target, reason, fqid string) string {
	return cmd + " : " + msg + "\r\nAt line:1 char:1\r\n+ " + script + "\r\n+ " + strings.Repeat("~", len(script)) + "\r\n" +
		"    + CategoryInfo          : " + category + ": (" + target + ":String) [" + cmd + "], " + reason + "\r\n" +
		"    + FullyQualifiedErrorId : " + fqid + ",Microsoft.PowerShell.Commands." + strings.ReplaceAll(cmd, "-", "") + "Command\r\n \r\n"
}

// Get-Content (Microsoft.PowerShell.Management): one string per line;
// -Raw the whole text; -TotalCount/-First and -Tail take lines from
// either end; a directory or a missing file is an error with
// PowerShell's id.
func TestGetContent(t *testing.T) {
	runAll(t, []tc{
		{script: `Get-Content C:\data\a.txt`, out: lines("one", "two", "three")},
		{script: `(Get-Content C:\data\a.txt).Count; (Get-Content C:\data\a.txt)[1]`, out: lines("3", "two")},
		{script: `Get-Content C:\data\a.txt -TotalCount 2; gc C:\data\a.txt -First 1`, out: lines("one", "two", "one")},
		{script: `Get-Content C:\data\a.txt -Tail 1`, out: lines("three")},
		{script: `(Get-Content C:\data\a.txt -Raw).Length; (Get-Content C:\data\a.txt -Raw).GetType().Name`, out: lines("17", "String")},
		{script: `Get-Content -Path C:\data\sub\b.log; type C:\data\sub\b.log; cat C:\data\sub\b.log`, out: lines("xyz", "xyz", "xyz")},
		{script: `Get-Content C:\DATA\A.TXT -TotalCount 1`, out: lines("one")},
		{script: `cd C:\data; Get-Content .\a.txt -TotalCount 1; Get-Content sub\b.log`, out: lines("one", "xyz")},
		{script: `Get-Content C:\nope.txt`, code: 1, err: errRecord("Get-Content", "Cannot find path 'C:\\nope.txt' because it does not exist.",
			`Get-Content C:\nope.txt`, "ObjectNotFound", `C:\nope.txt`, "ItemNotFoundException", "PathNotFound")},
		{script: `Get-Content C:\data`, code: 1, err: errRecord("Get-Content", "Unable to get content because it is a directory: 'C:\\data'. Please use 'Get-ChildItem' instead.",
			`Get-Content C:\data`, "InvalidOperation", `C:\data`, "InvalidOperationException", "GetContentReaderDirectoryError")},
	})
}

// Set-Content, Add-Content, Out-File and redirection write files; each
// line ends with CRLF.
func TestWriteContent(t *testing.T) {
	runAll(t, []tc{
		{script: `Set-Content C:\x.txt 'a','b'; Add-Content C:\x.txt 'c'; Get-Content C:\x.txt -Raw`, out: "a\r\nb\r\nc\r\n\r\n"},
		{script: `Set-Content -Path C:\x.txt -Value 1; Set-Content -Path C:\x.txt -Value 2; Get-Content C:\x.txt`, out: lines("2")},
		{script: `'d' | Out-File C:\y.txt; 'e' >> C:\y.txt; Get-Content C:\y.txt`, out: lines("d", "e")},
		{script: `1..3 | Set-Content C:\n.txt; (Get-Content C:\n.txt).Count`, out: lines("3")},
		{script: `Set-Content C:\new\dir\f.txt x`, code: 1, err: errRecord("Set-Content", "Could not find a part of the path 'C:\\new\\dir\\f.txt'.",
			`Set-Content C:\new\dir\f.txt x`, "ObjectNotFound", `C:\new\dir\f.txt`, "DirectoryNotFoundException", "GetContentWriterDirectoryNotFoundError")},
		{script: `'x' > C:\data\out.txt; Test-Path C:\data\out.txt`, out: lines("True")},
	})
}

// New-Item, Remove-Item, Copy-Item, Move-Item, Rename-Item.
func TestItems(t *testing.T) {
	runAll(t, []tc{
		{script: `New-Item -ItemType Directory -Path C:\newdir | Out-Null; Test-Path C:\newdir -PathType Container; Test-Path C:\newdir -PathType Leaf`, out: lines("True", "False")},
		{script: `New-Item C:\newdir\f.txt -ItemType File -Value 'hi' -Force | Out-Null; Get-Content C:\newdir\f.txt`, out: lines("hi")},
		{script: `mkdir C:\m | Out-Null; md C:\m\n | Out-Null; Test-Path C:\m\n`, out: lines("True")},
		{script: `New-Item -ItemType Directory -Path C:\data`, code: 1, err: errRecord("New-Item", "An item with the specified name C:\\data already exists.",
			`New-Item -ItemType Directory -Path C:\data`, "ResourceExists", `C:\data`, "IOException", "DirectoryExist")},
		{script: `New-Item -ItemType File -Path C:\data\a.txt`, code: 1, errHas: "The file 'C:\\data\\a.txt' already exists."},
		{script: `Copy-Item C:\data\a.txt C:\data\c.txt; Move-Item C:\data\c.txt C:\data\d.txt; Rename-Item C:\data\d.txt e.txt; Get-ChildItem C:\data -Name`, out: lines("sub", "a.txt", "e.txt")},
		{script: `Remove-Item C:\data\a.txt; Test-Path C:\data\a.txt; Remove-Item C:\data -Recurse; Test-Path C:\data`, out: lines("False", "False")},
		{script: `Remove-Item C:\nope.txt`, code: 1, err: errRecord("Remove-Item", "Cannot find path 'C:\\nope.txt' because it does not exist.",
			`Remove-Item C:\nope.txt`, "ObjectNotFound", `C:\nope.txt`, "ItemNotFoundException", "PathNotFound")},
		{script: `Remove-Item C:\data`, code: 1, errHas: "RemoveItemRecursiveWithoutRecurse,Microsoft.PowerShell.Commands.RemoveItemCommand"},
		{script: `Remove-Item C:\nope.txt -ErrorAction SilentlyContinue; 'quiet'`, out: lines("quiet")},
	})
}

// Get-Item and Get-ChildItem give FileInfo/DirectoryInfo objects with
// .NET's properties; -File, -Directory, -Name, -Recurse, -Filter and
// wildcards select.
func TestFileObjects(t *testing.T) {
	runAll(t, []tc{
		{script: `$f = Get-Item C:\data\a.txt; $f.Name; $f.Length; $f.Extension; $f.BaseName; $f.FullName; $f.DirectoryName; $f.PSIsContainer`,
			out: lines("a.txt", "17", ".txt", "a", `C:\data\a.txt`, `C:\data`, "False")},
		{script: `(Get-Item C:\data).PSIsContainer; (Get-Item C:\data).Name; (Get-Item C:\data).GetType().Name; (Get-Item C:\data\a.txt).GetType().FullName`,
			out: lines("True", "data", "DirectoryInfo", "System.IO.FileInfo")},
		{script: `Get-ChildItem C:\data -File | % Name; Get-ChildItem C:\data -Directory | % Name`, out: lines("a.txt", "sub")},
		{script: `Get-ChildItem C:\data\*.txt | % Name; (Get-ChildItem C:\data -Recurse).Count`, out: lines("a.txt", "3")},
		{script: `Get-ChildItem C:\data -Recurse -Filter *.log | % FullName`, out: lines(`C:\data\sub\b.log`)},
		{script: `ls C:\data -Name; dir C:\data\sub -Name`, out: lines("sub", "a.txt", "b.log")},
		{script: `Get-ChildItem C:\data | Where-Object { -not $_.PSIsContainer } | Measure-Object | % Count`, out: lines("1")},
		{script: `Get-ChildItem C:\nope`, code: 1, err: errRecord("Get-ChildItem", "Cannot find path 'C:\\nope' because it does not exist.",
			`Get-ChildItem C:\nope`, "ObjectNotFound", `C:\nope`, "ItemNotFoundException", "PathNotFound")},
		// A file's listing is headed by its directory, as 5.1's
		// FileSystem view does.
		{script: `Get-ChildItem C:\data\a.txt`, out: "\r\n    Directory: C:\\data\r\n\r\n\r\n" +
			"Mode                LastWriteTime         Length Name\r\n" +
			"----                -------------         ------ ----\r\n" +
			"-a----         3/5/2024   2:07 PM             17 a.txt\r\n\r\n\r\n"},
	})
}

// Test-Path, Join-Path, Split-Path and the location.
func TestPaths(t *testing.T) {
	runAll(t, []tc{
		{script: `Test-Path C:\data\a.txt; Test-Path C:\data\nope; Test-Path C:\data\*.txt; Test-Path C:\data\a.txt -PathType Leaf`, out: lines("True", "False", "True", "True")},
		{script: `Join-Path C:\a b; Join-Path C:\a\ \b; Join-Path -Path C:\a -ChildPath b\c`, out: lines(`C:\a\b`, `C:\a\b`, `C:\a\b\c`)},
		{script: `Split-Path C:\a\b\c.txt; Split-Path C:\a\b\c.txt -Leaf; Split-Path C:\a\b\c.txt -Parent`, out: lines(`C:\a\b`, "c.txt", `C:\a\b`)},
		{script: `Set-Location C:\data; (Get-Location).Path; cd sub; $PWD.Path; cd ..; pwd | % Path`, out: lines(`C:\data`, `C:\data\sub`, `C:\data`)},
		// A real cmdlet the emulation lacks is said so, not "not recognized".
		{script: `Push-Location C:\data`, code: 1, err: "winkube: PowerShell construct not emulated: the cmdlet Push-Location\r\n"},
		{script: `Set-Location C:\nope`, code: 1, err: errRecord("Set-Location", "Cannot find path 'C:\\nope' because it does not exist.",
			`Set-Location C:\nope`, "ObjectNotFound", `C:\nope`, "ItemNotFoundException", "PathNotFound")},
	})
}

// -Include and -Exclude filter names by wildcards; -Depth bounds
// -Recurse; wildcards in a path select items for Get-Item and
// Remove-Item; Copy-Item -Recurse copies a tree; Move-Item into a
// directory keeps the name.
func TestSelection(t *testing.T) {
	runAll(t, []tc{
		{script: `Get-ChildItem C:\data -Recurse -Include *.log | % Name`, out: lines("b.log")},
		{script: `Get-ChildItem C:\data -Exclude *.txt | % Name`, out: lines("sub")},
		{script: `Get-ChildItem C:\data -Recurse -Include *.log, *.txt -Exclude b* | % Name`, out: lines("a.txt")},
		{script: `(Get-ChildItem C:\ -Recurse -Depth 0 | Measure-Object).Count; (Get-ChildItem C:\ -Recurse -Depth 1 | Measure-Object).Count`, out: lines("1", "3")},
		{script: `(Get-Item C:\data\*).Name`, out: lines("a.txt", "sub")},
		{script: `Copy-Item C:\data C:\copy -Recurse; Get-ChildItem C:\copy -Recurse -Name`, out: lines("sub", "a.txt", `sub\b.log`)},
		{script: `Remove-Item C:\data\*.txt; Get-ChildItem C:\data -Name`, out: lines("sub")},
		{script: `Move-Item C:\data\a.txt C:\data\sub; Get-ChildItem C:\data\sub -Name`, out: lines("a.txt", "b.log")},
		{script: `Test-Path 'C:\bad<name' -IsValid; Test-Path C:\not\there -IsValid`, out: lines("False", "True")},
		{script: `Copy-Item C:\nope C:\x`, code: 1, err: errRecord("Copy-Item", "Cannot find path 'C:\\nope' because it does not exist.",
			`Copy-Item C:\nope C:\x`, "ObjectNotFound", `C:\nope`, "ItemNotFoundException", "PathNotFound")},
	})
}

// TestMain pins the local zone to UTC: the listings print local times.
func TestMain(m *testing.M) {
	time.Local = time.UTC
	os.Exit(m.Run())
}

// Content edge cases: an empty file gives no lines (and -Raw gives
// nothing), -NoNewline joins writes, piped values are lines, a string
// with a line feed is two lines once written, several paths are read
// in turn, -Tail and -Skip take from the ends.
func TestContentEdges(t *testing.T) {
	runAll(t, []tc{
		{script: `New-Item C:\e.txt -ItemType File | Out-Null; (Get-Content C:\e.txt) -eq $null; (Get-Content C:\e.txt -Raw) -eq $null; @(Get-Content C:\e.txt).Count`, out: lines("True", "True", "0")},
		{script: `Add-Content C:\n.txt 'a' -NoNewline; Add-Content C:\n.txt 'b' -NoNewline; Get-Content C:\n.txt; 'x', 'y' | Add-Content C:\n2.txt; (Get-Content C:\n2.txt).Count`, out: lines("ab", "2")},
		{script: `Set-Content C:\u.txt 'héllo' -Encoding UTF8; Get-Content C:\u.txt -Encoding UTF8; (Get-Item C:\u.txt).Length`, out: lines("héllo", "11")},
		{script: "\"line1`nline2\" | Set-Content C:\\lf.txt; (Get-Content C:\\lf.txt).Count; Get-Content C:\\data\\a.txt | Select-Object -Skip 1", out: lines("2", "two", "three")},
		{script: `(Get-Content C:\data\a.txt -Tail 2) -join ','; Get-Content C:\data\a.txt, C:\data\sub\b.log`, out: lines("two,three", "one", "two", "three", "xyz")},
	})
}

// Copy-Item and Move-Item into a directory keep the name; Copy-Item
// replaces a file, Move-Item does not without -Force; Rename-Item of a
// missing item is PathNotFound.
func TestCopyMoveRename(t *testing.T) {
	runAll(t, []tc{
		{script: `New-Item C:\d2 -ItemType Directory | Out-Null; Copy-Item C:\data\a.txt C:\d2; Move-Item C:\data\sub\b.log C:\d2; Get-ChildItem C:\d2 -Name; Test-Path C:\data\sub\b.log`,
			out: lines("a.txt", "b.log", "False")},
		{script: `Copy-Item C:\data\a.txt C:\data\sub\b.log; Get-Content C:\data\sub\b.log -TotalCount 1`, out: lines("one")},
		{script: `Move-Item C:\data\a.txt C:\data\sub\b.log`, code: 1, errHas: "Move-Item : Cannot create a file when that file already exists."},
		{script: `Move-Item C:\data\a.txt C:\data\sub\b.log`, code: 1, errHas: "FullyQualifiedErrorId : MoveFileInfoItemIOError,Microsoft.PowerShell.Commands.MoveItemCommand"},
		{script: `Move-Item C:\data\a.txt C:\data\sub\b.log -Force; Get-Content C:\data\sub\b.log -TotalCount 1; Test-Path C:\data\a.txt`, out: lines("one", "False")},
		{script: `Rename-Item C:\nope.txt x.txt`, code: 1, err: errRecord("Rename-Item", "Cannot find path 'C:\\nope.txt' because it does not exist.",
			`Rename-Item C:\nope.txt x.txt`, "ObjectNotFound", `C:\nope.txt`, "ItemNotFoundException", "PathNotFound")},
		{script: `Remove-Item C:\data -Recurse -Force; Test-Path C:\data`, out: lines("False")},
	})
}

// Join-Path and Split-Path work on the text: Join-Path does not
// resolve .., Split-Path of a root's child is the root, a relative
// path's parent stays relative.
func TestPathText(t *testing.T) {
	runAll(t, []tc{
		{script: `Join-Path 'C:\a' '..\b'; Split-Path 'C:\a'; Split-Path 'C:\a\b' -Leaf; Split-Path 'dir\file.txt' -Parent`,
			out: lines(`C:\a\..\b`, `C:\`, "b", "dir")},
		{script: `Join-Path C:\data a.txt | Test-Path; (Join-Path $env:COMPUTERNAME x)`, out: lines("True", `WIN-POD\x`)},
	})
}
