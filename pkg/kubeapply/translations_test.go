package kubeapply

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/kubectl/pkg/util/i18n"
)

// TestKubectlTranslationsNotLoaded: the kubectl packages kubeapply links
// leave their message catalogue unloaded (package notranslations), so a
// process that starts under a German locale, where kubectl loads de_DE's
// catalogue at its first i18n.T, keeps kubectl's strings as written. The
// second line is the premise: kubectl's own loader does translate the
// string under that locale.
func TestKubectlTranslationsNotLoaded(t *testing.T) {
	const text = "Attach to a running container" // translated in kubectl's de_DE catalogue
	if os.Getenv("WINKUBE_TEST_PRINT_T") != "" {
		fmt.Println(i18n.T(text))
		if err := i18n.LoadTranslations("kubectl", nil); err != nil {
			t.Fatal(err)
		}
		fmt.Println(i18n.T(text))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKubectlTranslationsNotLoaded$")
	cmd.Env = append(os.Environ(), "WINKUBE_TEST_PRINT_T=1", "LC_ALL=de_DE.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) < 2 || lines[1] == text {
		t.Fatalf("kubectl's de_DE catalogue leaves %q untranslated; pick another string (%q)", text, out)
	}
	if lines[0] != text {
		t.Errorf("i18n.T(%q) under LC_ALL=de_DE.UTF-8 = %q: kubectl's translations were loaded at init", text, lines[0])
	}
}
