package v1alpha1

import (
	"github.com/google/go-containerregistry/pkg/name"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/windows"
)

// imageOSes are the operating systems an image entry may name.
var imageOSes = []string{OSLinux, OSWindows}

// validateImages checks the images section: a reference each, named
// once, with at least one platform of a known OS and architecture, and
// a Windows build only on Windows entries.
func validateImages(images []Image, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, img := range images {
		p := path.Index(i)
		switch _, err := name.ParseReference(img.Image); {
		case img.Image == "":
			errs = append(errs, field.Required(p.Child("image"), "the image reference, as pods name it"))
		case err != nil:
			errs = append(errs, field.Invalid(p.Child("image"), img.Image, err.Error()))
		case seen[img.Image]:
			errs = append(errs, field.Duplicate(p.Child("image"), img.Image))
		}
		seen[img.Image] = true
		if len(img.Platforms) == 0 {
			errs = append(errs, field.Required(p.Child("platforms"), "at least one os and architecture"))
		}
		for j, pl := range img.Platforms {
			errs = append(errs, validateImagePlatform(pl, p.Child("platforms").Index(j))...)
		}
	}
	return errs
}

func validateImagePlatform(pl ImagePlatform, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch pl.OS {
	case OSLinux, OSWindows:
	case "":
		errs = append(errs, field.Required(p.Child("os"), "linux or windows"))
	default:
		errs = append(errs, field.NotSupported(p.Child("os"), pl.OS, imageOSes))
	}
	if pl.Architecture == "" {
		errs = append(errs, field.Required(p.Child("architecture"), "such as amd64 or arm64"))
	}
	if pl.OSVersion == "" {
		return errs
	}
	if pl.OS != OSWindows {
		return append(errs, field.Forbidden(p.Child("osVersion"), "only Windows entries carry os.version"))
	}
	if b, err := windows.ParseBuild(pl.OSVersion); err != nil || b.Major != 10 || b.Minor != 0 {
		errs = append(errs, field.Invalid(p.Child("osVersion"), pl.OSVersion, "want a Windows version 10.0.BUILD[.UBR], as the image index's os.version"))
	}
	return errs
}
