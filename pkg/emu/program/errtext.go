package program

import (
	"errors"
	"os"
	"syscall"
)

// ErrPathNotFound is the error of a Windows FS when a directory on the way
// to a name is missing. Windows words it apart from a missing last name
// ("The system cannot find the path specified." against "... the file
// specified."); Linux has only ENOENT, which this error unwraps to, so
// errors.Is(err, fs.ErrNotExist) holds for both.
var ErrPathNotFound error = pathNotFound{}

type pathNotFound struct{}

func (pathNotFound) Error() string { return "the system cannot find the path specified" }
func (pathNotFound) Unwrap() error { return syscall.ENOENT }

// linuxText is glibc's strerror for the errnos an FS returns.
var linuxText = map[syscall.Errno]string{
	syscall.ENOENT:    "No such file or directory",
	syscall.EROFS:     "Read-only file system",
	syscall.EACCES:    "Permission denied",
	syscall.EPERM:     "Operation not permitted",
	syscall.EISDIR:    "Is a directory",
	syscall.ENOTDIR:   "Not a directory",
	syscall.EEXIST:    "File exists",
	syscall.ENOTEMPTY: "Directory not empty",
	syscall.EBUSY:     "Device or resource busy",
	syscall.ENOSPC:    "No space left on device",
	syscall.ELOOP:     "Too many levels of symbolic links",
	syscall.EINVAL:    "Invalid argument",
	syscall.EXDEV:     "Invalid cross-device link",
	syscall.EBADF:     "Bad file descriptor",
}

// windowsText is the Win32 message of the error each errno stands for.
var windowsText = map[syscall.Errno]string{
	syscall.ENOENT:    "The system cannot find the file specified.",
	syscall.EROFS:     "Access is denied.",
	syscall.EACCES:    "Access is denied.",
	syscall.EPERM:     "Access is denied.",
	syscall.EISDIR:    "Access is denied.",
	syscall.ENOTDIR:   "The directory name is invalid.",
	syscall.EEXIST:    "Cannot create a file when that file already exists.",
	syscall.ENOTEMPTY: "The directory is not empty.",
	syscall.EBUSY:     "The process cannot access the file because it is being used by another process.",
	syscall.ENOSPC:    "There is not enough space on the disk.",
	syscall.ELOOP:     "The name of the file cannot be resolved by the system.",
	syscall.EINVAL:    "The parameter is incorrect.",
	syscall.EXDEV:     "The system cannot move the file to a different disk drive.",
	syscall.EBADF:     "The handle is invalid.",
}

// ErrorText is the OS's wording of an FS error, without the path: what
// strerror (Linux) or FormatMessage (Windows) says. Errors it does not
// know are worded by their Error method.
func ErrorText(err error, windows bool) string {
	if err == nil {
		return ""
	}
	if windows && errors.Is(err, ErrPathNotFound) {
		return "The system cannot find the path specified."
	}
	if errors.Is(err, os.ErrClosed) {
		err = syscall.EBADF
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		table := linuxText
		if windows {
			table = windowsText
		}
		if s, ok := table[errno]; ok {
			return s
		}
		if !windows {
			return capitalize(errno.Error())
		}
	}
	return err.Error()
}

// capitalize makes Go's lower-case errno text look like strerror's.
func capitalize(s string) string {
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
