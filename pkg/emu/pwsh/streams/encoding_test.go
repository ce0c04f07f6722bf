package streams_test

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

func lines(l ...string) string { return strings.Join(l, "\r\n") + "\r\n" }

// System.Text.Encoding: the bytes of UTF8, Unicode (UTF-16LE) and
// ASCII (which turns what it cannot encode into ?), their names and
// code pages, and base64 through [Convert].
func TestEncodings(t *testing.T) {
	for _, c := range []struct{ script, out string }{
		{"[Text.Encoding]::UTF8.GetBytes('hé') -join ','", lines("104,195,169")},
		{"[Text.Encoding]::Unicode.GetBytes('Aé') -join ','", lines("65,0,233,0")},
		{"[Text.Encoding]::ASCII.GetBytes('hé') -join ','", lines("104,63")},
		{"[Text.Encoding]::ASCII.GetString([byte[]](104, 105, 200))", lines("hi?")},
		{"[Text.Encoding]::UTF8.GetString([Text.Encoding]::UTF8.GetBytes('ünï'))", lines("ünï")},
		{"[Text.Encoding]::Unicode.GetString([byte[]](104, 0, 105, 0))", lines("hi")},
		{"[Text.Encoding]::UTF8.GetString([byte[]](97, 98, 99, 100), 1, 2)", lines("bc")},
		{"[Text.Encoding]::UTF8.WebName; [Text.Encoding]::ASCII.CodePage; [Text.Encoding]::Unicode.WebName; [Text.Encoding]::UTF8.EncodingName",
			lines("utf-8", "20127", "utf-16", "Unicode (UTF-8)")},
		{"[Text.Encoding]::GetEncoding('utf-8').WebName; [Text.Encoding]::GetEncoding('us-ascii').CodePage", lines("utf-8", "20127")},
		{"(New-Object System.Text.UTF8Encoding).GetByteCount('é')", lines("2")},
		{"[Convert]::ToBase64String([Text.Encoding]::UTF8.GetBytes('hi')); [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('aGk='))", lines("aGk=", "hi")},
		// -EncodedCommand's encoding: base64 of UTF-16LE.
		{"[Convert]::ToBase64String([Text.Encoding]::Unicode.GetBytes('dir'))", lines("ZABpAHIA")},
	} {
		r := pwshtest.Run(pwshtest.Sys(), c.script)
		if r.Out != c.out || r.Err != "" {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
}

// Encoding errors are .NET's, wrapped as a method call's.
func TestEncodingErrors(t *testing.T) {
	for _, c := range []struct{ script, errHas string }{
		{"[Text.Encoding]::UTF8.GetString([byte[]](97), 1, 5)", `Exception calling "GetString" with "3" argument(s): "Index and count must refer to a location within the buffer.`},
		{"[Text.Encoding]::UTF8.GetBytes()", `Exception calling "GetBytes" with "0" argument(s): "Value cannot be null.`},
		{"[Text.Encoding]::GetEncoding('shift_jis')", "not emulated: the encoding shift_jis"},
	} {
		r := pwshtest.Run(pwshtest.Sys(), c.script)
		if r.Code != 1 || !strings.Contains(r.Err, c.errHas) {
			t.Errorf("%s: %q (%d), want %q", c.script, r.Err, r.Code, c.errHas)
		}
	}
}

// The files the content cmdlets write, byte for byte
// (about_Character_Encoding): Windows PowerShell 5.1's Out-File and >
// write UTF-16LE with a BOM, its UTF8 has a BOM, Set-Content writes
// the ANSI code page; PowerShell 7 writes UTF-8 without a BOM unless
// told utf8BOM. Get-Content reads each back.
func TestFileEncodings(t *testing.T) {
	for _, c := range []struct {
		script, file, bytes string
		pwsh7               bool
	}{
		{script: `'x' | Out-File C:\f.txt`, file: `C:\f.txt`, bytes: "\xff\xfex\x00\r\x00\n\x00"},
		{script: `'x' > C:\f.txt`, file: `C:\f.txt`, bytes: "\xff\xfex\x00\r\x00\n\x00"},
		{script: `'x' | Out-File C:\f.txt -Encoding utf8`, file: `C:\f.txt`, bytes: "\xef\xbb\xbfx\r\n"},
		{script: `'x' | Out-File C:\f.txt -Encoding ascii`, file: `C:\f.txt`, bytes: "x\r\n"},
		{script: `'x' | Out-File C:\f.txt -Encoding BigEndianUnicode`, file: `C:\f.txt`, bytes: "\xfe\xff\x00x\x00\r\x00\n"},
		{script: `Set-Content C:\f.txt 'x'`, file: `C:\f.txt`, bytes: "x\r\n"},
		{script: `Set-Content C:\f.txt 'x' -NoNewline`, file: `C:\f.txt`, bytes: "x"},
		{script: `Set-Content C:\f.txt 'x' -Encoding Unicode; Add-Content C:\f.txt 'y' -Encoding Unicode`, file: `C:\f.txt`, bytes: "\xff\xfex\x00\r\x00\n\x00y\x00\r\x00\n\x00"},
		{script: `'x' | Out-File C:\f.txt; 'y' | Out-File C:\f.txt -Append`, file: `C:\f.txt`, bytes: "\xff\xfex\x00\r\x00\n\x00y\x00\r\x00\n\x00"},
		{script: `'x' | Out-File C:\f.txt`, file: `C:\f.txt`, bytes: "x\r\n", pwsh7: true},
		{script: `Set-Content C:\f.txt 'é' -Encoding utf8BOM`, file: `C:\f.txt`, bytes: "\xef\xbb\xbf\xc3\xa9\r\n", pwsh7: true},
		{script: `Set-Content C:\f.txt 'é' -Encoding utf8`, file: `C:\f.txt`, bytes: "\xc3\xa9\r\n", pwsh7: true},
		{script: `[IO.File]::WriteAllText('C:\f.txt', 'abc')`, file: `C:\f.txt`, bytes: "abc"},
	} {
		sys := pwshtest.Sys()
		run := pwshtest.Run
		if c.pwsh7 {
			run = pwshtest.Run7
		}
		if r := run(sys, c.script); r.Err != "" {
			t.Errorf("%s: %q", c.script, r.Err)
			continue
		}
		if got, _ := pwshtest.Get(sys, c.file); got != c.bytes {
			t.Errorf("%s (pwsh7 %v):\nwrote %q\nwant  %q", c.script, c.pwsh7, got, c.bytes)
		}
		if r := run(sys, "Get-Content "+c.file+" -Raw"); !strings.Contains(r.Out, "x") && !strings.Contains(r.Out, "é") && !strings.Contains(r.Out, "abc") {
			t.Errorf("%s: read back %q", c.script, r.Out)
		}
	}
}

// [IO.File], [IO.Directory] and [IO.Path] on the container's disk.
func TestFileStatics(t *testing.T) {
	sys := pwshtest.Sys()
	for _, c := range []struct{ script, out string }{
		{`[IO.File]::WriteAllText('C:\w.txt', 'abc'); [IO.File]::Exists('C:\w.txt'); [IO.File]::ReadAllText('C:\w.txt')`, lines("True", "abc")},
		{`[IO.File]::Exists('C:\'); [IO.Directory]::Exists('C:\'); [IO.Path]::GetFileName('C:\a\b.txt'); [IO.Path]::Combine('C:\a', 'b')`, lines("False", "True", "b.txt", `C:\a\b`)},
		{`[IO.Directory]::CreateDirectory('C:\d\e') | Out-Null; Test-Path C:\d\e`, lines("True")},
		{`[IO.Path]::GetTempPath()`, lines(`C:\Windows\TEMP\`)},
	} {
		if r := pwshtest.Run(sys, c.script); r.Out != c.out || r.Err != "" {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
	r := pwshtest.Run(sys, `[IO.File]::ReadAllText('C:\nope.txt')`)
	if !strings.HasPrefix(r.Err, `Exception calling "ReadAllText" with "1" argument(s): "Could not find file 'C:\nope.txt'."`) ||
		!strings.Contains(r.Err, "CategoryInfo          : NotSpecified: (:) [], MethodInvocationException") {
		t.Errorf("a missing file: %q", r.Err)
	}
}
