package program

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestErrorText(t *testing.T) {
	pe := func(err error) error { return &fs.PathError{Op: "open", Path: "/x", Err: err} }
	tests := []struct {
		err            error
		linux, windows string
	}{
		{pe(syscall.ENOENT), "No such file or directory", "The system cannot find the file specified."},
		{pe(ErrPathNotFound), "No such file or directory", "The system cannot find the path specified."},
		{pe(syscall.EROFS), "Read-only file system", "Access is denied."},
		{pe(syscall.EACCES), "Permission denied", "Access is denied."},
		{pe(syscall.EISDIR), "Is a directory", "Access is denied."},
		{pe(syscall.ENOTDIR), "Not a directory", "The directory name is invalid."},
		{pe(syscall.EEXIST), "File exists", "Cannot create a file when that file already exists."},
		{pe(syscall.ENOTEMPTY), "Directory not empty", "The directory is not empty."},
		{pe(syscall.EBUSY), "Device or resource busy", "The process cannot access the file because it is being used by another process."},
		{pe(syscall.ENOSPC), "No space left on device", "There is not enough space on the disk."},
		{pe(syscall.ELOOP), "Too many levels of symbolic links", "The name of the file cannot be resolved by the system."},
		{pe(syscall.EINVAL), "Invalid argument", "The parameter is incorrect."},
		{&os.LinkError{Op: "rename", Old: "a", New: "b", Err: syscall.EXDEV}, "Invalid cross-device link", "The system cannot move the file to a different disk drive."},
		{pe(os.ErrClosed), "Bad file descriptor", "The handle is invalid."},
		{syscall.ENOENT, "No such file or directory", "The system cannot find the file specified."},
		{pe(syscall.ENXIO), "No such device or address", pe(syscall.ENXIO).Error()},
		{errors.New("boom"), "boom", "boom"},
		{nil, "", ""},
	}
	for _, tt := range tests {
		if got := ErrorText(tt.err, false); got != tt.linux {
			t.Errorf("ErrorText(%v, linux) = %q, want %q", tt.err, got, tt.linux)
		}
		if got := ErrorText(tt.err, true); got != tt.windows {
			t.Errorf("ErrorText(%v, windows) = %q, want %q", tt.err, got, tt.windows)
		}
	}
}

func TestErrPathNotFoundIsNotExist(t *testing.T) {
	err := &fs.PathError{Op: "open", Path: `C:\a\b`, Err: ErrPathNotFound}
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("ErrPathNotFound must unwrap to ENOENT")
	}
}
