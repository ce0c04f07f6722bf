package imageinfo

import _ "embed"

// Fluent Bit's images: cr.fluentbit.io is its own registry, ghcr.io and
// Docker Hub's fluent/fluent-bit its release mirrors. Every tag is an
// index of Linux amd64, arm64 and arm/v7 (dockerfiles/Dockerfile),
// except the windows-<release>-<version> tags (windows-2019 in the 2.x
// and 3.x releases; windows-2022, windows-2025 and windows-nano-2025 in
// 5.x's call-build-images workflow), built with `docker build` from
// dockerfiles/Dockerfile.windows on Windows of that release and pushed
// as they are: single manifests.
var fluentBitRepos = []string{"cr.fluentbit.io/fluent/fluent-bit", "ghcr.io/fluent/fluent-bit", "docker.io/fluent/fluent-bit"}

// The configuration the images ship in /fluent-bit/etc, as of v5.1.1
// (conf/ of github.com/fluent/fluent-bit, Apache License 2.0): the
// Linux image's fluent-bit.conf, the Windows image's (its
// fluent-bit-win32.conf, copied to the same name), and the parsers and
// plugins files both read.
var (
	//go:embed fluentbit/fluent-bit.conf
	fluentBitConf string
	//go:embed fluentbit/fluent-bit-win32.conf
	fluentBitWinConf string
	//go:embed fluentbit/parsers.conf
	fluentBitParsers string
	//go:embed fluentbit/plugins.conf
	fluentBitPlugins string
)

// fluentBitLinux is the Linux images' ENTRYPOINT and CMD (the CMD
// repeats the program's name, which fluent-bit ignores as an operand).
var fluentBitLinux = Command{
	Entrypoint: []string{"/fluent-bit/bin/fluent-bit"},
	Cmd:        []string{"/fluent-bit/bin/fluent-bit", "-c", "/fluent-bit/etc/fluent-bit.conf"},
	Text:       fluentBitFiles(fluentBitConf),
}

// fluentBitWindows is Dockerfile.windows's: fluent-bit.exe on PATH
// (C:\fluent-bit\bin), the same configuration directory under C:\.
var fluentBitWindows = Command{
	Entrypoint: []string{"fluent-bit.exe"},
	Cmd:        []string{"fluent-bit.exe", "-c", "/fluent-bit/etc/fluent-bit.conf"},
	Text:       fluentBitFiles(fluentBitWinConf),
}

func fluentBitFiles(main string) map[string]string {
	return map[string]string{
		"/fluent-bit/etc/fluent-bit.conf": main,
		"/fluent-bit/etc/parsers.conf":    fluentBitParsers,
		"/fluent-bit/etc/plugins.conf":    fluentBitPlugins,
	}
}
