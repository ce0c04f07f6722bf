// Package notranslations keeps kubectl from loading its message
// translations in winkube.
//
// kubeapply applies objects with kubectl's own patcher, and the kubectl
// packages that come with it build their help texts in package variables
// through i18n.T, whose first call loads the translation catalogue: about
// 30 ms and 4 MB at the start of every winkube process (each CLI command
// and each control-plane component), for texts winkube never prints.
// winkube's output is English, and so are kubectl's strings without a
// catalogue, so nothing a user sees changes.
//
// This package must initialise before those kubectl packages. Go
// initialises, among the packages whose imports are done, the one with the
// smallest import path first; this one imports only the i18n package, and
// its path (github.com/winkube/...) sorts before every k8s.io/kubectl
// package, so its init runs as soon as i18n's has.
package notranslations

import "k8s.io/kubectl/pkg/util/i18n"

func init() {
	// Only fails once translations are loaded, which is what this
	// package exists to prevent; TestKubectlTranslationsNotLoaded checks it.
	_ = i18n.SetLoadTranslationsFunc(func() error { return nil })
}
